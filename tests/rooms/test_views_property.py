"""Whatever happens at a table, every viewer holds what a fresh render for it alone gives, and sees no hand but
its own.

A real room (its fan-out, its storage on SQLite) lives through random sequences of what happens at a table:
people join, leave and sit down again, the host seats and removes bots, starts and starts again, players
play legal and refused cards, step away and come back, hand a seat over with a device link, the host hands
an away seat to a bot, mutes and opens the chat, people chat, connections open, close and reconnect (a
page's socket again, or the page loaded anew), a JSON client syncs, time passes (bots play, away players are
played for, hosting passes on) and deals are dealt. Its viewers are seated players, the host (seated or
not) and spectators, each a JSON client or a table page, in each of the app's languages. After each event:

1. a JSON client's :class:`~app.client.view.View` of the frames it got is the state a fresh ``state`` frame
   for it gives; a page, its first page with every frame swapped in as htmx does, has the live regions of
   the page the room's page route gives its browser now;
2. no frame, and no fresh page, shows a card of a hand other than the viewer's own seat's (cards of earlier
   deals' last tricks, face up for everyone, aside; and a refused play's card said back to its sender).

The room's timer is stopped: the test does what it would (bots' cards, the next deal, hosting passing on),
with the room's clock its own, so each run takes the same path.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.room_pages import translate_page_message
from app.api.sockets import dispatch
from app.config.settings import Settings
from app.game.rules import Rules
from app.main import create_app
from app.rooms.errors import RoomError
from app.rooms.messages import ProtocolError, parse_message
from app.rooms.room import Room
from app.rooms.schedule import Timing
from app.wording.language import LANGUAGES
from tests.rooms.viewers import Person, Table, Viewer

BOT_DELAY, AWAY_GRACE, DEAL_PAUSE = 100.0, 300.0, 50.0
NAMES = ("Ana", "Ben", "Cy", "Dag", "Eva", "Finn", "Gus", "Hal")
TEXTS = ("hi all", "<b>well</b> played", "hej hej", "¡suerte!", "ciao", "gut gemacht & so")
KINDS = ("json", "page")
MOST_VIEWERS = 8
EVENTS = (
    *["join"] * 3, "sit_again", "leave", *["add_bot"] * 2, "remove", *["start"] * 3, *["play"] * 24,
    *["misplay"] * 3, *["connect"] * 3, *["disconnect"] * 2, *["reconnect"] * 2, "step_away", "come_back",
    "hand_to_bot", *["chat"] * 2, "mute", "spectator_chat", *["time"] * 3, *["deal"] * 3, "sync", "device_link",
)
STEPS = st.lists(st.tuples(st.sampled_from(EVENTS), st.integers(0, 2**16)), min_size=10, max_size=60)
assert sorted(LANGUAGES) == sorted(("en", "da", "de", "es", "it", "sv"))


def test_every_viewer_holds_what_a_fresh_render_gives_it_and_sees_no_other_hand(store, tmp_path: Path):
    app_settings = Settings(database_url=f"sqlite:///{tmp_path / 'app.db'}", deal_pause_seconds=DEAL_PAUSE)
    app = create_app(app_settings)
    loop = asyncio.new_event_loop()
    rooms = iter(range(10**6))

    @settings(max_examples=30, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(first=st.tuples(st.sampled_from(KINDS), st.sampled_from(sorted(LANGUAGES))), steps=STEPS)
    def life_of_a_room(first: tuple[str, str], steps: list[tuple[str, int]]) -> None:
        loop.run_until_complete(live(Table(new_room(store, next(rooms)), app, app_settings, store), first, steps))

    try:
        life_of_a_room()
    finally:
        loop.run_until_complete(cancel_the_rest())
        loop.close()


async def cancel_the_rest() -> None:
    """Cancel the tasks the rooms left (storage's and notices' writes) and let them end."""
    left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)


def new_room(store: Any, number: int) -> Room:
    """A room of short matches (3 cards, out at 10 points) on its own clock, its timer stopped."""
    moment = [0.0]
    code = "".join("23456789ABCDEFGHJKMNPQRSTUVWXYZ"[number // 31**place % 31] for place in range(5))
    room = Room(code=code, rules=Rules(hand_size=3, threshold=10, lives=1), store=store,
                timing=Timing(deal_pause=DEAL_PAUSE, bot_delay=BOT_DELAY, away_grace=AWAY_GRACE),
                rng=random.Random(number), clock=lambda: moment[0])
    room.moment = moment  # type: ignore[attr-defined]  # the test moves the room's clock
    room._timer.stop()  # the test does what the timer would: the same path every run
    return room


async def live(table: Table, first: tuple[str, str], steps: list[tuple[str, int]]) -> None:
    """The room of ``table`` opened by Ana (her connection ``first``: kind and language), then each of
    ``steps`` (an event and a number choosing who and what), each followed by the checks."""
    room = table.room
    _, token = await room.join("Ana")
    people = [Person("Ana", token)]
    await table.open(*first, people[0])
    await table.check()
    try:
        for done, (event, number) in enumerate(steps):
            try:
                await EVENT_HANDLERS[event](table, people, number)
                await table.check()
            except AssertionError as failure:
                failure.add_note(f"after {steps[:done + 1]!r}")
                raise
    finally:
        for viewer in list(table.viewers):
            await table.close(viewer)
        room.close()


def pick(items: list[Any] | tuple[Any, ...], number: int) -> Any:
    """One of ``items`` by ``number`` (``None``: there are none)."""
    return items[number % len(items)] if items else None


def kind_and_language(number: int) -> tuple[str, str]:
    languages = sorted(LANGUAGES)
    return KINDS[number % 2], languages[number // 2 % len(languages)]


async def act(table: Table, viewer: Viewer | None, message: dict[str, Any]) -> None:
    """``viewer``'s client sends ``message`` on its socket, as the socket's handler reads and carries it out: a
    page's as its form fields; a refusal comes back to it alone."""
    if viewer is None:
        return
    adapt = translate_page_message if viewer.kind == "page" else None
    conn = viewer.conn
    try:
        await dispatch(table.room, conn, parse_message(json.dumps(message), 4096, adapt=adapt))
    except (ProtocolError, RoomError) as error:
        conn.error(error.code, error.words)


def placed(table: Table, people: list[Person]) -> list[Person]:
    """The people the room knows now (a seat, or hosting)."""
    return [person for person in people if table.room.knows(person.token_hash)]


def host_of(table: Table, people: list[Person]) -> Person | None:
    return next((person for person in people if table.room.viewer_for(person.token_hash).view().you_are_host), None)


def viewer_of(table: Table, person: Person | None, number: int) -> Viewer | None:
    """One of ``person``'s connections that still speaks for them (``None``: they have none)."""
    if person is None:
        return None
    return pick([viewer for viewer in table.viewers
                 if viewer.person is person and viewer.conn.token_hash == person.token_hash], number)


async def join(table: Table, people: list[Person], number: int) -> None:
    try:
        _, token = await table.room.join(pick(NAMES, number))
    except RoomError:
        return  # a name taken, a full room, a match being played: nothing changed
    people.append(Person(pick(NAMES, number), token))
    await table.open(*kind_and_language(number // 8), people[-1], browser=f"p{len(people)}")


async def sit_again(table: Table, people: list[Person], number: int) -> None:
    host = host_of(table, people)
    if host is not None and table.room.seat_of(host.token_hash) is None:
        with contextlib.suppress(RoomError):  # refused while a match is played
            await table.room.join(host.name, host.token)


async def leave(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, pick(placed(table, people), number), number), {"type": "leave"})


async def add_bot(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, host_of(table, people), number),
              {"type": "add_bot", "strength": pick(("easy", "normal"), number)})


def seat_player(table: Table, number: int) -> str | None:
    seats = table.room.seats
    return pick(seats, number).player if seats else None


async def remove(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, host_of(table, people), number),
              {"type": "remove", "player": seat_player(table, number)})


async def hand_to_bot(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, host_of(table, people), number),
              {"type": "hand_to_bot", "player": seat_player(table, number), "strength": "easy"})


async def start(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, host_of(table, people), number), {"type": "start"})


def person_in(table: Table, people: list[Person], seat: int) -> Person | None:
    return next((person for person in people if table.room.seat_of(person.token_hash) == seat), None)


async def play(table: Table, people: list[Person], number: int) -> None:
    """The match moves on: the seat to play plays a card it may (its person, from one of their connections;
    a bot, or the stand-in for nobody there, once its time comes); between deals the next is dealt; without
    a match being played the host starts one."""
    match = table.room.match
    if match is None or match.finished:
        return await start(table, people, number)
    if match.turn is None:
        return await deal(table, people, number)
    viewer = viewer_of(table, person_in(table, people, match.turn), number)
    if viewer is None:
        return await time_passes(table, people, 0)
    await act(table, viewer, {"type": "play", "card": pick(match.legal_cards(match.turn), number).code})


async def misplay(table: Table, people: list[Person], number: int) -> None:
    """Someone plays a card they may not: one of theirs the rules forbid now, another player's, or any card
    out of turn."""
    match, person = table.room.match, pick(placed(table, people), number)
    viewer = viewer_of(table, person, number)
    if match is None or viewer is None:
        return
    seat = table.room.seat_of(person.token_hash)
    cards = [card for other in range(match.seat_count) for card in match.hand(other)]
    if seat is not None and seat < match.seat_count:
        legal = set(match.legal_cards(seat)) if match.turn == seat else set()
        own = [card for card in match.hand(seat) if card not in legal]
        cards = own if own and number % 3 else cards
    if cards:
        card = pick(cards, number // 3).code
        viewer.named.add(card)  # said back in the refusal: the sender's own words
        await act(table, viewer, {"type": "play", "card": card})


async def connect(table: Table, people: list[Person], number: int) -> None:
    """A new connection: a known person's, or a spectator's (some browsers watch in several tabs); at a table
    watched by :data:`MOST_VIEWERS` already, one of them goes instead."""
    if len(table.viewers) >= MOST_VIEWERS:
        return await disconnect(table, people, number)
    person = pick([*people, None, None], number)
    browser = f"s{number % 3}" if person is None else f"p{people.index(person) + 1}"
    await table.open(*kind_and_language(number // 8), person, browser=browser)


async def disconnect(table: Table, people: list[Person], number: int) -> None:
    viewer = pick(table.viewers, number)
    if viewer is not None:
        await table.close(viewer)


async def reconnect(table: Table, people: list[Person], number: int) -> None:
    """A connection ends and its client connects again: a JSON client with the view it holds, a page with
    the page it shows (its socket reconnecting) or, loaded again, a new one."""
    viewer = pick(table.viewers, number)
    if viewer is None:
        return
    await table.close(viewer)
    await table.open(viewer.kind, viewer.language, viewer.person, viewer.browser,
                     page=viewer.page if number % 4 else None, view=viewer.view)


async def step_away(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, pick(placed(table, people), number), number), {"type": "step_away"})


async def come_back(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, pick(placed(table, people), number), number), {"type": "come_back"})


async def chat(table: Table, people: list[Person], number: int) -> None:
    message = ({"type": "chat", "text": pick(TEXTS, number)} if number % 3 else
               {"type": "react", "reaction": pick(("thumbs_up", "well_played", "oops"), number)})
    await act(table, pick(table.viewers, number), message)


async def mute(table: Table, people: list[Person], number: int) -> None:
    """The host mutes someone: a seat's player, or a connection's anonymous id."""
    ids = [seat.player for seat in table.room.seats] + [viewer.conn.viewer for viewer in table.viewers]
    await act(table, viewer_of(table, host_of(table, people), number), {"type": "mute", "sender": pick(ids, number)})


async def spectator_chat(table: Table, people: list[Person], number: int) -> None:
    await act(table, viewer_of(table, host_of(table, people), number),
              {"type": "spectator_chat", "on": bool(number % 2)})


async def time_passes(table: Table, people: list[Person], number: int) -> None:
    """The room's clock moves on past a bot's pause (or an away player's grace): the room does what its
    timer would: a bot's card (or the stand-in's for an away person), hosting passing on."""
    room = table.room
    room.moment[0] += (BOT_DELAY, AWAY_GRACE)[number % 2]  # type: ignore[attr-defined]
    await room._auto_play()
    await room._hand_over_host()


async def deal(table: Table, people: list[Person], number: int) -> None:
    """The pause after a deal is over: the next deal is dealt (when one is due)."""
    table.room.moment[0] += DEAL_PAUSE  # type: ignore[attr-defined]
    await table.room.deal_next()


async def sync(table: Table, people: list[Person], number: int) -> None:
    viewer = pick([viewer for viewer in table.viewers if viewer.view is not None], number)
    if viewer is not None:
        table.take(viewer)
        viewer.view.expect_sync()
        await act(table, viewer, {"type": "sync"})


async def device_link(table: Table, people: list[Person], number: int) -> None:
    """A seated person asks for a link to their seat and opens it in another browser, which takes the seat:
    the first browser's connections watch from then on."""
    person = pick([person for person in placed(table, people) if table.room.seat_of(person.token_hash) is not None],
                  number)
    viewer = viewer_of(table, person, number)
    if viewer is None:
        return
    sent = len(viewer.socket.frames)
    await act(table, viewer, {"type": "device_link"})
    link = "".join(text for text, _ in viewer.socket.frames[sent:])
    if "take#" not in link:
        return
    secret = link.split("take#", 1)[1].split('"', 1)[0].split("<", 1)[0]
    try:
        _, _, token = await table.room.take_seat(secret)
    except RoomError:
        return
    people.append(Person(person.name, token))
    await table.open(*kind_and_language(number // 8), people[-1], browser=f"p{len(people)}")


EVENT_HANDLERS = {
    "join": join, "sit_again": sit_again, "leave": leave, "add_bot": add_bot, "remove": remove, "start": start,
    "play": play, "misplay": misplay, "connect": connect, "disconnect": disconnect, "reconnect": reconnect,
    "step_away": step_away, "come_back": come_back, "hand_to_bot": hand_to_bot, "chat": chat, "mute": mute,
    "spectator_chat": spectator_chat, "time": time_passes, "deal": deal, "sync": sync, "device_link": device_link,
}
assert set(EVENT_HANDLERS) == set(EVENTS)
