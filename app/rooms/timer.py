"""A room's one timer: run an action after a delay, and again after a pause while it fails."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

TimedAction = Callable[[], Awaitable[bool]]
"""A timed action: returns ``True`` when done, ``False`` to be tried again (storage was down)."""


class Timer:
    """Runs at most one timed action at a time; arming it again replaces what was armed.

    ``retry_seconds`` is the pause before an action that failed (returned
    ``False`` or raised) runs again; ``then`` is called after an action
    succeeds, to arm what is due next. ``name`` appears in logs.

    Until its time comes an armed action is only a call the loop holds (``call_later``); a task runs
    it from then on. A room arms its timer again at every change of its state, so what is replaced
    most often is cheap to drop: about a microsecond, against several for a task started, then
    cancelled and woken to end.
    """

    def __init__(self, name: str, then: Callable[[], None], retry_seconds: float) -> None:
        self.name = name
        self._then = then
        self._retry = retry_seconds
        self._pending: asyncio.TimerHandle | None = None
        """The call that starts the armed action once its time comes (``None``: none waiting)."""
        self._task: asyncio.Task[None] | None = None
        """The task running the armed action, once its time has come."""
        self.stopped = False

    def arm(self, delay: float | None, action: TimedAction | None) -> None:
        """Run ``action`` in ``delay`` seconds, replacing what was armed (``None``: arm nothing).

        An action already running is cancelled, unless it is the one arming (its room changed).
        Call it on the loop the timer runs on.
        """
        current = asyncio.current_task()
        if self._task is not None and self._task is not current and not self._task.done():
            self._task.cancel()
        self._task = None
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if delay is not None and action is not None and not self.stopped:
            self._pending = asyncio.get_running_loop().call_later(delay, self._start, action)

    def stop(self) -> None:
        """Cancel what is armed; nothing runs any more."""
        self.stopped = True
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def _start(self, action: TimedAction) -> None:
        """On the loop, when the armed action's time has come: run it in a task of its own."""
        self._pending = None
        if not self.stopped:
            self._task = asyncio.get_running_loop().create_task(self._run(action))

    async def _run(self, action: TimedAction) -> None:
        while not self.stopped:
            try:
                if await action():
                    if self._task is asyncio.current_task():
                        self._then()
                    return
            except Exception:  # a failing action must not take the room down
                log.exception("%s: timed action failed", self.name)
            await asyncio.sleep(self._retry)
