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
    """

    def __init__(self, name: str, then: Callable[[], None], retry_seconds: float) -> None:
        self.name = name
        self._then = then
        self._retry = retry_seconds
        self._task: asyncio.Task[None] | None = None
        self.stopped = False

    def arm(self, delay: float | None, action: TimedAction | None) -> None:
        """Run ``action`` in ``delay`` seconds, replacing what was armed (``None``: arm nothing)."""
        current = asyncio.current_task()
        if self._task is not None and self._task is not current and not self._task.done():
            self._task.cancel()
        self._task = None
        if delay is not None and action is not None and not self.stopped:
            self._task = asyncio.get_running_loop().create_task(self._run(delay, action))

    def stop(self) -> None:
        """Cancel what is armed; nothing runs any more."""
        self.stopped = True
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self, delay: float, action: TimedAction) -> None:
        while not self.stopped:
            await asyncio.sleep(delay)
            try:
                if await action():
                    if self._task is asyncio.current_task():
                        self._then()
                    return
            except Exception:  # a failing action must not take the room down
                log.exception("%s: timed action failed", self.name)
            delay = self._retry
