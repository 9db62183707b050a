"""Waiting without hanging: bounded waits for background tasks, and what a stuck event loop waits on.

A cancelled task does not always end: on Python 3.11, ``asyncio.wait_for`` (which redis-py wraps
around a socket write when it has a socket timeout) can swallow the cancellation when its own
awaitable finishes at that moment, and the task goes on as if nothing had happened. So a task that
must stop is told to by a flag it checks each turn, is cancelled as well, and is waited for with a
bound (:func:`wait_ended`); a loop between turns sleeps with :func:`pause`, which the flag wakes. Should a
stop hang all the same, :func:`exit_if_stuck` ends the process, saying first where its tasks wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

STACK_FRAMES = 8
"""Most frames shown of what a task awaits (the innermost ones)."""


async def pause(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds``, or until ``stop`` is set if that comes first; whether ``stop`` is set."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()
    return stop.is_set()


async def wait_ended(task: asyncio.Future[Any], seconds: float, what: str) -> bool:
    """Wait at most ``seconds`` for ``task`` to end; whether it did (by returning, failing or being cancelled).

    It is not cancelled first (the caller does that, and sets the flag the task checks). One still running
    after ``seconds`` is cancelled once more and left behind, with a warning that names it ``what`` and
    says where it waits. Never raises, except :class:`asyncio.CancelledError` if the caller is cancelled.
    """
    done, _ = await asyncio.wait({task}, timeout=max(0.0, seconds))
    if done:
        if not task.cancelled() and task.exception() is not None:
            log.warning("%s ended with an error: %r", what, task.exception())
        return True
    log.warning("%s did not end within %.1f s; left behind, waiting at:\n%s", what, seconds, describe_task(task))
    task.cancel()
    return False


def describe_task(task: asyncio.Future[Any]) -> str:
    """One task as text: its name and coroutine, then the frames of the chain of coroutines it awaits (file,
    line, function), outermost first, at most :data:`STACK_FRAMES`. A future that is not a task is described
    by its ``repr``."""
    if not isinstance(task, asyncio.Task):
        return repr(task)
    lines = [f"task {task.get_name()}: {task.get_coro()!r}"]
    lines += [f"  {frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
              for frame in awaited_frames(task.get_coro())]
    if len(lines) == 1:
        lines.append("  (no frames: not started yet, or ending)")
    return "\n".join(lines)


def awaited_frames(coroutine: object) -> list[FrameType]:
    """The frames of ``coroutine`` and of what it awaits in turn (coroutines, generators, async generators),
    outermost first, at most :data:`STACK_FRAMES` (the innermost kept). A task's own stack
    (``Task.get_stack``) stops at its outermost coroutine."""
    frames: list[FrameType] = []
    current: Any = coroutine
    while current is not None:
        frame = getattr(current, "cr_frame", None) or getattr(current, "gi_frame", None) or getattr(
            current, "ag_frame", None)
        if frame is None:
            break
        frames.append(frame)
        current = (getattr(current, "cr_await", None) or getattr(current, "gi_yieldfrom", None)
                   or getattr(current, "ag_await", None))
    return frames[-STACK_FRAMES:]


def describe_tasks(loop: asyncio.AbstractEventLoop) -> str:
    """Every task of ``loop`` not yet done, with where each waits (:func:`describe_task`), one after the other;
    ``"no tasks pending"`` when there are none. Safe to call from another thread while the loop runs (it reads
    only; a task that ends meanwhile may be shown as it was)."""
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    except RuntimeError:  # the set of tasks changed each time it was copied
        return "the tasks could not be listed (they changed while read)"
    if not pending:
        return "no tasks pending"
    return "\n".join(describe_task(task) for task in sorted(pending, key=lambda task: task.get_name()))


def exit_if_stuck(loop: asyncio.AbstractEventLoop | None, seconds: float, *,
                  exit: Callable[[int], object] = os._exit) -> threading.Timer:
    """Start a timer (a daemon thread) that, unless cancelled within ``seconds``, logs every pending task of
    ``loop`` and where each waits (:func:`describe_tasks`; nothing when ``loop`` is ``None``), then calls
    ``exit(1)``: by default :func:`os._exit`, which ends the process at once, as a stuck loop would run no
    clean exit. Returns the timer, started."""

    def give_up() -> None:
        tasks = describe_tasks(loop) if loop is not None else "(no event loop)"
        log.error("the process did not stop within %.1f s of being asked to; it exits with status 1. Its tasks "
                  "wait at:\n%s", seconds, tasks)
        for stream in (sys.stderr, sys.stdout):
            with contextlib.suppress(Exception):
                stream.flush()
        exit(1)

    timer = threading.Timer(seconds, give_up)
    timer.name = "stop-guard"
    timer.daemon = True
    timer.start()
    return timer
