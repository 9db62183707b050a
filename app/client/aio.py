"""An asyncio JSON-protocol client that stays at its table: it reconnects with back-off, resumes from the
version it holds, beats its heartbeat, and lets a bot or a test wait for the state it needs.

One :class:`Client` is one seat's (or a spectator's) place at one room, across any number of sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from app.client.view import RECONNECT_CODES, Frame, Json, Table, View


@dataclass(frozen=True, slots=True)
class Backoff:
    """Pauses before reconnecting: "full jitter", a random pause below a ceiling that starts at ``first``
    seconds and doubles with each attempt in a row up to ``cap`` (docs/protocol.md, "Heartbeat": the
    web page's is 0.5 to 10 s)."""

    first: float = 0.5
    cap: float = 10.0

    def pause(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before attempt ``attempt`` (1 for the first reconnect after a state came)."""
        return rng.uniform(0, min(self.cap, self.first * 2 ** max(0, attempt - 1)))


@dataclass(frozen=True, slots=True)
class Connected:
    """A socket opened and said ``hello``; ``number`` counts the sockets of this client, from 1."""

    number: int


@dataclass(frozen=True, slots=True)
class Disconnected:
    """A socket closed, or could not be opened.

    ``code`` is the close code the server sent (``1006`` when the connection dropped without one), or
    ``None`` when no socket opened, with ``error`` naming why (``"TimeoutError"``, ``"InvalidStatus"``…).
    ``pause`` is the seconds the client waits before the next attempt, ``None`` when it stops.
    """

    code: int | None
    error: str | None
    pause: float | None


Event = Connected | Frame | Disconnected


def socket_url(base: str, code: str) -> str:
    """The socket URL of room ``code`` on a server at ``base`` (``http://host:port`` or ``ws://…``)."""
    scheme, rest = base.rstrip("/").split("://", 1)
    return f"{ {'http': 'ws', 'https': 'wss'}.get(scheme, scheme)}://{rest}/api/rooms/{code}/ws"


def may_reconnect(code: int | None) -> bool:
    """Whether docs/protocol.md says to reconnect after ``code`` (``None``: the socket never opened)."""
    return code is None or code in RECONNECT_CODES


class Client:
    """One place at a room over the JSON protocol (docs/protocol.md): a seat's with ``token``, a
    spectator's without.

    Iterating the client (``async for event in client``) starts a task that opens a socket, says
    ``hello`` (with ``lang``), and yields :class:`Connected`, every :class:`~app.client.view.Frame`
    received and :class:`Disconnected`.
    After a close that ``reconnect(code)`` allows (by default those the protocol names, and sockets that
    could not open) it waits a :class:`Backoff` pause and opens a new socket, whose first state carries
    the whole table; the iteration ends after any other close, or after :meth:`close`. :attr:`view`
    holds the newest state the task took (it may be ahead of the event being read: each fresh state's
    :attr:`~app.client.view.Frame.state` is the state at that frame).

    ``heartbeat``: seconds between ``heartbeat`` messages while a socket is open (``None``: none, as a
    JSON client needs none). ``lean`` and ``strict``: as for :class:`~app.client.view.View`.
    ``options`` go to ``websockets.asyncio.client.connect`` (``open_timeout``, ``ping_interval``,
    ``origin``, ``max_size``…). ``rng`` draws the pauses.
    """

    def __init__(self, url: str, token: str | None = None, *, lang: str | None = None,
                 reconnect: Callable[[int | None], bool] | bool = may_reconnect, backoff: Backoff = Backoff(),
                 heartbeat: float | None = None, lean: bool = False, strict: bool = False,
                 rng: random.Random | None = None, **options: Any) -> None:
        self.url, self.token, self.lang = url, token, lang
        self._reconnect = reconnect
        self.backoff, self.heartbeat = backoff, heartbeat
        self.rng = rng or random.Random()
        self.options = {"open_timeout": 10, "close_timeout": 1, "max_size": 2**22, **options}
        self.view = View(strict=strict, lean=lean)
        self.socket: ClientConnection | None = None
        self.connections = 0
        """Sockets opened so far."""
        self.attempt = 0
        """Sockets in a row that closed (or failed to open) before a state came."""
        self.close_code: int | None = None
        """The code the last socket closed with (``None`` while none has closed, or when none came)."""
        self._stopping = False
        self._beating: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[Event | Exception | None] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None

    # --------------------------------------------------------------- the view

    @property
    def state(self) -> Json | None:
        """The newest ``state`` object, score sheet whole; ``None`` before the first."""
        return self.view.state

    @property
    def table(self) -> Table | None:
        """The newest state with typed accessors; ``None`` before the first."""
        return self.view.table

    @property
    def version(self) -> int:
        return self.view.version

    # --------------------------------------------------------------- sockets

    async def connect(self) -> None:
        """Open one socket and say ``hello`` (once: no retry). Raises ``OSError`` (``ConnectionError``
        when it closed at once), ``TimeoutError`` and ``websockets``' ``InvalidHandshake`` when it cannot
        open."""
        socket = await connect(self.url, **self.options)
        hello: Json = {"type": "hello"}
        if self.token:
            hello["token"] = self.token
        if self.lang:
            hello["lang"] = self.lang
        try:
            await socket.send(json.dumps(hello))
        except ConnectionClosed as closed:
            socket.transport.abort()
            raise ConnectionError(f"the socket closed before its hello: {closed}") from closed
        self.socket = socket
        self.connections += 1
        self.view.reconnected()
        if self.heartbeat:
            self._beating = asyncio.get_running_loop().create_task(self._beat(self.socket, self.heartbeat))

    async def frames(self) -> AsyncIterator[Frame]:
        """The frames of the open socket, taken into :attr:`view`, until it closes (then
        :attr:`close_code` says how). Raises :class:`~app.client.view.ProtocolViolation`."""
        socket = self.socket
        assert socket is not None, "connect first"
        take = self.view.take
        try:
            async for text in socket:
                frame = take(text)
                if frame.version is not None and frame.fresh:
                    self.attempt = 0
                yield frame
        except ConnectionClosed:
            pass
        finally:
            self.close_code = socket.close_code
            if self._beating is not None:
                self._beating.cancel()
                self._beating = None

    def __aiter__(self) -> Client:
        if self._pump is None:
            self._pump = asyncio.get_running_loop().create_task(self._fill())
        return self

    async def __anext__(self) -> Event:
        """The next event; a wait for it may be cancelled (a timeout) without losing any."""
        if self._pump is None:
            self.__aiter__()
        item = await self._queue.get()
        if item is None or isinstance(item, BaseException):
            self._queue.put_nowait(item)  # every later call ends the same way
            if item is None:
                raise StopAsyncIteration
            raise item
        return item

    async def _fill(self) -> None:
        try:
            async for event in self._run():
                self._queue.put_nowait(event)
        except asyncio.CancelledError:
            self._queue.put_nowait(None)
            raise
        except Exception as error:  # a broken promise of the server: the consumer hears of it
            self._queue.put_nowait(error)
        else:
            self._queue.put_nowait(None)

    async def _run(self) -> AsyncIterator[Event]:
        while not self._stopping:
            code: int | None = None
            error: str | None = None
            try:
                await self.connect()
            except (OSError, TimeoutError, InvalidHandshake) as failed:
                error = type(failed).__name__
            else:
                yield Connected(self.connections)
                async for frame in self.frames():
                    yield frame
                code = self.close_code if self.close_code is not None else 1006
            finally:
                self.socket = None
            if self._stopping:
                yield Disconnected(code, error, None)
                return
            allowed = self._reconnect(code) if callable(self._reconnect) else self._reconnect
            if not allowed:
                yield Disconnected(code, error, None)
                return
            self.attempt += 1
            pause = self.backoff.pause(self.attempt, self.rng)
            yield Disconnected(code, error, pause)
            await asyncio.sleep(pause)

    async def _beat(self, socket: ClientConnection, period: float) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await socket.send('{"type":"heartbeat"}')
                await asyncio.sleep(period)

    async def close(self) -> None:
        """Stop: close the open socket (code 1000) and end the iteration, without reconnecting."""
        self._stopping = True
        if self.socket is not None:
            await self.socket.close()
        elif self._pump is not None:  # between sockets: waiting out a pause, or opening one
            self._pump.cancel()
        if self._pump is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump

    # --------------------------------------------------------------- waiting

    async def wait_for(self, check: Callable[[Table], bool], timeout: float | None = None) -> Table:
        """Take events until ``check(table)`` holds for the newest state (it may hold already); returns it.
        Raises :class:`~app.client.view.Refused` for an ``error`` that comes meanwhile, ``TimeoutError``
        after ``timeout`` seconds and ``ConnectionError`` when the client stops."""
        table = self.table
        if table is not None and check(table):
            return table
        async with asyncio.timeout(timeout):
            async for event in self:
                if isinstance(event, Frame):
                    if event.kind == "error":
                        raise event.refusal()
                    if event.fresh and (table := self.table) is not None and check(table):
                        return table
        raise ConnectionError(f"the client stopped (close code {self.close_code})")

    async def next_state(self, timeout: float | None = None) -> Table:
        """The next new state (of any socket); see :meth:`wait_for`."""
        version = self.version
        return await self.wait_for(lambda _: self.version > version, timeout)

    # --------------------------------------------------------------- sending

    async def send(self, message: Json) -> bool:
        """Send one message; ``False`` when no socket is open (the message is lost)."""
        socket = self.socket
        if socket is None:
            return False
        if message.get("type") == "sync":
            self.view.expect_sync()
        try:
            await socket.send(json.dumps(message))
        except ConnectionClosed:
            return False
        return True

    async def play(self, card: str, *, at_moment: bool = True) -> bool:
        """Play ``card`` (a code), by default only at the moment of the newest state (``match``, ``deal``,
        ``played``), so that a play that arrives after the table moved on (or is sent again after a
        reconnect) is refused with ``stale_play`` instead of made twice. ``False`` when no socket is open."""
        message: Json = {"type": "play", "card": card}
        table = self.table
        if at_moment and table is not None:
            message.update(table.moment())
        return await self.send(message)

    async def sync(self) -> bool:
        """Ask for the current state again: the answer repeats the version held, with the whole sheet."""
        return await self.send({"type": "sync"})

