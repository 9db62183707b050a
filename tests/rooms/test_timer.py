"""A room's timer: one action at a time, replaced when armed again, tried again while it fails."""

from __future__ import annotations

import asyncio
import logging

import pytest

from app.rooms.timer import Timer

TICK = 0.02
"""The delays of these tests (seconds): short, and each waited for several times over."""


def timer(then: list[str] | None = None, retry: float = TICK) -> Timer:
    """A timer that notes ``"then"`` in ``then`` each time an action succeeds."""
    return Timer("room T", then=lambda: (then if then is not None else []).append("then"), retry_seconds=retry)


def noting(runs: list[str], name: str, results: list[bool] | None = None):
    """An action that notes ``name`` in ``runs`` each time it runs and returns the next of ``results``
    (``True`` once they are used up)."""
    answers = iter(results or [])

    async def action() -> bool:
        runs.append(name)
        return next(answers, True)

    return action


def test_an_armed_action_runs_once_its_delay_is_over_then_the_timer_arms_what_is_due_next():
    async def main() -> tuple[list[str], list[str]]:
        runs: list[str] = []
        then: list[str] = []
        clock = timer(then)
        clock.arm(2 * TICK, noting(runs, "deal"))
        await asyncio.sleep(TICK)
        assert runs == []  # not before its time
        await asyncio.sleep(4 * TICK)
        return runs, then

    assert asyncio.run(main()) == (["deal"], ["then"])


def test_arming_again_replaces_the_action_waiting_and_arming_nothing_drops_it():
    async def main() -> list[str]:
        runs: list[str] = []
        clock = timer()
        clock.arm(2 * TICK, noting(runs, "first"))
        clock.arm(3 * TICK, noting(runs, "second"))
        await asyncio.sleep(6 * TICK)
        clock.arm(TICK, noting(runs, "third"))
        clock.arm(None, None)
        await asyncio.sleep(4 * TICK)
        return runs

    assert asyncio.run(main()) == ["second"]


def test_a_failing_action_is_tried_again_after_the_retry_pause_until_it_succeeds(caplog):
    async def main() -> tuple[list[str], list[str]]:
        runs: list[str] = []
        then: list[str] = []
        calls = iter([False, "raise", True])

        async def action() -> bool:
            runs.append("finish")
            answer = next(calls)
            if answer == "raise":
                raise RuntimeError("storage is down")
            return bool(answer)

        timer(then, retry=TICK).arm(0, action)
        await asyncio.sleep(8 * TICK)
        return runs, then

    with caplog.at_level(logging.ERROR, logger="app.rooms.timer"):
        assert asyncio.run(main()) == (["finish"] * 3, ["then"])
    assert "room T: timed action failed" in caplog.text


def test_an_action_that_arms_the_timer_itself_keeps_running_and_what_it_armed_stands():
    async def main() -> tuple[list[str], list[str]]:
        runs: list[str] = []
        then: list[str] = []
        clock = timer(then)

        async def deal() -> bool:
            runs.append("deal")
            clock.arm(TICK, noting(runs, "auto play"))  # the room changed: what is due next is armed
            await asyncio.sleep(0)
            runs.append("dealt")
            return True

        clock.arm(0, deal)
        await asyncio.sleep(4 * TICK)
        return runs, then

    # "then" only after the action armed by the deal: the deal's own success does not arm again over it.
    assert asyncio.run(main()) == (["deal", "dealt", "auto play"], ["then"])


def test_arming_while_an_action_runs_elsewhere_cancels_it():
    async def main() -> tuple[list[str], list[str]]:
        runs: list[str] = []
        then: list[str] = []
        clock = timer(then)
        release = asyncio.Event()

        async def deal() -> bool:
            runs.append("deal")
            await release.wait()  # waiting for the room's lock, say
            runs.append("dealt")
            return True

        clock.arm(0, deal)
        await asyncio.sleep(TICK)
        clock.arm(None, None)  # a play came meanwhile, and nothing is due now
        release.set()
        await asyncio.sleep(2 * TICK)
        return runs, then

    assert asyncio.run(main()) == (["deal"], [])


@pytest.mark.parametrize("running", [False, True])
def test_a_stopped_timer_runs_nothing_more_and_cannot_be_armed_again(running):
    async def main() -> list[str]:
        runs: list[str] = []
        clock = timer(retry=TICK)
        clock.arm(0 if running else TICK, noting(runs, "finish", [False, False, False]))
        await asyncio.sleep(TICK / 2)
        clock.stop()
        clock.arm(0, noting(runs, "deal"))
        await asyncio.sleep(5 * TICK)
        return runs

    assert asyncio.run(main()) == (["finish"] if running else [])
