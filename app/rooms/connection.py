"""One live WebSocket connection of a room, with its bounded outbox.

The room puts messages in the outbox without waiting; a sender task writes
them to the socket. A client that stops reading fills its outbox and is
dropped, so it can never hold up the room.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

Render = Callable[[Any], Any]
"""Turns a viewer's room view into a payload (shared by connections that render alike)."""
Encode = Callable[[Any], str | None]
"""Turns a payload into the text to send on one connection (``None``: nothing to send)."""
RenderError = Callable[[str, str], str]
"""Turns a refused action's ``(code, message)`` into the text to send."""


class Connection:
    """A viewer's connection: who they are, how they see the room, and their outbox.

    ``seat`` is the viewer's seat or ``None`` for a spectator; ``token_hash``
    identifies the player behind it (``None`` for a spectator). ``render``
    turns a room view into a text frame (JSON for the protocol, HTML for the
    page) and ``render_error`` a refused action; ``encode`` turns a rendered
    payload into this connection's frame (e.g. only the regions that changed
    for it). ``send`` writes one text frame to the socket; ``close`` closes
    it with a WebSocket close code. ``kind`` names the rendering, so payloads
    can be shared between connections that render alike.
    """

    def __init__(self, *, token_hash: str | None, render: Render, render_error: RenderError,
                 send: Callable[[str], Awaitable[None]], close: Callable[[int], Awaitable[None]],
                 queue_size: int, kind: str, encode: Encode | None = None) -> None:
        self.token_hash = token_hash
        self.render = render
        self.render_error = render_error
        self.encode: Encode = encode or (lambda payload: payload)
        self.kind = kind
        self._send = send
        self._close = close
        self._outbox: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_size)
        self.dropped = False
        # 1000 when it ends normally; 1013 "try again later" and 1011 "server error" invite the
        # browser to reconnect and resync.
        self.close_code = 1000
        self._sender: asyncio.Task[None] | None = None
        self._sending = False

    def deliver(self, payload: Any) -> None:
        """Encode a rendered state for this connection and queue it (if there is anything to send)."""
        text = self.encode(payload)
        if text is not None:
            self.offer(text)

    def offer(self, text: str) -> bool:
        """Queue ``text`` for sending without waiting.

        Returns ``False`` (and drops the connection, whose socket is then
        closed with 1013) when the outbox is full: the client stopped reading.
        """
        if self.dropped:
            return False
        try:
            self._outbox.put_nowait(text)
        except asyncio.QueueFull:
            log.info("dropping a %s connection that stopped reading", self.kind)
            self._stop(1013)
            return False
        return True

    def error(self, code: str, message: str) -> None:
        """Queue a refused action's error for this connection only."""
        self.offer(self.render_error(code, message))

    def abort(self) -> None:
        """Drop the connection now (e.g. its state could not be rendered); the socket closes with 1011."""
        self._stop(1011)

    def finish(self) -> None:
        """Stop sending and close the socket (it is closing anyway, or the room is going away)."""
        self._stop(self.close_code)

    def _stop(self, close_code: int) -> None:
        self.dropped, self.close_code = True, close_code
        if self._sending and self._sender is not None:
            self._sender.cancel()  # stuck in a send that may never complete
            return
        try:
            self._outbox.put_nowait(None)  # wake the sender
        except asyncio.QueueFull:
            pass  # the sender finds a message waiting, then sees ``dropped``

    def start(self) -> asyncio.Task[None]:
        """Start the task that writes queued frames to the socket; returns it."""
        self._sender = asyncio.get_running_loop().create_task(self.run_sender())
        return self._sender

    async def run_sender(self) -> None:
        """Write queued frames to the socket until the connection is dropped or fails."""
        try:
            while True:
                text = await self._outbox.get()
                if text is None or self.dropped:
                    break
                self._sending = True
                await self._send(text)
                self._sending = False
        except asyncio.CancelledError:
            pass  # dropped while a send was stuck
        except Exception as error:  # a broken socket ends this connection only
            log.debug("sender stopped: %r", error)
        finally:
            self.dropped = True
            try:
                await self._close(self.close_code)
            except Exception as error:
                log.debug("close failed: %r", error)
