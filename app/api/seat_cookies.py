"""The cookie that seats a browser in a room: ``cucumber_{CODE}``, holding the player's token, sent only to
that room's pages (``Path=/r/{CODE}``: the table page, its forms and its socket).

Scoped to its room, a seat cookie is in no other request, so a browser that
has sat in any number of rooms sends at most one of them with each request.
It is renewed at each visit of the room's page while the seat lasts and
removed when the seat or the room has ended. Servers before this one set it
with ``Path=/`` (sent with every request); :class:`MoveOldSeatCookies` moves
those to their room's path, a few with each response.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.common.identity import ROOM_CODE_ALPHABET, ROOM_CODE_LENGTH, hash_token
from app.config.settings import Settings
from app.rooms.room import Room

SEAT_COOKIE_MAX_AGE = 30 * 24 * 3600
"""A seat cookie lasts 30 days from the last visit of its room's page."""
OLD_PATH = "/"
"""Where servers before this one scoped seat cookies."""
SEAT_COOKIE = re.compile(rf"cucumber_([{ROOM_CODE_ALPHABET}]{{{ROOM_CODE_LENGTH}}})")
"""A seat cookie's name; the group is the room's code."""
MOVED_AT_ONCE = 8
"""Old seat cookies one response moves to their room's path: each takes two ``Set-Cookie`` headers of about
120 bytes, and a proxy refuses a response whose headers pass its buffer (nginx's ``proxy_buffer_size``,
4 KB by default on most machines)."""


def cookie_name(code: str) -> str:
    """The name of the cookie holding a player's token for room ``code``."""
    return f"cucumber_{code.upper()}"


def room_path(code: str) -> str:
    """The path a seat cookie of room ``code`` is sent to (and under): the room's page, ``/r/{CODE}``."""
    return f"/r/{code.upper()}"


def _cookies(conn: HTTPConnection | Scope) -> list[tuple[str, str]]:
    """Every ``name=value`` pair of the request's ``Cookie`` headers, in their order, names repeated."""
    scope = conn.scope if isinstance(conn, HTTPConnection) else conn
    pairs = []
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            for chunk in value.decode("latin-1").split(";"):
                key, equals, text = chunk.partition("=")
                if equals:
                    pairs.append((key.strip(), text.strip()))
    return pairs


def seat_token(conn: HTTPConnection, code: str) -> str | None:
    """The token in the request's seat cookie for room ``code``, ``None`` without one.

    Were a browser to hold the cookie twice (its room's path and ``/``), it
    sends the one of the longer path first (RFC 6265, section 5.4): that one counts.
    """
    name = cookie_name(code)
    return next((value for key, value in _cookies(conn) if key == name and value), None)


def _secure(conn: HTTPConnection | Scope, settings: Settings) -> bool:
    """Whether cookies set in answer to ``conn`` are ``Secure``: the request or the public URL is https."""
    scope = conn.scope if isinstance(conn, HTTPConnection) else conn
    return scope.get("scheme") == "https" or urlsplit(settings.public_url or "").scheme == "https"


def set_seat_cookie(response: Response, conn: HTTPConnection | Scope, settings: Settings, code: str,
                    token: str) -> None:
    """Seat the browser in room ``code`` (or keep it seated 30 days more): ``token`` in an HttpOnly,
    SameSite=Lax cookie for ``/r/{CODE}``, ``Secure`` when the site is https; and the room's cookie of an
    older server, for ``/``, removed, so that the browser never holds two."""
    secure = _secure(conn, settings)
    response.set_cookie(cookie_name(code), token, max_age=SEAT_COOKIE_MAX_AGE, path=room_path(code),
                        httponly=True, samesite="lax", secure=secure)
    response.delete_cookie(cookie_name(code), path=OLD_PATH, httponly=True, samesite="lax", secure=secure)


def end_seat_cookie(response: Response, conn: HTTPConnection, settings: Settings, code: str) -> None:
    """Remove the browser's seat cookie of room ``code`` (its seat or the room has ended), at both paths."""
    secure = _secure(conn, settings)
    for path in (room_path(code), OLD_PATH):
        response.delete_cookie(cookie_name(code), path=path, httponly=True, samesite="lax", secure=secure)


def keep_or_end_seat_cookie(response: Response, conn: HTTPConnection, settings: Settings, code: str,
                            room: Room | None) -> None:
    """After a visit of room ``code``'s page (``room``: ``None`` when there is no such room): a seat cookie
    whose token the room still knows (:meth:`Room.knows`: a seat, or its host) is renewed, any other removed.
    Nothing is set for a browser that sent none."""
    token = seat_token(conn, code)
    if token is None:
        return
    if room is not None and room.knows(hash_token(token)):
        set_seat_cookie(response, conn, settings, code, token)
    else:
        end_seat_cookie(response, conn, settings, code)


def old_seat_cookies(scope: Scope) -> list[tuple[str, str]]:
    """``(room code, token)`` of each seat cookie of the request that an older server set for ``/``.

    A seat cookie sent with a request outside its room's path can only be one
    of those; one sent within it may be either, and its page renews it
    (:func:`keep_or_end_seat_cookie`), which moves it.
    """
    path = scope["path"]
    found: dict[str, str] = {}
    for name, value in _cookies(scope):
        seat = SEAT_COOKIE.fullmatch(name)
        if seat is None or not value:
            continue
        own = room_path(seat.group(1))
        if path != own and not path.startswith(own + "/"):
            found.setdefault(seat.group(1), value)
    return list(found.items())


class MoveOldSeatCookies:
    """ASGI middleware: a response to a GET or HEAD (not a refusal) that carries seat cookies set for ``/`` by
    an older server sets up to :data:`MOVED_AT_ONCE` of them again for their room's path, and removes them
    from ``/``.

    Their players keep their seats, and the browser's ``Cookie`` header sheds
    them within a few pages. A cookie the response sets itself (a seat taken
    again) is left to it. Static files and WebSockets pass untouched (a
    static file's response is kept for a year by anyone, so it must set no
    cookie).
    """

    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, adding the moves to the start of its response."""
        moving = scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and \
            not scope["path"].startswith("/static/")
        old = old_seat_cookies(scope) if moving else []
        if not old:
            await self.app(scope, receive, send)
            return

        async def send_with_moves(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                headers = MutableHeaders(scope=message)
                setting = {value.partition("=")[0] for value in headers.getlist("set-cookie")}
                moves = Response()
                for code, token in [seat for seat in old if cookie_name(seat[0]) not in setting][:MOVED_AT_ONCE]:
                    set_seat_cookie(moves, scope, self.settings, code, token)
                for name, value in moves.raw_headers:
                    if name == b"set-cookie":
                        headers.append("set-cookie", value.decode("latin-1"))
            await send(message)

        await self.app(scope, receive, send_with_moves)
