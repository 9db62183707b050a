"""One live WebSocket connection of a room: who is behind it, how it renders, its bounded outbox.

The room hands frames over without waiting. A frame for a connection with
nothing else to send is written at once if its socket takes it without
waiting (the common case: the transport's buffer has room: :mod:`app.rooms.send_now`);
otherwise it waits in the outbox, and a sender task writes it. A client that
stops reading fills its outbox and is dropped, so it can never hold up the room.
A connection's life is one :class:`Life`, its sender task's place one
:class:`SenderAt`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from enum import Enum
from typing import Any, Protocol

from app.common.identity import new_player_id
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.errors import ErrorCode
from app.rooms.kept import Shared
from app.rooms.seat_links import Link
from app.rooms.send_now import Unfinished, begin_send
from app.rooms.views import Viewer
from app.wording.language import DEFAULT_LANGUAGE, speaking

log = logging.getLogger(__name__)


class Socket(Protocol):
    """The socket under a connection: it sends text frames and closes with a WebSocket close code."""

    async def send(self, text: str) -> None:
        """Send one text frame (may wait while the client is slow)."""

    async def close(self, code: int) -> None:
        """Close the socket with ``code``; never raises."""


class Renderer(Protocol):
    """How one kind of client sees the room (JSON messages, or the page's HTML regions).

    ``kind`` names the rendering: viewers of the same seat, host role and
    kind share one rendered payload per version.
    """

    kind: str

    def render(self, viewer: Viewer, shared: Shared) -> Any:
        """The payload for a :class:`~app.rooms.views.Viewer` (shared by viewers who see alike).

        ``shared`` lives for one version of the room: a renderer makes there once what every viewer shares
        (:meth:`~app.rooms.kept.Shared.once`), and keeps in ``shared.kept`` what later versions may find
        again (:meth:`~app.rooms.kept.Kept.made`).
        """

    def frame(self, payload: Any, *, whole: bool = False) -> str | None:
        """The text frame for this connection from a rendered payload (``None``: nothing to send).

        ``whole``: all of it, even what this connection was sent before.
        """

    def error(self, code: str, message: str) -> str:
        """The text frame telling this connection that its message was refused."""

    def link(self, link: Link) -> str:
        """The text frame giving this connection a link it asked for (it holds a secret: for it alone)."""

    def chat(self, line: ChatLine) -> str:
        """The frame of a new chat line."""

    def chat_welcome(self, lines: Sequence[ChatLine], status: ChatStatus) -> str | None:
        """The frame a connection gets after its first state: the chat lines kept and who may write
        (``None``: nothing to send)."""

    def chat_status(self, status: ChatStatus, *, host: bool) -> str:
        """The frame saying who may chat now (``host``: as the host sees it, with what they can change)."""


class Life(Enum):
    """Where a connection is in its life. It only moves on: from ``OPEN`` to ``ENDING``, and from either to
    ``CLOSED`` or ``TOO_SLOW``, where it stays."""

    OPEN = "open"
    """It takes frames and sends them."""
    ENDING = "ending"
    """It takes no more frames: it sends those queued, then its socket closes with its close code."""
    CLOSED = "closed"
    """It sends nothing more; its socket closes (or has closed) with its close code."""
    TOO_SLOW = "too_slow"
    """As ``CLOSED``, because its outbox was full: the client stopped reading (closed with 1013)."""


class SenderAt(Enum):
    """Where a connection's sender task is."""

    NOT_STARTED = "not_started"
    WAITING = "waiting"
    """Waiting for a frame (or a send begun at once) to be given to it."""
    SENDING = "sending"
    """Inside a send to the socket, which a client that stopped reading may never let finish."""
    DONE = "done"
    """Ended: the socket is closed, or closing."""


class Connection:
    """A viewer's connection: who they are, how they see the room, and their outbox.

    ``token_hash`` identifies the player (or host) behind it (``None`` for a
    spectator); ``renderer`` turns views into frames; ``socket`` carries them;
    at most ``queue_size`` frames wait to be sent. ``language`` (a code of
    :data:`app.wording.language.LANGUAGES`) is the language its viewer reads:
    everything rendered for this connection is said in it. ``viewer`` is the
    anonymous id its person chats under while they hold no seat (a new one
    per connection unless given: the page keeps one per browser).
    ``send_at_once`` (the default) writes a frame for an idle connection at
    once (:mod:`app.rooms.send_now`); without it every frame goes through the
    sender task, as the tests compare.
    """

    __slots__ = ("_life", "_outbox", "_queue_size", "_rest", "_send_at_once", "_sender", "_sender_at", "_socket",
                 "_wake", "close_code", "language", "renderer", "token_hash", "viewer")  # a server holds thousands

    def __init__(self, *, token_hash: str | None, renderer: Renderer, socket: Socket, queue_size: int,
                 language: str = DEFAULT_LANGUAGE, viewer: str | None = None, send_at_once: bool = True) -> None:
        self.token_hash = token_hash
        self.viewer = viewer or new_player_id()
        self.renderer = renderer
        self.language = language
        self._socket = socket
        self._send_at_once = send_at_once
        self._life = Life.OPEN
        # A list and a future to wake the sender, not an asyncio.Queue: a queue holds four deques, and a
        # server holds thousands of connections.
        self._outbox: list[str | None] = []  # None: close once what comes before it is sent
        self._queue_size = queue_size
        self._wake: asyncio.Future[None] | None = None
        # 1000 when it ends normally; 1013 "try again later" and 1011 "server error" invite the
        # browser to reconnect and resync.
        self.close_code = 1000
        self._sender: asyncio.Task[None] | None = None
        self._sender_at = SenderAt.NOT_STARTED
        self._rest: Unfinished | None = None
        """A frame begun at once whose send stopped to wait: the sender finishes it before anything else."""

    @property
    def life(self) -> Life:
        """Where the connection is in its life."""
        return self._life

    @property
    def dropped(self) -> bool:
        """Whether it sends nothing more (:attr:`Life.CLOSED` or :attr:`Life.TOO_SLOW`)."""
        return self._life is Life.CLOSED or self._life is Life.TOO_SLOW

    @property
    def too_slow(self) -> bool:
        """Whether it was dropped because its outbox was full."""
        return self._life is Life.TOO_SLOW

    def watch_only(self, notice: object) -> None:
        """The person behind this connection no longer holds a seat here: it goes on as a spectator's,
        and is told why with the error ``seat_moved`` and ``notice``."""
        self.token_hash = None
        self.error(ErrorCode.SEAT_MOVED, notice)

    @property
    def kind(self) -> str:
        """The renderer's kind (``"json"``, ``"page"``…)."""
        return self.renderer.kind

    def deliver(self, payload: Any, *, whole: bool = False) -> None:
        """Turn a rendered state into this connection's frame and queue it (if there is anything to send)."""
        text = self.renderer.frame(payload, whole=whole)
        if text is not None:
            self.offer(text)

    def offer(self, text: str) -> bool:
        """Send ``text`` without waiting: at once if nothing else is waiting to be sent and the socket takes
        it (:meth:`_write_now`), else through the outbox.

        Returns ``False`` when it was neither sent nor queued: the connection is
        not open, or its outbox is full because the client stopped reading (the
        connection is then dropped, :attr:`Life.TOO_SLOW`, and its socket closed with 1013).
        """
        if self._life is not Life.OPEN:
            return False
        if self._send_at_once and self._idle():
            self._write_now(text)
            return True
        if not self._put(text):
            log.info("dropping a %s connection that stopped reading", self.kind)
            self._stop(1013, Life.TOO_SLOW)
            return False
        return True

    def _put(self, item: str | None) -> bool:
        """Queue ``item`` for the sender and wake it; ``False`` (nothing queued) when the outbox is full."""
        if len(self._outbox) >= self._queue_size:
            return False
        self._outbox.append(item)
        self._wake_sender()
        return True

    def _idle(self) -> bool:
        """Whether the sender waits with nothing to send: a new frame comes before nothing else."""
        return self._sender_at is SenderAt.WAITING and not self._outbox and self._rest is None

    def _write_now(self, text: str) -> None:
        """Write ``text`` now, without the sender task (:mod:`app.rooms.send_now`). Most sends finish at once;
        one that has to wait (the client reads slowly) is finished by the sender, before the frames queued
        after it. A socket that fails drops the connection."""
        try:
            rest = begin_send(self._socket.send(text))
        except Exception as error:  # a broken socket ends this connection only
            log.debug("sender stopped: %r", error)
            self._life = Life.CLOSED
            self._wake_sender()  # it closes the socket
            return
        if rest is not None:
            self._rest = rest
            self._wake_sender()

    def _wake_sender(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def error(self, code: str, words: object) -> None:
        """Queue a refused action's error for this connection only, ``words`` (anything ``str()``
        turns into the reason) said in the connection's language."""
        with speaking(self.language):
            self.offer(self.renderer.error(code, str(words)))

    def send_link(self, link: Link) -> None:
        """Queue a link this connection asked for, for it alone: the link's secret is never broadcast."""
        self.offer(self.renderer.link(link))

    def abort(self) -> None:
        """Drop the connection now (e.g. its state could not be rendered); the socket closes with 1011."""
        self._stop(1011)

    def finish(self) -> None:
        """Stop sending and close the socket (it is closing anyway, or the room is going away).

        After :meth:`end`, the frames queued before it are still sent first.
        """
        if self._life is not Life.ENDING:
            self._stop(self.close_code)

    def end(self, close_code: int) -> None:
        """Close the socket with ``close_code`` once the frames already queued are sent, so that a
        client closed for what it sent reads why. Nothing queued after this is sent; a full outbox
        drops the connection at once."""
        if self._life is not Life.OPEN:
            return
        self.close_code = close_code
        if not self._put(None):
            self._stop(close_code)
            return
        self._life = Life.ENDING

    def _stop(self, close_code: int, life: Life = Life.CLOSED) -> None:
        """Send nothing more and close the socket with ``close_code``; a connection still open or ending
        moves to ``life``."""
        if not self.dropped:
            self._life = life
        self.close_code = close_code
        if self._sender_at is SenderAt.SENDING and self._sender is not None:
            self._sender.cancel()  # stuck in a send that may never complete
            return
        self._wake_sender()  # it sees the connection dropped and stops

    def start(self) -> asyncio.Task[None]:
        """Start the task that writes queued frames to the socket; returns it."""
        self._sender = asyncio.get_running_loop().create_task(self.run_sender())
        return self._sender

    async def run_sender(self) -> None:
        """Write queued frames to the socket until the connection is dropped or fails."""
        try:
            while True:
                while not self._outbox and not self.dropped and self._rest is None:
                    self._sender_at = SenderAt.WAITING
                    self._wake = asyncio.get_running_loop().create_future()
                    await self._wake
                    self._wake = None
                if self.dropped:
                    break
                if self._rest is not None:
                    self._sender_at = SenderAt.SENDING
                    await self._rest
                    self._rest = None
                    continue
                text = self._outbox.pop(0)
                if text is None:
                    break
                self._sender_at = SenderAt.SENDING
                await self._socket.send(text)
                text = None  # not kept while waiting: each idle connection would hold its last frame
        except asyncio.CancelledError:
            pass  # dropped while a send was stuck
        except Exception as error:  # a broken socket ends this connection only
            log.debug("sender stopped: %r", error)
        finally:
            self._sender_at = SenderAt.DONE
            if not self.dropped:
                self._life = Life.CLOSED
            if self._rest is not None:  # dropped before the sender could finish it
                self._rest.close()
                self._rest = None
            try:
                await self._socket.close(self.close_code)
            except Exception as error:
                log.debug("close failed: %r", error)
