"""The visitor's language: how it is chosen, the switcher's route, and the middleware that speaks it.

Pages speak the language in the ``cucumber_lang`` cookie (set by the
switcher on every page), else the one the browser's ``Accept-Language``
prefers, else English. The JSON API speaks ``Accept-Language`` only, and
the protocol's socket the ``lang`` of its ``hello``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.deps import SettingsDep
from app.wording.language import DEFAULT_LANGUAGE, negotiate, speaking, supported

LANGUAGE_COOKIE = "cucumber_lang"
LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 3600
"""The switcher's choice is kept for a year (and again from each new choice)."""

router = APIRouter()


def visitor_language(conn: HTTPConnection) -> str:
    """The language a page (or the page's socket) speaks to this visitor.

    The ``cucumber_lang`` cookie when it names a language spoken here, else
    the ``Accept-Language`` header's preference, else English.
    """
    return (supported(conn.cookies.get(LANGUAGE_COOKIE)) or negotiate(conn.headers.get("accept-language"))
            or DEFAULT_LANGUAGE)


def api_language(conn: HTTPConnection) -> str:
    """The language of the JSON API's messages: the ``Accept-Language`` header's preference, else English."""
    return negotiate(conn.headers.get("accept-language")) or DEFAULT_LANGUAGE


class SpeakTheVisitorsLanguage:
    """ASGI middleware: every HTTP request is answered in its visitor's language
    (:func:`visitor_language` for pages, :func:`api_language` under ``/api/``), and a page says which
    in its ``Content-Language`` header (the service worker shows its offline page in that language).

    WebSockets pass untouched: each socket chooses its own language for as long
    as it is open.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request while speaking its language."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        code = api_language(conn) if scope["path"].startswith("/api/") else visitor_language(conn)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if headers.get("content-type", "").startswith("text/html"):
                    headers.setdefault("Content-Language", code)
            await send(message)

        with speaking(code):
            await self.app(scope, receive, send_with_language)


def local_path(target: object) -> str:
    """``target`` if it is a path on this site (``/r/K7QXM``, ``/matches?page=2``), else ``/``.

    Only a path that starts with one ``/`` counts: no scheme, no host, no
    ``//`` or ``\\`` that a browser would read as another site, and no
    spaces or control characters.
    """
    if not isinstance(target, str) or not target.startswith("/") or target.startswith("//"):
        return "/"
    if "\\" in target or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in target):
        return "/"
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else "/"


@router.post("/language", name="set_language")
async def set_language(request: Request, settings: SettingsDep, lang: str = Form(""),
                       back: str = Form("/", alias="next")) -> Response:
    """The language switcher: remember ``lang`` in the ``cucumber_lang`` cookie and go back to the page
    at ``next`` (a path on this site; anything else goes home), with a relative 303.

    A language not spoken here changes nothing.
    """
    response = RedirectResponse(local_path(back), status_code=303)
    code = supported(lang)
    if code is not None:
        secure = request.url.scheme == "https" or urlsplit(settings.public_url or "").scheme == "https"
        response.set_cookie(LANGUAGE_COOKIE, code, max_age=LANGUAGE_COOKIE_MAX_AGE, httponly=True, samesite="lax",
                            secure=secure, path="/")
    return response
