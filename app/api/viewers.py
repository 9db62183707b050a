"""The anonymous id a browser chats under while it watches a table (no seat), kept in a cookie.

The cookie holds a secret; the id others see is made from it and cannot be
turned back into it, so nobody can chat under another browser's id. A
reload or a reconnect of the same browser keeps its id, so that a spectator
the host muted stays muted (docs/protocol.md, "Table chat").
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import Response

from app.common.identity import PLAYER_ID_ALPHABET, PLAYER_ID_LENGTH, new_token
from app.config.settings import Settings

VIEWER_COOKIE = "cucumber_viewer"
VIEWER_COOKIE_MAX_AGE = 365 * 24 * 3600


def viewer_id(secret: str) -> str:
    """The public id of the browser holding ``secret``: :data:`~app.common.identity.PLAYER_ID_LENGTH` characters
    of the player ids' alphabet, from its SHA-256 (so it looks like a player id, and is checked as one)."""
    digest = hashlib.sha256(f"viewer:{secret}".encode()).digest()
    return "".join(PLAYER_ID_ALPHABET[byte % len(PLAYER_ID_ALPHABET)] for byte in digest[:PLAYER_ID_LENGTH])


def browser_viewer(conn: HTTPConnection) -> str | None:
    """The anonymous id of the browser that sent ``conn`` (a page or its socket), ``None`` without the cookie."""
    secret = conn.cookies.get(VIEWER_COOKIE)
    return viewer_id(secret) if secret else None


def remember_viewer(conn: HTTPConnection, response: Response, settings: Settings) -> None:
    """Give a browser that has none the cookie of its anonymous id (HttpOnly, SameSite=Lax; ``Secure``
    where the site is https, as the player cookie)."""
    if conn.cookies.get(VIEWER_COOKIE):
        return
    secure = conn.url.scheme == "https" or urlsplit(settings.public_url or "").scheme == "https"
    response.set_cookie(VIEWER_COOKIE, new_token(), max_age=VIEWER_COOKIE_MAX_AGE, httponly=True, samesite="lax",
                        secure=secure, path="/")
