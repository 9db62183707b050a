"""A room on its own: slow connections, idle rooms, storage failures, the timer."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3

import pytest

from app.common.identity import hash_token
from app.config.settings import Settings
from app.game.rules import Rules
from app.rooms.connection import Connection
from app.rooms.current_match import shuffler
from app.rooms.errors import RoomError
from app.rooms.registry import RoomRegistry
from app.rooms.room import Room
from app.rooms.schedule import Timing
from app.storage import StorageError

pytestmark = pytest.mark.anyio


class Socket:
    """A fake socket: records frames, or never returns from a send (a client that stopped reading)."""

    def __init__(self, stuck: bool = False) -> None:
        self.frames: list[str] = []
        self.stuck = stuck
        self.closed_with: int | None = None

    async def send(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.frames.append(text)

    async def close(self, code: int) -> None:
        self.closed_with = code


async def play_first_deal(room: Room) -> None:
    """Seat Ana and Ben, start, and play the first deal to its end (each plays their lowest legal card)."""
    _, ana = await room.join("Ana")
    await room.join("Ben")
    await room.start(hash_token(ana))
    while not room.match.needs_deal:
        seat = room.match.turn
        await room.play(room.seats[seat].token_hash, room.match.legal_cards(seat)[0].code)


class VersionRenderer:
    """Renders a state as ``v<version>``, an error as its code, and the chat as ``chat …``."""

    kind = "test"

    def render(self, view, shared):
        return f"v{view.version}"

    def frame(self, payload, *, whole=False):
        return payload

    def error(self, code, message):
        return code

    def chat(self, line):
        return f"chat {line.text or line.reaction}"

    def chat_welcome(self, lines, status):
        return f"chat history {len(lines)}" if lines else None

    def chat_status(self, status, *, host):
        return f"chat status {status.spectator_chat} {len(status.muted)}"


def connect(room: Room, socket: Socket, token_hash: str | None = None, queue_size: int = 4) -> Connection:
    return Connection(token_hash=token_hash, renderer=VersionRenderer(), socket=socket, queue_size=queue_size)


async def test_a_client_that_stops_reading_is_dropped_and_does_not_stall_the_room(store):
    room = Room(code="ROOM1", rules=Rules(hand_size=3), store=store)
    _, token = await room.join("Ana")
    slow_socket, fast_socket = Socket(stuck=True), Socket()
    slow, fast = connect(room, slow_socket), connect(room, fast_socket, hash_token(token))
    senders = [conn.start() for conn in (slow, fast)]
    await room.attach(slow)
    await room.attach(fast)
    for name in ["Ben", "Cy", "Dag", "Eva", "Finn", "Gus"]:
        await room.join(name)  # each one is a new state for everyone
        await asyncio.sleep(0)
    await asyncio.wait_for(senders[0], 2)  # the slow connection's sender gave up
    assert slow.dropped and slow_socket.closed_with == 1013
    assert fast_socket.frames[-1] == f"v{room.version}"
    assert not fast.dropped
    fast.finish()
    await senders[1]


async def test_a_refused_action_changes_nothing(store):
    room = Room(code="ROOM2", rules=Rules(), store=store)
    _, token = await room.join("Ana")
    version = room.version
    with pytest.raises(RoomError) as refused:
        await room.start(hash_token(token))
    assert refused.value.code == "not_enough_players"
    with pytest.raises(RoomError):
        await room.join("ana")
    assert room.version == version and len(room.seats) == 1


async def test_a_storage_failure_refuses_the_action_and_keeps_the_room_as_it_was(store, tmp_path, monkeypatch):
    from app.storage import engine as storage_engine

    monkeypatch.setattr(storage_engine, "SQLITE_BUSY_TIMEOUT_MS", 100)
    store.storage.engine.dispose()  # new connections get the short busy timeout
    room = Room(code="ROOM3", rules=Rules(hand_size=3), store=store)
    _, ana = await room.join("Ana")
    await room.join("Ben")
    await room.start(hash_token(ana))
    before, version = room.match, room.version
    seat = room.match.turn
    card = room.match.legal_cards(seat)[0]
    token = room.seats[seat].token_hash
    # Another process holds the database's write lock: every write times out.
    blocker = sqlite3.connect(tmp_path / "rooms.db", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RoomError) as refused:
            await room.play(token, card.code)
        assert refused.value.code == "storage_unavailable"
        assert room.match is before and room.version == version
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    await room.play(token, card.code)
    assert room.match.deal.plays[-1] == card


async def test_a_step_away_or_back_that_cannot_be_stored_is_refused_and_changes_nothing(store, monkeypatch):
    room = Room(code="ROOM9", rules=Rules(hand_size=3), store=store)
    _, ana = await room.join("Ana")
    _, ben = await room.join("Ben")
    await room.start(hash_token(ana))

    def down(**_kwargs):
        raise StorageError("the database went away")

    for away in (True, False):
        version = room.version
        with monkeypatch.context() as patch:
            patch.setattr(store.storage, "save_room", down)
            with pytest.raises(RoomError) as refused:
                await room.step_away(hash_token(ben), away)
        assert refused.value.code == "storage_unavailable"
        assert room.version == version and room.presence.stepped_away(hash_token(ben)) is not away
        assert room.viewer_for(hash_token(ana)).view().seats[1].stepped_away is not away
        assert [seat.stepped_away for seat in store.storage.active_rooms()[0].seats] == [False, not away]
        await room.step_away(hash_token(ben), away)  # the database is back
        assert [seat.stepped_away for seat in store.storage.active_rooms()[0].seats] == [False, away]
    room.close()


async def test_idle_rooms_are_removed_and_closed_in_storage(store):
    registry = RoomRegistry(Settings(room_idle_seconds=0.05, database_url="sqlite://"), store)
    room, _, _ = await registry.create("Ana", Rules())
    busy, _, _ = await registry.create("Ben", Rules())
    conn = connect(busy, Socket())
    await busy.attach(conn)
    await asyncio.sleep(0.1)
    assert await registry.sweep() == [room.code]
    assert registry.get(room.code) is None and registry.get(busy.code) is busy
    assert [snapshot.code for snapshot in store.storage.active_rooms()] == [busy.code]
    busy.close()


async def dealt_again(room: Room) -> bool:
    """Whether the room deals its next deal (or has ended its match) within a few seconds: time enough
    for the deal's commit on a slow disk, far less than a pause started over."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(5):
            while room.match.needs_deal and not room.match.finished:
                await asyncio.sleep(0.01)
    return not room.match.needs_deal or room.match.finished


async def test_the_next_deal_comes_after_the_pause(store):
    room = Room(code="ROOM4", rules=Rules(hand_size=3), store=store, timing=Timing(deal_pause=0.05))
    await play_first_deal(room)
    assert room.match.deals_completed == 1
    assert await dealt_again(room)
    room.close()


async def test_comings_and_goings_do_not_delay_the_next_deal(store):
    # The room's clock is the test's: a pause of a minute passes in a few steps, whatever the machine's speed.
    moment = 0.0
    room = Room(code="ROOM5", rules=Rules(hand_size=3), store=store, timing=Timing(deal_pause=60),
                clock=lambda: moment)
    await play_first_deal(room)  # the deal ends at 0
    for _ in range(6):
        moment += 10  # someone comes and goes every 10 s of the pause
        conn = connect(room, Socket())
        await room.attach(conn)
        await room.detach(conn)
        assert room.match.needs_deal  # the pause is not over yet
    moment += 1  # 61 s after the deal ended: the next change finds the deal due at once
    await room.attach(connect(room, Socket()))
    assert await dealt_again(room), "the pause started over"
    room.close()


async def test_a_connection_that_cannot_be_rendered_is_dropped_alone(store):
    room = Room(code="ROOM6", rules=Rules(), store=store)
    await room.join("Ana")
    good_socket, bad_socket = Socket(), Socket()

    class Broken(VersionRenderer):
        kind = "broken"

        def render(self, view, shared):
            raise RuntimeError("template error")

    good = connect(room, good_socket)
    bad = Connection(token_hash=None, renderer=Broken(), socket=bad_socket, queue_size=4)
    tasks = [good.start(), bad.start()]
    await room.attach(good)
    await room.attach(bad)
    await room.join("Ben")
    await asyncio.sleep(0.01)
    assert bad.dropped and bad_socket.closed_with == 1011
    assert good_socket.frames[-1] == f"v{room.version}" and not good.dropped
    good.finish()
    await asyncio.gather(*tasks)


async def test_a_play_naming_part_of_its_moment_is_checked_on_that_part_alone(store):
    room = Room(code="ROOM8", rules=Rules(hand_size=3), store=store)
    _, ana = await room.join("Ana")
    await room.join("Ben")
    await room.join("Cy")
    await room.start(hash_token(ana))
    for moment, stale in [((2, None), True), ((None, 1), True), ((1, None), False), ((None, 1), False),
                          ((None, 0), True), ((1, 3), True), ((1, 2), False)]:
        seat = room.match.turn
        card = room.match.legal_cards(seat)[0].code
        version = room.version
        if stale:
            with pytest.raises(RoomError) as refused:
                await room.play(room.seats[seat].token_hash, card, moment)
            assert refused.value.code == "stale_play" and room.version == version
        else:
            await room.play(room.seats[seat].token_hash, card, moment)
            assert room.version == version + 1


async def test_plays_fired_at_once_into_one_room_make_exactly_one_move(store):
    room = Room(code="ROOM7", rules=Rules(hand_size=3), store=store)
    _, ana = await room.join("Ana")
    await room.join("Ben")
    await room.join("Cy")  # three players: the second card of a trick never ends it
    await room.start(hash_token(ana))
    seat = room.match.turn
    mover, other = room.seats[seat].token_hash, room.seats[(seat + 1) % 3].token_hash
    legal = [card.code for card in room.match.legal_cards(seat)]
    their_card = room.match.deal.dealt_hand((seat + 1) % 3)[0].code
    version = room.version
    # A double click with two cards, and the other player's card, all chosen for the first moment of the deal.
    outcomes = await asyncio.gather(room.play(mover, legal[0], (1, 0)), room.play(mover, legal[-1], (1, 0)),
                                    room.play(other, their_card, (1, 0)), return_exceptions=True)
    assert outcomes[0] is None
    assert [outcome.code for outcome in outcomes[1:]] == ["stale_play", "stale_play"]
    # Without naming the moment, the second card of a double click is refused as out of turn.
    seat = room.match.turn
    cards = [card.code for card in room.match.legal_cards(seat)]
    outcomes = await asyncio.gather(room.play(room.seats[seat].token_hash, cards[0]),
                                    room.play(room.seats[seat].token_hash, cards[-1]), return_exceptions=True)
    assert outcomes[0] is None and outcomes[1].code == "not_your_turn"
    assert len(room.match.deal.plays) == 2 and room.version == version + 2
    stored = store.storage.active_rooms()[0].match.record
    assert [len(deal["plays"]) for deal in stored["deals"]] == [2]
    room.close()


async def test_a_room_going_away_with_its_server_closes_its_sockets_with_1012(store):
    room = Room(code="ROOM8", rules=Rules(), store=store)
    await room.join("Ana")
    socket = Socket()
    conn = connect(room, socket)
    sender = conn.start()
    await room.attach(conn)
    room.close()
    await asyncio.wait_for(sender, 2)
    assert socket.closed_with == 1012


async def test_a_new_room_never_takes_over_a_stored_rooms_row(store, monkeypatch):
    from app.rooms import registry as registry_module

    registry = RoomRegistry(Settings(room_idle_seconds=0.05, database_url="sqlite://"), store)
    old, _, _ = await registry.create("Ana", Rules())
    await asyncio.sleep(0.1)
    assert await registry.sweep() == [old.code]  # idle: closed in storage, gone from memory
    codes = iter([old.code, old.code, "ZZZZ9"])
    monkeypatch.setattr(registry_module, "new_room_code", lambda taken: next(codes))
    new, _, _ = await registry.create("Ben", Rules())
    assert new.code == "ZZZZ9" and registry.get(old.code) is None
    with store.storage.engine.connect() as connection:
        seats = connection.exec_driver_sql("SELECT room_code, name FROM seats ORDER BY room_code").all()
    assert [tuple(row) for row in seats] == [(old.code, "Ana"), ("ZZZZ9", "Ben")]
    new.close()


async def test_each_deal_is_shuffled_by_a_generator_of_its_own_seeded_by_the_system(store, monkeypatch):
    # The system's generator costs a system call for every card of the pack: a room without a generator
    # of its own shuffles each deal with a fast one, seeded with 256 bits taken from the system's.
    taken = []
    real = random.SystemRandom.getrandbits
    monkeypatch.setattr(random.SystemRandom, "getrandbits", lambda self, bits: taken.append(bits) or real(self, bits))
    monkeypatch.setattr(random.SystemRandom, "random", lambda self: pytest.fail("a card drawn from the system"))
    rules = Rules(hand_size=3, threshold=50, lives=3)  # four deals, and the match still on
    room = Room(code="ROOM7", rules=rules, store=store, timing=Timing(deal_pause=60))
    await play_first_deal(room)
    deals = {room.match.deal.dealt_hand(0)}
    for _ in range(3):
        await room.deal_next()
        await room.deal_next()  # nothing due: nothing taken
        deals.add(room.match.deal.dealt_hand(0))
        while not room.match.needs_deal:
            seat = room.match.turn
            await room.play(room.seats[seat].token_hash, room.match.legal_cards(seat)[0].code)
    assert taken.count(256) == 4 and len(deals) == 4  # the first deal, then three more (ids take a few bits)
    seeded = random.Random(4)
    assert shuffler(seeded) is seeded  # a given generator deals as it is (tests, replays)


class ClockRenderer(VersionRenderer):
    """Renders a state as its version and the seconds left on the turn clock."""

    def render(self, view, shared):
        return f"v{view.public.version} {view.public.turn_remaining}"


async def test_the_state_asked_for_again_counts_the_turn_clock_now(store):
    # Asked for again without a change (a JSON client's sync, the API's GET, a page loaded), the state is of the
    # same version, but its seconds left are those of now, not those of when the version was made.
    moment = 0.0
    room = Room(code="ROOM9", rules=Rules(hand_size=3), store=store, clock=lambda: moment)
    _, ana = await room.join("Ana")
    await room.join("Ben")
    await room.set_clock(hash_token(ana), 30)
    await room.start(hash_token(ana))
    version = room.version
    assert room.viewer_for(None).view().turn_remaining == 30
    moment += 10
    assert room.viewer_for(None).view().turn_remaining == 20
    socket = Socket()
    conn = Connection(token_hash=None, renderer=ClockRenderer(), socket=socket, queue_size=4)
    task = conn.start()
    room.send_state(conn)
    moment += 2.5
    room.send_state(conn)
    await asyncio.sleep(0.01)
    assert socket.frames == [f"v{version} 20.0", f"v{version} 17.5"]
    assert room.version == version  # asking changed nothing
    conn.finish()
    await task
    room.close()


async def test_the_record_says_which_plays_a_stand_in_made_for_a_person(store):
    # Ana plays her own cards, a bot holds seat 1 as itself, Ben steps away: the stand-in plays for him.
    room = Room(code="ROOMD", rules=Rules(hand_size=3, match_length=1), store=store, timing=Timing(bot_delay=0))
    _, ana = await room.join("Ana")
    await room.add_bot(hash_token(ana), "normal")
    _, ben = await room.join("Ben")
    conn = connect(room, Socket(), hash_token(ana))  # someone is here: the stand-in does not wait for them
    task = conn.start()
    await room.attach(conn)
    await room.start(hash_token(ana))
    await room.step_away(hash_token(ben))
    match_id = room.current.match_id
    async with asyncio.timeout(10):
        while not room.match.finished:
            if room.match.turn == 0:
                await room.play(hash_token(ana), room.match.legal_cards(0)[0].code)
            await asyncio.sleep(0.01)
        while store.storage.match_record(match_id) is None:
            await asyncio.sleep(0.01)
    record = store.storage.match_record(match_id)
    deal = record["deals"][0]
    seats = room.match.history[0].play_seats()
    assert deal["decided_by"] == ["stepped_away" if seat == 2 else "player" for seat in seats]
    room.close()
    await task
