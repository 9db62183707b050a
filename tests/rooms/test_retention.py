"""Idle and unused rooms: the decisions, and the registry's sweep that deletes unused ones for good."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from app.common.identity import hash_token
from app.config.settings import Settings
from app.game.rules import Rules
from app.rooms.registry import RoomRegistry
from app.rooms.retention import RoomFacts, is_idle, is_unused, slow_verdict
from app.storage.models import RoomRow

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("facts", "unused"), [
    (RoomFacts(started=False, connected=False, quiet_for=600), True),
    (RoomFacts(started=False, connected=False, quiet_for=599), False),  # changed lately
    (RoomFacts(started=False, connected=True, quiet_for=9999), False),  # someone is there
    (RoomFacts(started=True, connected=False, quiet_for=9999), False),  # a match was played: idle rules apply
])
def test_a_room_is_unused_without_a_match_a_connection_or_a_change_for_the_period(facts, unused):
    assert is_unused(facts, 600) is unused


@pytest.mark.parametrize(("facts", "idle"), [
    (RoomFacts(started=True, connected=False, quiet_for=3600), True),
    (RoomFacts(started=False, connected=False, quiet_for=3600), True),
    (RoomFacts(started=True, connected=False, quiet_for=3599), False),  # changed lately
    (RoomFacts(started=True, connected=True, quiet_for=9999), False),  # someone is there
])
def test_a_room_is_idle_without_a_connection_or_a_change_for_the_period(facts, idle):
    assert is_idle(facts, 3600) is idle


async def test_the_sweep_deletes_unused_rooms_and_a_restart_does_not_bring_them_back(store):
    settings = Settings(unused_room_seconds=0.05, database_url="sqlite://")
    registry = RoomRegistry(settings, store)
    left, _, _ = await registry.create("Ana", Rules())
    played, _, host = await registry.create("Ben", Rules(hand_size=3))
    await played.add_bot(hash_token(host), "easy")
    await played.start(hash_token(host))
    waiting, _, _ = await registry.create("Cy", Rules())
    await asyncio.sleep(0.1)
    await waiting.join("Dag")  # a change: the period starts again
    assert await registry.sweep() == [left.code]
    assert registry.get(left.code) is None and left.closed
    assert {snapshot.code for snapshot in store.storage.active_rooms()} == {played.code, waiting.code}
    with store.storage.engine.connect() as connection:
        assert left.code not in set(connection.scalars(select(RoomRow.code)))  # deleted, not closed
    restarted = RoomRegistry(settings, store)
    assert await restarted.restore() == 2 and restarted.get(left.code) is None
    for room in [*registry.rooms.values(), *restarted.rooms.values()]:
        room.close()


@pytest.mark.parametrize(("phase", "quiet_for", "since_acted", "verdict"), [
    ("playing", 10**9, 29 * 24 * 3600, "keep"),  # never idle while its match lasts
    ("playing", 0, 30 * 24 * 3600, "abandon"),  # 30 days without a person acting
    ("lobby", 6.9 * 24 * 3600, 0, "keep"),  # an unstarted lobby lasts 7 days
    ("lobby", 7 * 24 * 3600, 0, None),
    ("finished", 10**9, 10**9, None),  # then as a live room
])
def test_what_becomes_of_a_slow_room(phase, quiet_for, since_acted, verdict):
    assert slow_verdict(phase=phase, quiet_for=quiet_for, since_acted=since_acted, hour_seconds=3600) == verdict
    # A slow hour of a second scales every span alike.
    assert slow_verdict(phase=phase, quiet_for=quiet_for / 3600, since_acted=since_acted / 3600,
                        hour_seconds=1) == verdict
