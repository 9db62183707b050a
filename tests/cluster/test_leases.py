"""Room leases in Redis: one holder at a time, renewed and released only by it, lapsing when not renewed."""

from __future__ import annotations

import asyncio
import json

import pytest
from redis.asyncio import Redis

from app.cluster.leases import RoomLeases, process_key, room_key

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@pytest.fixture
async def redis(redis_server):
    client = Redis.from_url(redis_server, decode_responses=True)
    yield client
    await client.aclose()


async def test_one_process_at_a_time_holds_a_room(redis, redis_prefix):
    one = RoomLeases(redis, prefix=redis_prefix, process="one", seconds=5)
    two = RoomLeases(redis, prefix=redis_prefix, process="two", seconds=5)
    assert await one.acquire("ROOM1") and await one.acquire("ROOM1")  # taking it again is harmless
    assert not await two.acquire("ROOM1")
    assert await two.owner_of("ROOM1") == "one" and await redis.get(room_key(redis_prefix, "ROOM1")) == "one"
    await two.release("ROOM1")  # not two's: nothing happens
    assert await one.owners_of(["ROOM1", "ROOM2"]) == {"ROOM1": "one", "ROOM2": None}
    await one.release("ROOM1")
    assert await two.acquire("ROOM1") and await one.renew(["ROOM1"]) == {"ROOM1"}


async def test_a_lease_not_renewed_lapses_and_a_renewed_one_lasts(redis, redis_prefix):
    one = RoomLeases(redis, prefix=redis_prefix, process="one", seconds=0.6)
    two = RoomLeases(redis, prefix=redis_prefix, process="two", seconds=0.6)
    assert await one.acquire("KEPT1") and await one.acquire("LAPSE")
    for _ in range(4):
        await asyncio.sleep(0.25)
        assert await one.renew(["KEPT1"]) == set()
    assert not await two.acquire("KEPT1")
    assert await two.acquire("LAPSE")
    assert await one.renew(["KEPT1", "LAPSE"]) == {"LAPSE"}


async def test_a_process_is_alive_while_it_announces_itself(redis, redis_prefix):
    one = RoomLeases(redis, prefix=redis_prefix, process="one", seconds=5)
    await one.announce({"host": "h", "port": 8000, "pid": 1, "started": 0})
    assert json.loads(await redis.get(process_key(redis_prefix, "one")))["port"] == 8000
    assert await one.alive(["one", "gone"]) == {"one"}
    await one.forget_process()
    assert await one.alive(["one"]) == set()
