"""An ``expert`` bot thinks in a worker process: the room's event loop stays free for the other tables."""

from __future__ import annotations

import asyncio
import multiprocessing
import os

import pytest

from app.common.identity import hash_token
from app.game.rules import Rules
from app.rooms.autoplay import process_id, stop_thinking, thinking_pool
from app.rooms.room import Room
from app.rooms.schedule import Timing
from tests.processes import ended, worker_left_by_a_killed_server

pytestmark = pytest.mark.anyio


async def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never came: {what}")


async def test_an_expert_thinks_in_a_worker_process_while_another_room_plays_on(store):
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(thinking_pool(), process_id) != os.getpid()
    # Keep the pool's only worker busy until the test lets go: the expert's decision waits for it
    # (so it surely runs in that process), and meanwhile the other room must answer every play.
    with multiprocessing.get_context("spawn").Manager() as manager:
        release = manager.Event()
        blocker = loop.run_in_executor(thinking_pool(), release.wait, 60)
        expert_room = Room(code="EXPRT", rules=Rules(hand_size=3), store=store, timing=Timing())
        _, ana = await expert_room.join("Ana")
        await expert_room.add_bot(hash_token(ana), "expert")
        await expert_room.start(hash_token(ana))
        match = expert_room.match
        if match.turn == 0:  # Ana leads: play her card so that the expert is to play
            await expert_room.play(hash_token(ana), match.legal_cards(0)[0].code)
        await wait_for(lambda: expert_room.match.turn == 1, "the expert's turn")

        other = Room(code="OTHER", rules=Rules(hand_size=3), store=store, timing=Timing())
        _, cy = await other.join("Cy")
        _, di = await other.join("Di")
        await other.start(hash_token(cy))
        tokens = {0: hash_token(cy), 1: hash_token(di)}
        plays = 0
        while not other.match.needs_deal:
            seat = other.match.turn
            await other.play(tokens[seat], other.match.legal_cards(seat)[0].code)
            plays += 1
        assert plays == 6
        assert expert_room.match.turn == 1, "the expert played without its worker process"

        release.set()
        await blocker
        await wait_for(lambda: expert_room.match.turn != 1, "the expert's card")
        expert_room.close()
        other.close()
    stop_thinking()


SERVER_THAT_THINKS = """
import time
from app.rooms.autoplay import process_id, thinking_pool
print(thinking_pool().submit(process_id).result(timeout=120), flush=True)
time.sleep(600)
"""


def test_the_thinking_process_ends_when_its_server_is_killed():
    worker = worker_left_by_a_killed_server(SERVER_THAT_THINKS)
    assert ended(worker), f"the thinking process {worker} outlived its server"
