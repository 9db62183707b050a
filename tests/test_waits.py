"""Bounded waits for background tasks, and what a stuck event loop waits on."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from app.common.waits import describe_task, describe_tasks, exit_if_stuck, pause, wait_ended

BOUND = 30.0
"""Far longer than any of these waits: only a wait that never ends reaches it."""


async def deep_wait(release: asyncio.Event) -> None:
    await release.wait()


async def waits_for_release(release: asyncio.Event) -> None:
    await deep_wait(release)


async def stubborn(stop: asyncio.Event) -> None:
    """A loop that swallows every cancellation (as ``asyncio.wait_for`` of Python 3.11 can) and ends only on
    its flag."""
    while not stop.is_set():
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            continue


def test_a_pause_ends_as_soon_as_it_is_told_to_stop_or_after_its_time():
    async def run() -> tuple[bool, bool]:
        stop = asyncio.Event()
        short = await pause(stop, 0.01)
        pausing = asyncio.ensure_future(pause(stop, 3600))
        await asyncio.sleep(0)
        stop.set()
        async with asyncio.timeout(BOUND):
            return short, await pausing

    assert asyncio.run(run()) == (False, True)


def test_a_task_that_ends_when_cancelled_is_waited_for(caplog):
    async def run() -> tuple[bool, bool]:
        task = asyncio.ensure_future(waits_for_release(asyncio.Event()))
        await asyncio.sleep(0)
        task.cancel()
        return await wait_ended(task, BOUND, "the waiting task"), task.cancelled()

    assert asyncio.run(run()) == (True, True)
    assert "the waiting task" not in caplog.text


def test_a_task_that_swallows_its_cancellation_is_left_behind_with_a_warning_that_says_where_it_waits(caplog):
    async def run() -> bool:
        stop = asyncio.Event()
        task = asyncio.ensure_future(stubborn(stop))
        await asyncio.sleep(0)
        task.cancel()
        ended = await wait_ended(task, 0.2, "the stubborn loop")
        stop.set()  # the flag ends it
        async with asyncio.timeout(BOUND):
            await task
        return ended

    with caplog.at_level(logging.WARNING, logger="app.common.waits"):
        assert asyncio.run(run()) is False
    assert "the stubborn loop did not end within 0.2 s" in caplog.text
    assert "in stubborn" in caplog.text and "test_waits.py" in caplog.text


def test_a_task_that_failed_is_ended_and_its_error_logged(caplog):
    async def fails() -> None:
        raise ValueError("broken")

    async def run() -> bool:
        task = asyncio.ensure_future(fails())
        return await wait_ended(task, BOUND, "the failing task")

    assert asyncio.run(run()) is True
    assert "the failing task ended with an error: ValueError('broken')" in caplog.text


def test_the_pending_tasks_are_described_with_the_coroutines_each_waits_in_from_another_thread():
    async def run() -> tuple[str, str]:
        release = asyncio.Event()
        task = asyncio.ensure_future(waits_for_release(release))
        task.set_name("waiter")
        await asyncio.sleep(0)
        text = await asyncio.to_thread(describe_tasks, asyncio.get_running_loop())
        release.set()
        await task
        return text, describe_task(task)

    text, ended = asyncio.run(run())
    waiter = text[text.index("task waiter:"):]
    lines = waiter.splitlines()
    assert "waits_for_release" in lines[0]
    assert [line.rsplit(" in ", 1)[1] for line in lines[1:3]] == ["waits_for_release", "deep_wait"]
    assert "test_waits.py:" in lines[2]
    assert "task waiter:" in ended and "no frames" in ended


def test_a_loop_with_nothing_pending_says_so():
    loop = asyncio.new_event_loop()
    try:
        assert describe_tasks(loop) == "no tasks pending"
    finally:
        loop.close()


@pytest.mark.parametrize("seconds", [0.0, -1.0])
def test_a_wait_with_no_time_left_only_looks(seconds):
    async def run() -> bool:
        task = asyncio.ensure_future(waits_for_release(asyncio.Event()))
        await asyncio.sleep(0)
        ended = await wait_ended(task, seconds, "the waiting task")
        with pytest.raises(asyncio.CancelledError):
            await task  # left behind cancelled
        return ended

    assert asyncio.run(run()) is False


def test_a_process_that_does_not_stop_in_time_says_where_its_tasks_wait_and_exits_with_status_1(caplog):
    codes: list[int] = []
    exited = threading.Event()

    def exit(code: int) -> None:
        codes.append(code)
        exited.set()

    async def run() -> None:
        release = asyncio.Event()
        task = asyncio.ensure_future(waits_for_release(release))
        task.set_name("stuck")
        exit_if_stuck(asyncio.get_running_loop(), 0.2, exit=exit)
        assert await asyncio.to_thread(exited.wait, BOUND)
        release.set()
        await task

    with caplog.at_level(logging.ERROR, logger="app.common.waits"):
        asyncio.run(run())
    assert codes == [1]
    assert "the process did not stop within 0.2 s of being asked to; it exits with status 1" in caplog.text
    assert "task stuck:" in caplog.text and "in deep_wait" in caplog.text


def test_a_guard_cancelled_in_time_does_nothing():
    codes: list[int] = []
    guard = exit_if_stuck(None, BOUND, exit=codes.append)
    assert guard.daemon
    guard.cancel()
    guard.join(BOUND)
    assert not guard.is_alive() and codes == []
