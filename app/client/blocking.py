"""A blocking JSON-protocol client: one socket to one room, for scripts and tests that do one thing at a time.

:class:`Connection` says ``hello``, keeps the room's :class:`~app.client.view.View`, and waits for states
and refusals; it runs over any :class:`Transport` (a ``websockets`` socket by default).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from app.client.view import Frame, Json, Refused, Table, View


class Transport(Protocol):
    """What a :class:`Connection` needs of a socket: text frames in and out, and a close."""

    def send(self, text: str) -> None:
        """Send one text frame."""

    def receive(self, timeout: float | None) -> str | bytes:
        """The next frame, waiting up to ``timeout`` seconds (``None``: as long as it takes). Raises
        ``TimeoutError`` when none came, :class:`Closed` when the socket closed."""

    def close(self) -> None:
        """Close the socket (a second call does nothing)."""


class Closed(Exception):
    """The socket closed; ``code`` is the close code the server sent (``None`` when none came)."""

    def __init__(self, code: int | None, reason: str = "") -> None:
        super().__init__(f"closed with {code} {reason}".strip())
        self.code, self.reason = code, reason


class WebSocketTransport:
    """A ``websockets`` socket to ``url`` (``ws://…/api/rooms/{code}/ws``); ``options`` go to
    ``websockets.sync.client.connect`` (``open_timeout``, ``origin``, ``max_size``…)."""

    def __init__(self, url: str, **options: Any) -> None:
        self._opened = connect(url, **{"open_timeout": 10, **options})
        self.socket: ClientConnection = self._opened.__enter__()  # websockets wants its context entered

    def send(self, text: str) -> None:
        try:
            self.socket.send(text)
        except ConnectionClosed as closed:
            raise _closed(closed) from closed

    def receive(self, timeout: float | None) -> str | bytes:
        try:
            return self.socket.recv(timeout=timeout)
        except ConnectionClosed as closed:
            raise _closed(closed) from closed

    def close(self) -> None:
        self._opened.__exit__(None, None, None)


def _closed(closed: ConnectionClosed) -> Closed:
    return Closed(closed.rcvd.code if closed.rcvd is not None else None,
                  closed.rcvd.reason if closed.rcvd is not None else "")


class Connection:
    """One JSON-protocol connection to a room (docs/protocol.md), used one call at a time.

    It sends ``hello`` (with ``token`` as that seat's player, without as a spectator; ``lang`` for the
    language of its texts) and waits for the first state. Every message received is kept in
    :attr:`received` (and its text in :attr:`frames`); :attr:`view` holds the newest state. A ``state``
    whose version does not increase raises :class:`~app.client.view.ProtocolViolation` with ``strict``.
    """

    def __init__(self, transport: Transport, token: str | None = None, *, lang: str | None = None,
                 strict: bool = True, first_state: bool = True, timeout: float = 20) -> None:
        self.transport, self.token, self.timeout = transport, token, timeout
        self.view = View(strict=strict)
        self.received: list[Json] = []
        """Every message received, decoded, in order; a new state's with its score sheet whole."""
        self.frames: list[str] = []
        """Every message received, as its text."""
        self.versions: list[int] = []
        """The version of every ``state`` received, in order (a sync's answer, and an older state a lenient
        view ignored, included)."""
        self.errors: list[Frame] = []
        """Every ``error`` received, in order."""
        self.closed = False
        hello: Json = {"type": "hello"}
        if token:
            hello["token"] = token
        if lang:
            hello["lang"] = lang
        self.send(hello)
        if first_state:
            self.next_state()

    @classmethod
    def open(cls, url: str, token: str | None = None, *, lang: str | None = None, strict: bool = True,
             timeout: float = 20, **options: Any) -> Connection:
        """Connect to ``url`` (``ws://host/api/rooms/{code}/ws``) over ``websockets`` and say ``hello``."""
        return cls(WebSocketTransport(url, **options), token, lang=lang, strict=strict, timeout=timeout)

    # --------------------------------------------------------------- reading

    @property
    def state(self) -> Json:
        """The newest ``state`` object, its score sheet whole. Raises ``LookupError`` before the first."""
        state = self.view.state
        if state is None:
            raise LookupError("no state received yet")
        return state

    @property
    def table(self) -> Table:
        """The newest state with typed accessors."""
        return Table(self.state)

    @property
    def version(self) -> int:
        """The newest version received, ``-1`` before the first."""
        return self.view.version

    def receive(self, timeout: float | None = None) -> Json:
        """The next message, whatever its type, taken into the view; waits up to ``timeout`` seconds (the
        connection's ``timeout`` when ``None``). Raises ``TimeoutError`` and :class:`Closed`."""
        text = self.transport.receive(self.timeout if timeout is None else timeout)
        text = text.decode() if isinstance(text, bytes) else text
        frame = self.view.take(text)
        assert frame.body is not None
        message = frame.body
        if frame.state is not None:
            message = {**message, "state": frame.state}
        if frame.version is not None:
            self.versions.append(frame.version)
        self.frames.append(text)
        self.received.append(message)
        if frame.kind == "error":
            self.errors.append(frame)
        return message

    def next_state(self, timeout: float | None = None) -> Json:
        """Receive until the next ``state`` message (the answer to a ``sync`` included); returns the newest
        state."""
        while self.receive(timeout)["type"] != "state":
            pass
        return self.state

    def next_error(self, timeout: float | None = None) -> Json:
        """Receive until the next ``error`` message; returns it (``type``, ``code``, ``message``)."""
        while True:
            message = self.receive(timeout)
            if message["type"] == "error":
                return message

    def until(self, check: Callable[[Json], bool], limit: int = 10_000) -> Json:
        """Receive states until ``check(state)`` holds (it may hold already); returns that state. Raises
        ``AssertionError`` after ``limit`` states."""
        if self.view.state is not None and check(self.state):
            return self.state
        for _ in range(limit):
            if check(self.next_state()):
                return self.state
        raise AssertionError("the expected state never came")

    def until_version(self, version: int) -> Json:
        """Receive until the state of at least ``version``; returns the newest state."""
        while self.version < version:
            self.next_state()
        return self.state

    def latest(self) -> Json:
        """The room's current state: sends a ``sync`` and reads everything queued before its answer (the
        only state that repeats the version held)."""
        self.sync()
        while True:
            before = self.version
            message = self.receive()
            if message["type"] == "state" and message["version"] == before:
                return self.state

    def drain(self, timeout: float = 0.0) -> None:
        """Take every message already arrived, waiting up to ``timeout`` seconds for the first."""
        while True:
            try:
                self.receive(timeout)
            except TimeoutError:
                return
            timeout = 0.0

    def wait(self, check: Callable[[Json], bool], timeout: float = 10) -> Json:
        """Take messages until ``check(state)`` holds, for at most ``timeout`` seconds; returns the state.
        Raises ``AssertionError`` when the time runs out."""
        deadline = time.monotonic() + timeout
        self.drain()
        while self.view.state is None or not check(self.state):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"state never got there: {self.view.state}")
            with contextlib.suppress(TimeoutError):
                self.receive(max(0.01, left))
        return self.state

    def close_code(self, timeout: float = 20) -> int | None:
        """Read until the server closes the connection; its close code (``None`` when it sent none)."""
        try:
            while True:
                self.receive(timeout)
        except Closed as closed:
            return closed.code

    # --------------------------------------------------------------- sending

    def send(self, message: Json) -> None:
        """Send one message (docs/protocol.md, "Messages a client may send")."""
        if message.get("type") == "sync":
            self.view.expect_sync()
        self.transport.send(json.dumps(message))

    def sync(self) -> None:
        """Ask for the current state again (the answer repeats the version, with the whole sheet)."""
        self.send({"type": "sync"})

    def heartbeat(self) -> None:
        """Say this client is still in use (docs/protocol.md, "Heartbeat"); nothing comes back."""
        self.send({"type": "heartbeat"})

    def play(self, card: str, *, at_moment: bool = False) -> None:
        """Play ``card`` (a code); with ``at_moment``, only at the moment of the newest state (``match``,
        ``deal``, ``played``: a table that moved on refuses it with ``stale_play``)."""
        message: Json = {"type": "play", "card": card}
        if at_moment:
            message.update(self.table.moment())
        self.send(message)

    def play_lowest(self) -> str:
        """Play the lowest legal card of the newest state (it must be this seat's turn); returns its code."""
        card = self.table.legal[0]
        self.play(card)
        return card

    def act(self, message: Json, timeout: float | None = None) -> Json:
        """Send ``message`` and wait for the state it makes; raises :class:`~app.client.view.Refused` when
        an ``error`` comes first."""
        self.send(message)
        while True:
            answer = self.receive(timeout)
            if answer["type"] == "error":
                raise Refused(answer["code"], answer.get("message", ""))
            if answer["type"] == "state":
                return self.state

    def close(self) -> None:
        """Close the connection (once)."""
        if not self.closed:
            self.closed = True
            self.transport.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
