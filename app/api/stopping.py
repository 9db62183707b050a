"""A stop is not held up by a client that never finishes sending: a request still waiting for its body when
the stop begins is answered at once, ``503 server_stopping`` with ``Retry-After``, and served no further.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.language import api_language
from app.rooms.errors import STOPPING_RETRY_SECONDS, ErrorCode
from app.web.security import Refused
from app.wording.errors import problem
from app.wording.language import speaking

log = logging.getLogger(__name__)


class ServerStopping(HTTPException):
    """Raised in place of the rest of a request's body once the stop has begun (503). The app answers it
    with :func:`stopping`; it is an ``HTTPException`` so that the framework passes it on as it is rather
    than as a body it could not read (400)."""

    def __init__(self) -> None:
        super().__init__(status_code=503)


def stopping() -> Refused:
    """The refusal of a request the server will not serve because it is stopping: 503 ``server_stopping``,
    with :data:`~app.rooms.errors.STOPPING_RETRY_SECONDS` to wait."""
    return Refused(ErrorCode.SERVER_STOPPING, problem("server_stopping"), status=503,
                   retry_after=STOPPING_RETRY_SECONDS)


class AnswerAtStop:
    """ASGI middleware: while an HTTP request's body is still arriving, its wait for the next part also ends
    when the stop begins (``app.state.node.stop_begun``); it then raises :class:`ServerStopping` in the
    app, which answers ``503 server_stopping``, and the connection closes. A request with its whole body
    in goes on as usual. Outside the relay of a cluster, which reads a relayed request's body first:
    should the exception come out of the app unanswered, this answers it (as JSON) instead. WebSockets
    pass untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, its body's wait cut short by the stop."""
        node = getattr(scope["app"].state, "node", None) if scope["type"] == "http" else None
        if node is None:
            await self.app(scope, receive, send)
            return
        begun: asyncio.Event = node.stop_begun
        body_in = started = cut = False

        async def receive_until_stop() -> Message:
            nonlocal body_in, cut
            if body_in:
                return await receive()
            message = await _first(receive(), begun)
            if message is None:
                cut = True
                log.info("%s %s: the server is stopping before its body came; answered 503", scope["method"],
                         scope["path"])
                raise ServerStopping()
            body_in = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def send_watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive_until_stop, send_watched)
        except ServerStopping:
            if not cut:
                raise
            if not started:
                refusal = stopping()
                with speaking(api_language(HTTPConnection(scope))):
                    answer = JSONResponse({"error": refusal.code, "message": refusal.message}, status_code=503,
                                          headers=refusal.headers)
                await answer(scope, receive, send)


async def _first(receiving: Awaitable[Message], begun: asyncio.Event) -> Message | None:
    """The message ``receiving`` (a ``receive()`` awaitable) gives, or ``None`` if ``begun`` is set first (or
    was already, and no message is at hand): the part of the body it waited for is then left unread."""
    task = asyncio.ensure_future(receiving)
    try:
        if not begun.is_set():
            stop = asyncio.ensure_future(begun.wait())
            try:
                await asyncio.wait((task, stop), return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
        else:
            await asyncio.sleep(0)  # a part that has arrived is taken; one still to come is not waited for
    except BaseException:  # cancelled itself (the server cut the request off): the wait ends with it
        task.cancel()
        raise
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return None
