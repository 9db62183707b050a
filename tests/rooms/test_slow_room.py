"""A slow room: its pace in the state, deadlines met by the bot, vacations, quiet hours, the webhook, restarts
and when its players are told their turn."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest

from app.common.identity import hash_token
from app.config.settings import Settings
from app.game.rules import Rules
from app.notify.notices import Notifier, TurnNotice
from app.rooms.errors import RoomError
from app.rooms.frames import state_json
from app.rooms.pace import Pace, QuietHours, quiet_hours_from
from app.rooms.registry import RoomRegistry
from app.rooms.room import Room
from app.rooms.schedule import Timing
from app.rooms.slow import quiet_hours_change, vacation_change, webhook_change
from tests.rooms.test_room import Socket, connect

pytestmark = pytest.mark.anyio

FAST = Timing(bot_delay=0.0, away_grace=0.01, deal_pause=5.0)


class RecordingNotifier(Notifier):
    """The push service's side of the notifier, on loopback: what would have been sent, in order."""

    def __init__(self) -> None:
        self.pushes: list[tuple[str, TurnNotice]] = []
        self.posts: list[tuple[str, TurnNotice, str]] = []
        self.dropped: list[str] = []

    async def push_turn(self, *, token_hash, notice, still_due):
        self.pushes.append((token_hash, notice))
        return 1

    async def post_webhook(self, url, notice, language):
        self.posts.append((url, notice, language))
        return True

    async def drop_seat(self, *, room_code, token_hash):
        self.dropped.append(token_hash)


async def slow_room(store, hours: float, notifier: Notifier | None = None, players: int = 3,
                    seed: int = 7) -> tuple[Room, list[str]]:
    room = Room(code="SLOW1", rules=Rules(), store=store, timing=FAST, rng=random.Random(seed),
                notifier=notifier, hour_seconds=hours)
    tokens = []
    for name in ("Ana", "Ben", "Cy", "Dan")[:players]:
        tokens.append((await room.join(name))[1])
    await room.set_rules(hash_token(tokens[0]), Rules(), Pace(1))
    return room, tokens


async def settle(condition, limit: float = 10.0) -> None:
    """Wait until ``condition()`` holds (the room's timers run meanwhile)."""
    async with asyncio.timeout(limit):
        while not condition():
            await asyncio.sleep(0.005)


async def test_the_state_says_the_pace_and_the_deadline(store):
    room, tokens = await slow_room(store, hours=3600.0)
    state = state_json(room.viewer_for(hash_token(tokens[0])).view())
    assert state["pace"] == {"turn_hours": 1} and state["deadline"] is None
    await room.start(hash_token(tokens[0]))
    state = state_json(room.viewer_for(None).view())
    deadline = datetime.fromisoformat(state["deadline"].replace("Z", "+00:00"))
    assert state["deadline"].endswith("Z")
    assert timedelta(minutes=59) < deadline - datetime.now(UTC) <= timedelta(hours=1)
    assert [seat["played_for"] for seat in state["seats"]] == [None, None, None]
    room.close()


async def test_a_live_room_has_no_pace(store):
    room = Room(code="LIVE1", rules=Rules(), store=store)
    _, token = await room.join("Ana")
    state = state_json(room.viewer_for(hash_token(token)).view())
    assert state["pace"] is None and state["deadline"] is None
    room.close()


async def test_a_card_in_a_live_room_stores_nothing_of_a_slow_table_and_a_slow_rooms_keeps_when(store):
    clock = [datetime(2026, 12, 1, 12, tzinfo=UTC)]
    live = Room(code="LIVE2", rules=Rules(), store=store, timing=FAST, rng=random.Random(3), wall=lambda: clock[0])
    tokens = [(await live.join(name))[1] for name in ("Ana", "Ben")]
    await live.start(hash_token(tokens[0]))
    started = live.slow
    assert started.last_acted == clock[0]
    clock[0] += timedelta(minutes=5)
    seat = live.match.turn
    await live.play(hash_token(tokens[seat]), live.match.legal_cards(seat)[0].code)
    assert live.slow is started  # unchanged, so not stored again: a live room's card stores the play alone
    live.close()
    room, tokens = await slow_room(store, hours=3600.0)
    await room.start(hash_token(tokens[0]))
    seat, before = room.match.turn, datetime.now(UTC)
    await room.play(hash_token(tokens[seat]), room.match.legal_cards(seat)[0].code)
    assert room.slow.last_acted is not None and room.slow.last_acted >= before
    room.close()


async def test_nobody_is_played_for_before_the_deadline_though_everyone_is_gone(store):
    room, tokens = await slow_room(store, hours=3600.0)
    await room.start(hash_token(tokens[0]))
    before = room.match
    await asyncio.sleep(0.2)  # twenty times the live table's away grace
    assert room.match is before and not room.table().away
    room.close()


async def test_at_the_deadline_the_bot_plays_one_card_and_marks_the_seat(store):
    room, tokens = await slow_room(store, hours=0.05)  # a turn lasts 50 ms
    await room.start(hash_token(tokens[0]))
    first = room.match.turn
    await settle(lambda: room.match.turn != first)
    assert not room.seats[first].is_bot and room.seats[first].token_hash == hash_token(tokens[first])
    state = state_json(room.viewer_for(None).view())
    assert state["seats"][first]["played_for"] == "deadline"
    # Acting again clears the mark.
    await settle(lambda: room.match.turn == first)
    await room.play(hash_token(tokens[first]), room.match.legal_cards(first)[0].code)
    assert state_json(room.viewer_for(None).view())["seats"][first]["played_for"] is None
    room.close()


async def test_a_player_on_vacation_is_played_for_at_once_until_they_act(store):
    room, tokens = await slow_room(store, hours=3600.0)
    await room.start(hash_token(tokens[0]))
    seat = room.match.turn
    await room.change_slow(vacation_change(hash_token(tokens[seat]), 3, room.hour_seconds))
    assert state_json(room.viewer_for(None).view())["seats"][seat]["played_for"] == "vacation"
    await settle(lambda: room.match.turn != seat)
    assert room.seats[seat].token_hash == hash_token(tokens[seat])  # the seat stays theirs
    # Acting ends it: a card of theirs, or coming back.
    player = room.seats[seat].player
    assert not room.slow.acted(player, datetime.now(UTC)).on_vacation(player, datetime.now(UTC))
    room.close()


async def test_a_vacation_is_checked_and_ends_with_zero(store):
    room, tokens = await slow_room(store, hours=3600.0)
    ana = hash_token(tokens[0])
    for days in (15, -1, "2", None):
        with pytest.raises(RoomError):
            await room.change_slow(vacation_change(ana, days, room.hour_seconds))
    await room.change_slow(vacation_change(ana, 14, room.hour_seconds))
    assert room.slow.vacations
    await room.change_slow(vacation_change(ana, 0, room.hour_seconds))
    assert not room.slow.vacations
    with pytest.raises(RoomError) as refused:
        await room.change_slow(vacation_change(None, 2, room.hour_seconds))
    assert refused.value.code == "not_seated"
    room.close()


async def test_quiet_hours_are_a_seated_players_in_a_slow_room_only(store):
    room, tokens = await slow_room(store, hours=3600.0)
    quiet = quiet_hours_from("23:00", "08:00", "Europe/Copenhagen")
    await room.change_slow(quiet_hours_change(hash_token(tokens[1]), quiet))
    assert room.slow.quiet == {room.seats[1].player: quiet}
    live = Room(code="LIVE2", rules=Rules(), store=store)
    _, token = await live.join("Ana")
    with pytest.raises(RoomError) as refused:
        await live.change_slow(quiet_hours_change(hash_token(token), quiet))
    assert (refused.value.code, refused.value.status) == ("bad_request", 422)
    room.close()
    live.close()


async def test_only_the_host_sets_the_webhook_and_only_the_host_sees_it(store):
    room, tokens = await slow_room(store, hours=3600.0)
    url = "https://discord.com/api/webhooks/1/abc"
    with pytest.raises(RoomError) as refused:
        await room.change_slow(webhook_change(hash_token(tokens[1]), url, "en"))
    assert refused.value.code == "not_host"
    await room.change_slow(webhook_change(hash_token(tokens[0]), url, "da"))
    assert state_json(room.viewer_for(hash_token(tokens[0])).view())["you"]["webhook"] == url
    assert "webhook" not in state_json(room.viewer_for(hash_token(tokens[1])).view())["you"]
    assert url not in str(state_json(room.viewer_for(None).view()))
    live = Room(code="LIVE3", rules=Rules(), store=store)
    _, token = await live.join("Ana")
    with pytest.raises(RoomError) as refused:
        await live.change_slow(webhook_change(hash_token(token), url, "en"))
    assert (refused.value.code, refused.value.status) == ("webhook_refused", 422)
    room.close()
    live.close()


async def test_each_turn_is_pushed_once_to_an_absent_player_and_posted_to_the_webhook(store):
    notifier = RecordingNotifier()
    room, tokens = await slow_room(store, hours=3600.0, notifier=notifier)
    await room.change_slow(webhook_change(hash_token(tokens[0]), "https://discord.com/api/webhooks/1/a", "da"))
    await room.start(hash_token(tokens[0]))
    first = room.match.turn
    await settle(lambda: len(notifier.pushes) == 1 and len(notifier.posts) == 1)
    token_hash, notice = notifier.pushes[0]
    assert token_hash == hash_token(tokens[first])
    assert notice == TurnNotice(room.code, room.seats[first].name, room.slow.turn.deadline, reminder=False)
    assert notifier.posts[0][2] == "da"
    # A connection of the next player is open: they are not pushed, the webhook still is.
    following = (first + 1) % 3
    conn = connect(room, Socket(), hash_token(tokens[following]))
    conn.start()
    await room.attach(conn)
    await room.play(hash_token(tokens[first]), room.match.legal_cards(first)[0].code)
    await settle(lambda: len(notifier.posts) == 2)
    await asyncio.sleep(0.05)
    assert len(notifier.pushes) == 1
    # Nothing more for the same turn, however often the room changes.
    await room.detach(conn)
    await asyncio.sleep(0.05)
    assert len(notifier.pushes) == 1
    room.close()


async def test_the_reminder_comes_at_four_fifths_of_the_deadline(store):
    notifier = RecordingNotifier()
    room, tokens = await slow_room(store, hours=0.5, notifier=notifier)  # a turn lasts half a second
    await room.start(hash_token(tokens[0]))
    first = room.match.turn
    await settle(lambda: any(notice.reminder for _, notice in notifier.pushes))
    assert [notice.reminder for _, notice in notifier.pushes[:2]] == [False, True]
    assert room.match.turn == first or room.slow.turn.key[2] != first
    room.close()


async def test_a_push_due_in_quiet_hours_waits(store):
    notifier = RecordingNotifier()
    room, tokens = await slow_room(store, hours=3600.0, notifier=notifier)
    now = datetime.now(UTC)
    quiet = QuietHours((now - timedelta(minutes=5)).time().replace(second=0, microsecond=0),
                       (now + timedelta(minutes=30)).time().replace(second=0, microsecond=0), "UTC")
    for seat, token in enumerate(tokens):
        await room.change_slow(quiet_hours_change(hash_token(token), quiet))
    await room.start(hash_token(tokens[0]))
    await asyncio.sleep(0.1)
    assert notifier.pushes == []
    assert room.herald.wake_at is not None and room.herald.wake_at > now + timedelta(minutes=20)
    assert room.slow.turn.deadline > now + timedelta(minutes=20, hours=1)
    room.close()


async def test_a_seat_moved_or_removed_drops_its_subscriptions(store):
    notifier = RecordingNotifier()
    room, tokens = await slow_room(store, hours=3600.0, notifier=notifier)
    await room.remove_seat(hash_token(tokens[0]), room_target(room, 2))
    await settle(lambda: notifier.dropped == [hash_token(tokens[2])])
    link = room.seat_link(hash_token(tokens[1]), "device")
    await room.take_seat(link.secret)
    await settle(lambda: notifier.dropped[-1] == hash_token(tokens[1]))
    room.close()


def room_target(room: Room, seat: int):
    from app.rooms.lobby import Target
    return Target(player=room.seats[seat].player, seat=seat)


async def test_a_restart_keeps_the_deadline_the_settings_and_what_was_told(store, tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'r.db'}", slow_hour_seconds=3600.0)
    notifier = RecordingNotifier()
    registry = RoomRegistry(settings, store)
    registry.notifier = notifier
    room, _, token = await registry.create("Ana", Rules(), Pace(4))
    ben = (await room.join("Ben"))[1]
    later = datetime.now(UTC) + timedelta(hours=2)  # quiet hours that do not hold now, whenever the test runs
    quiet = QuietHours(later.time().replace(second=0, microsecond=0),
                       (later + timedelta(hours=1)).time().replace(second=0, microsecond=0), "UTC")
    await room.change_slow(quiet_hours_change(hash_token(ben), quiet))
    await room.start(hash_token(token))
    await settle(lambda: len(notifier.pushes) == 1)
    deadline = room.slow.turn.deadline
    await room.herald.written()
    await registry.shutdown(wait=1.0)

    again = RoomRegistry(settings, store)
    again.notifier = notifier
    assert await again.restore() == 1
    restored = again.get(room.code)
    assert restored.lobby.pace == Pace(4)
    assert restored.slow.turn.deadline == deadline
    assert restored.slow.quiet == room.slow.quiet
    await asyncio.sleep(0.05)
    assert len(notifier.pushes) == 1  # told before the restart: not again
    await again.shutdown(wait=1.0)


async def test_an_idle_slow_room_sleeps_in_the_database_and_wakes_when_asked_or_due(store, tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 's.db'}", slow_hour_seconds=0.5,
                        room_idle_seconds=0.01, max_rooms=1)
    registry = RoomRegistry(settings, store)
    room, _, token = await registry.create("Ana", Rules(), Pace(4))  # a turn lasts 2 s
    await room.join("Ben")
    await room.start(hash_token(token))
    code, deadline, first = room.code, room.slow.turn.deadline, room.match.turn
    await asyncio.sleep(0.05)
    await registry.sweep()
    assert code not in registry.rooms and code in registry.asleep
    other, _, _ = await registry.create("Cy", Rules())  # asleep, it does not count against max_rooms
    woken = await registry.wake(code)
    assert woken is not room and woken.slow.turn.deadline == deadline and woken.match.turn == first
    other.close()
    registry.rooms.pop(other.code)
    await asyncio.sleep(0.05)
    assert await registry.sleep(code, woken)
    # At its deadline it wakes by itself, and the bot plays the card.
    await settle(lambda: code in registry.rooms and registry.rooms[code].match.turn != first, limit=30)
    assert registry.rooms[code].slow.missed == {registry.rooms[code].seats[first].player}
    await registry.shutdown(wait=1.0)


async def test_deals_follow_each_other_without_the_pause(store):
    room, tokens = await slow_room(store, hours=3600.0, players=2)  # FAST pauses 5 s after a deal
    await room.start(hash_token(tokens[0]))
    first = room.match.deals_completed
    while room.match.deals_completed == first:
        seat = room.match.turn
        await room.play(hash_token(tokens[seat]), room.match.legal_cards(seat)[0].code)
    await settle(lambda: not room.match.needs_deal, limit=2.0)
    room.close()


async def test_a_slow_match_nobody_acts_in_for_30_days_ends_abandoned_with_its_standings(store, tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}", slow_hour_seconds=1e-4)  # 30 days: 72 ms
    registry = RoomRegistry(settings, store)
    room, _, token = await registry.create("Ana", Rules(), Pace(72))
    await room.join("Ben")
    await room.start(hash_token(token))
    match_id = room.current.match_id
    assert await registry.sweep() == []
    await asyncio.sleep(0.1)
    assert await registry.sweep() == [room.code]
    with store.storage.engine.connect() as connection:
        row = connection.exec_driver_sql("SELECT status, placings FROM matches WHERE id = ?", (match_id,)).one()
    assert row[0] == "abandoned" and row[1] is not None
    await registry.shutdown(wait=1.0)
