"""The fast path of a connection's sends: a frame written at once, in the caller's turn of the event loop,
without the connection's sender task.

A server writes most frames to sockets whose buffers have room, so most sends
finish without waiting; waking the sender task for each would cost a future and
a turn of the event loop a frame. :func:`begin_send` starts the socket's send
coroutine by hand: when it finishes at once, nothing more is to do; when it has
to wait (the client reads slowly), the rest is an :class:`Unfinished` that the
sender task awaits before anything queued after it.

The readable version is the sender task alone (a connection made with
``send_at_once=False`` queues every frame); tests/rooms/test_connection.py
checks that both send the same frames, in the same order, and close alike.
"""

from __future__ import annotations

from collections.abc import Coroutine, Generator
from typing import Any


class Unfinished:
    """The rest of a coroutine begun outside any task that stopped to wait for ``waiting`` (what it yielded
    to the event loop, most often a future). Awaiting it runs the coroutine to its end in the awaiting task:
    each time the task resumes, so does the coroutine, given what the task got (a value, or an exception
    such as its cancellation)."""

    __slots__ = ("_coroutine", "_waiting")

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
        self._coroutine = coroutine
        self._waiting = waiting

    def close(self) -> None:
        """Give up the rest: the coroutine is closed where it waits."""
        self._coroutine.close()

    def __await__(self) -> Generator[Any, Any, None]:
        coroutine, waiting = self._coroutine, self._waiting
        while True:
            try:
                given = yield waiting
            except BaseException as error:  # the task's to give: the coroutine's to handle (cancelled, say)
                try:
                    waiting = coroutine.throw(error)
                except StopIteration:
                    return
            else:
                try:
                    waiting = coroutine.send(given)
                except StopIteration:
                    return


def begin_send(sending: Coroutine[Any, Any, None]) -> Unfinished | None:
    """Run the send coroutine ``sending`` up to its first wait: ``None`` when it finished without one, else
    its rest (:class:`Unfinished`) for a task to await. Raises what the send raised before it waited (a
    broken socket)."""
    try:
        waiting = sending.send(None)
    except StopIteration:
        return None
    return Unfinished(sending, waiting)
