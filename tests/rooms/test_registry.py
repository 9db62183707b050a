"""Two processes' registries on one database: a room taken by the second is dropped by the first at its next write."""

from __future__ import annotations

import asyncio
import time

import pytest
from sqlalchemy import create_engine, text

from app.common.identity import hash_token
from app.config.settings import Settings
from app.game.rules import Rules, preset, preset_name
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.registry import RoomRegistry, new_process_id
from app.rooms.versions import EPOCH_VERSIONS, MAX_EPOCH, first_version
from app.storage import StorageError
from tests.rooms.test_room import Socket, connect

pytestmark = pytest.mark.anyio

SETTINGS = Settings(database_url="sqlite://", deal_pause_seconds=0, bot_delay_seconds=0)


async def test_a_process_that_lost_a_room_cannot_write_it_and_drops_it(store):
    first = RoomRegistry(SETTINGS, store, process="first")
    room, _, ana = await first.create("Ana", Rules(hand_size=3))
    _, ben = await room.join("Ben")
    await room.start(hash_token(ana))
    socket = Socket()
    conn = connect(room, socket, hash_token(ben))
    sender = conn.start()
    await room.attach(conn)
    second = RoomRegistry(SETTINGS, store, process="second")
    taken = await second.take(room.code)
    assert taken is not None and second.epoch_of(room.code) == 2 and first.epoch_of(room.code) == 1

    seat = room.match.turn
    card = room.match.legal_cards(seat)[0].code
    with pytest.raises(RoomError) as refused:
        await room.play(room.seats[seat].token_hash, card)
    assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE
    assert first.get(room.code) is None and room.closed  # dropped at once, its sockets told to reconnect
    await asyncio.wait_for(sender, 5)
    assert socket.closed_with == 1012
    assert store.storage.room_owners(room.code) == [(1, "first"), (2, "second")]

    # The new owner plays on from the stored state, with nothing of the refused play.
    assert taken.match.deal.plays == room.match.deal.plays
    await taken.play(taken.seats[seat].token_hash, card)
    (snapshot,) = store.storage.active_rooms()
    assert snapshot.epoch == 2 and snapshot.match.record["deals"][-1]["plays"] == [card]
    taken.close()


async def test_a_restart_takes_every_open_room_under_a_new_epoch(store):
    first = RoomRegistry(SETTINGS, store, process="first")
    room, _, _ = await first.create("Ana", Rules())
    restarted = RoomRegistry(SETTINGS, store, process="again")
    assert await restarted.restore() == 1 and restarted.epoch_of(room.code) == 2
    with pytest.raises(RoomError):
        await room.join("Ben")  # the first process's write is refused
    assert first.get(room.code) is None
    await restarted.get(room.code).join("Ben")
    assert [seat.name for seat in restarted.get(room.code).seats] == ["Ana", "Ben"]
    for registry in (first, restarted):
        for live in registry.rooms.values():
            live.close()


async def test_versions_count_up_from_the_epoch_across_restarts_and_takeovers_whatever_the_clock_says(
        store, monkeypatch):
    first = RoomRegistry(SETTINGS, store, process="first")
    room, _, _ = await first.create("Ana", Rules())
    assert room.version == first_version(1) + 1 > time.time_ns() // 1000  # above the clock-based versions of old
    await room.join("Ben")
    assert room.version == first_version(1) + 2  # one a change (the creator's seat, then Ben's)
    moment, nanoseconds = time.time(), time.time_ns()
    monkeypatch.setattr(time, "time", lambda: moment - 3600)  # the clock steps an hour back
    monkeypatch.setattr(time, "time_ns", lambda: nanoseconds - 3600 * 10**9)
    restarted = RoomRegistry(SETTINGS, store, process="again")
    await restarted.restore()
    again = restarted.get(room.code)
    assert first_version(2) <= again.version < first_version(3) and again.version > room.version
    taken = await RoomRegistry(SETTINGS, store, process="third").take(room.code)
    assert taken is not None and first_version(3) <= taken.version < first_version(4)
    for live in (room, again, taken):
        live.close()


def test_versions_stay_below_2_to_the_53_and_an_epoch_past_the_last_is_refused():
    assert first_version(0) == 2**52 and first_version(1) - first_version(0) == EPOCH_VERSIONS == 2**32
    assert first_version(MAX_EPOCH) + EPOCH_VERSIONS - 1 == 2**53 - 1
    for epoch in (-1, MAX_EPOCH + 1):
        with pytest.raises(ValueError, match="2\\^53"):
            first_version(epoch)


async def test_a_room_taken_more_often_than_its_versions_can_count_is_skipped(store, caplog):
    room, _, _ = await RoomRegistry(SETTINGS, store, process="first").create("Ana", Rules())
    room.close()
    engine = create_engine(store.storage.url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE rooms SET epoch = :epoch WHERE code = :code"),
                           {"epoch": MAX_EPOCH, "code": room.code})
    engine.dispose()
    restarted = RoomRegistry(SETTINGS, store, process="again")
    assert await restarted.restore() == 1 and restarted.get(room.code) is None
    assert f"room {room.code}: taken {MAX_EPOCH + 1} times" in caplog.text


async def play_to_the_last_card(room) -> str:
    """Play the room's match (its players: people, seated in the room) to its end; returns its match id."""
    while not room.match.finished:
        if room.match.needs_deal:
            assert await room.deal_next()
            continue
        seat = room.match.turn
        await room.play(room.seats[seat].token_hash, room.match.legal_cards(seat)[0].code)
    return room.current.match_id


async def finished_unstored(store, monkeypatch, process: str):
    """A registry whose room played a one-deal match to the end, the last play stored but not the match's
    end (the process was killed between the two writes, or the finish write failed)."""
    registry = RoomRegistry(SETTINGS, store, process=process)
    room, _, ana = await registry.create("Ana", Rules(hand_size=3, match_length=1))
    await room.join("Ben")
    await room.start(hash_token(ana))

    async def refused(**_kwargs):
        raise StorageError("the database went away")

    with monkeypatch.context() as patch:
        patch.setattr(store.storage, "finish_match", refused)
        match_id = await play_to_the_last_card(room)
    assert room.current.finish_pending and store.storage.match_record(match_id) is None
    return registry, room, ana, match_id


async def test_a_restored_room_whose_stored_plays_end_its_match_stores_that_match_finished(store, monkeypatch):
    first, room, ana, match_id = await finished_unstored(store, monkeypatch, "first")
    room.close()  # killed before the finish was tried again

    restarted = RoomRegistry(SETTINGS, store, process="again")
    assert await restarted.restore() == 1
    taken = restarted.get(room.code)
    assert taken.phase == "finished" and taken.current.match_id == match_id and not taken.current.finish_pending
    record = store.storage.match_record(match_id)
    assert record is not None and record["players"] == ["Ana", "Ben"]
    # The room then goes on to a new match, and the finished one stays stored.
    await taken.start(hash_token(ana))
    assert taken.current.match_id != match_id and store.storage.match_record(match_id) == record
    taken.close()


async def refuse_finish(**_kwargs):
    raise StorageError("down")


async def test_a_new_match_is_not_started_over_a_finished_match_not_yet_stored(store, monkeypatch):
    registry, room, ana, match_id = await finished_unstored(store, monkeypatch, "first")
    with monkeypatch.context() as patch:
        patch.setattr(store.storage, "finish_match", refuse_finish)
        with pytest.raises(RoomError) as refused:
            await room.start(hash_token(ana))
        assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE and room.current.match_id == match_id
    await room.start(hash_token(ana))  # the database is back: the finish is stored first
    assert store.storage.match_record(match_id) is not None and room.current.match_id != match_id
    room.close()


async def rebuilt(store, room, how: str):
    """``room`` as another process has it: after a restart (``"restart"``) or handed over (``"handover"``)."""
    room.close()  # its process stopped, or lost it
    again = RoomRegistry(SETTINGS, store, process="again")
    if how == "restart":
        assert await again.restore() == 1
        return again.get(room.code)
    return await again.take(room.code)


@pytest.mark.parametrize("how", ["restart", "handover"])
async def test_a_seat_stepped_away_stays_so_and_its_stand_in_plays_at_once(store, how):
    first = RoomRegistry(SETTINGS, store, process="first")  # a minute's grace for those merely gone
    room, _, ana = await first.create("Ana", Rules(hand_size=3))
    _, ben = await room.join("Ben")
    await room.start(hash_token(ana))
    await room.step_away(hash_token(ben))
    if room.match.turn == 0:
        await room.play(hash_token(ana), room.match.legal_cards(0)[0].code)
    assert room.match.turn == 1  # Ben's turn; nobody is connected, so nobody plays it here

    taken = await rebuilt(store, room, how)
    assert taken.presence.stepped_away(hash_token(ben)) and taken.table().stepped == frozenset({1})
    assert [seat.stepped_away for seat in taken.viewer_for(hash_token(ana)).view().seats] == [False, True]
    plays = len(taken.match.deal.plays)
    conn = connect(taken, Socket(), hash_token(ana))
    sender = conn.start()
    await taken.attach(conn)  # Ana is back: the stand-in plays Ben's turn, without waiting out the grace
    async with asyncio.timeout(5):
        while len(taken.match.deal.plays) == plays:
            await asyncio.sleep(0.01)

    await taken.step_away(hash_token(ben), away=False)
    assert not taken.presence.stepped_away(hash_token(ben))
    assert not any(seat.stepped_away for seat in store.storage.active_rooms()[0].seats)
    conn.finish()
    await sender
    taken.close()


async def test_after_a_restart_a_finished_match_has_nobody_stepped_away_and_a_new_one_neither(store):
    first = RoomRegistry(SETTINGS, store, process="first")
    room, _, ana = await first.create("Ana", Rules(hand_size=3, match_length=1))
    _, ben = await room.join("Ben")
    await room.start(hash_token(ana))
    await room.step_away(hash_token(ben))
    await play_to_the_last_card(room)  # Ben plays his own cards: the stand-in only plays when someone waits

    taken = await rebuilt(store, room, "restart")
    assert taken.phase == "finished" and not taken.presence.stepped_away(hash_token(ben))
    await taken.start(hash_token(ana))
    assert not any(seat.stepped_away for seat in store.storage.active_rooms()[0].seats)
    again = await rebuilt(store, taken, "restart")
    assert again.phase == "playing" and not again.presence.stepped_away(hash_token(ben))
    again.close()


def test_process_ids_name_the_process_and_are_never_the_same_twice():
    one, two = new_process_id("cards1"), new_process_id("cards1")
    assert one.startswith("cards1-") and two.startswith("cards1-") and one != two


BOUND = 30.0
"""Far longer than these handovers take: only one that hangs, or goes room after room, reaches it."""


async def until(check) -> None:
    """Wait until ``check()`` holds (at most :data:`BOUND`)."""
    async with asyncio.timeout(BOUND):
        while not check():
            await asyncio.sleep(0.01)


async def test_a_shutdown_hands_every_room_over_at_once_each_after_its_own_action(store):
    registry = RoomRegistry(SETTINGS, store, process="first")
    rooms = [(await registry.create(name, Rules()))[0] for name in ("Ana", "Ben", "Cy", "Dan", "Eve")]
    for room in rooms:
        await room.lock.acquire()  # an action in progress in every room
    handover = asyncio.ensure_future(registry.shutdown())
    rooms[-1].lock.release()  # the last room's action ends first
    await until(lambda: rooms[-1].closed)
    # The last room is handed over at once, while the first one still waits for its own action.
    assert registry.get(rooms[-1].code) is None
    assert not rooms[0].closed and registry.get(rooms[0].code) is rooms[0]
    for room in rooms[:-1]:
        room.lock.release()
    async with asyncio.timeout(BOUND):
        await handover
    assert all(room.closed for room in rooms) and registry.rooms == {}


async def test_a_room_whose_action_never_ends_is_closed_all_the_same_after_the_wait(store, caplog):
    registry = RoomRegistry(SETTINGS, store, process="first")
    stuck, _, _ = await registry.create("Ana", Rules())
    free, _, _ = await registry.create("Ben", Rules())
    await stuck.lock.acquire()
    async with asyncio.timeout(BOUND):
        await registry.shutdown(wait=0.1)
    assert stuck.closed and free.closed and registry.rooms == {}
    assert f"room {stuck.code}: an action still runs; closing it all the same" in caplog.text


async def test_a_shutdown_ends_the_sweeper_even_when_its_cancellation_is_lost(store, monkeypatch):
    settings = Settings(database_url="sqlite://", unused_room_seconds=0.2)  # a sweep every 0.05 s
    registry = RoomRegistry(settings, store, process="first")
    sweeping, swallowed = asyncio.Event(), []

    async def loses_the_cancellation() -> list[str]:
        if not swallowed:
            sweeping.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:  # as asyncio.wait_for of Python 3.11 can
                swallowed.append(True)
        return []

    monkeypatch.setattr(registry, "sweep", loses_the_cancellation)
    registry.start_sweeping()
    async with asyncio.timeout(BOUND):
        await sweeping.wait()
    stopping = asyncio.ensure_future(registry.shutdown())
    done, _ = await asyncio.wait({stopping}, timeout=BOUND)
    if not done:
        stopping.cancel()
        await asyncio.wait({stopping}, timeout=BOUND)
    assert done and swallowed == [True]


async def test_a_match_begun_under_the_earlier_parlett_goes_on_under_its_own_rules_after_a_restart(store):
    # docs/rules.md §3, "Presets": a match keeps the rules it began with, option by option, though parlett
    # now has follow must_match.
    earlier = preset("parlett").changed(follow="match_or_lowest")
    first = RoomRegistry(SETTINGS, store, process="first")
    room, _, ana = await first.create("Ana", earlier)
    for name in ("Ben", "Cy"):
        await room.join(name)
    await room.start(hash_token(ana))
    if room.match.needs_deal:
        assert await room.deal_next()
    seat = room.match.turn
    await room.play(room.seats[seat].token_hash, room.match.legal_cards(seat)[0].code)
    restarted = RoomRegistry(SETTINGS, store, process="again")
    assert await restarted.restore() == 1
    again = restarted.get(room.code)
    assert again.match.rules == earlier and preset_name(again.match.rules) is None
    assert again.match.deal.plays == room.match.deal.plays
    seat = again.match.turn
    await again.play(again.seats[seat].token_hash, again.match.legal_cards(seat)[-1].code)
    for registry in (first, restarted):
        for live in registry.rooms.values():
            live.close()
