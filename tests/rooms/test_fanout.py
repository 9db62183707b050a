"""Presence, fan-out and the page's region encoding, each on its own."""

from __future__ import annotations

import asyncio
import random

import pytest

from app.game.match import deal_cards, new_match
from app.game.rules import Rules
from app.pages.table import PageConstants, PageRenderer, page_error
from app.rooms.connection import Connection
from app.rooms.fanout import Renderings, send_state
from app.rooms.lobby import Seat
from app.rooms.presence import Presence
from app.rooms.views import Table
from app.wording.errors import problem
from app.wording.language import language, speaking

pytestmark = pytest.mark.anyio

CONSTANTS = PageConstants(lambda name, **params: f"/{name}", 4.0)


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Socket:
    def __init__(self) -> None:
        self.frames: list[str] = []

    async def send(self, text: str) -> None:
        self.frames.append(text)

    async def close(self, code: int) -> None:
        pass


class CountingRenderer:
    """Renders a view as ``seat/host/hand`` and counts its renderings."""

    kind = "count"

    def __init__(self, renders: list[tuple]) -> None:
        self.renders = renders

    def render(self, viewer, shared):
        view = viewer.view()
        self.renders.append((view.you_seat, view.you_are_host) if language() == "en"
                            else (view.you_seat, view.you_are_host, language()))
        return f"{view.you_seat}/{view.you_are_host}/{','.join(held.card.code for held in view.hand)}"

    def frame(self, payload, *, whole=False):
        return payload

    def error(self, code, message):
        return code


def table(match=None) -> Table:
    seats = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Ben", "b" * 64, player="ben2345678"))
    return Table(code="ROOM1", version=7, rules=Rules(hand_size=3), seats=seats, host="a" * 64, match=match,
                 match_id=None, last_summary=None, connected=frozenset({0, 1}), away=frozenset(), spectators=2,
                 turn_seconds=None, turn_remaining=None)


async def test_viewers_who_see_alike_share_one_rendering_and_each_gets_their_own_hand():
    match, _ = deal_cards(new_match(["Ana", "Ben"], Rules(hand_size=3)), random.Random(1))
    renders: list[tuple] = []
    sockets = [Socket() for _ in range(5)]
    tokens = ["a" * 64, "a" * 64, "b" * 64, None, None]
    conns = [Connection(token_hash=token, renderer=CountingRenderer(renders), socket=socket, queue_size=4)
             for token, socket in zip(tokens, sockets, strict=True)]
    tasks = [conn.start() for conn in conns]
    rendered = Renderings(table(match))
    send_state(rendered, conns)
    await asyncio.sleep(0)
    assert sorted(renders, key=str) == sorted([(0, True), (1, False), (None, False)], key=str)
    send_state(rendered, conns[3:], whole=True)  # a sync: nothing rendered again
    await asyncio.sleep(0)
    assert len(renders) == 3 and sockets[3].frames[1] == sockets[3].frames[0]
    hands = [{card.code for card in match.deal.dealt_hand(seat)} for seat in (0, 1)]
    seen = [socket.frames[0].split("/")[2] for socket in sockets]
    assert set(seen[0].split(",")) == hands[0] and seen[0] == seen[1]
    assert set(seen[2].split(",")) == hands[1]
    assert seen[3] == seen[4] == ""
    for conn in conns:
        conn.finish()
    await asyncio.gather(*tasks)


async def test_viewers_alike_in_another_language_get_their_own_rendering_made_once_per_language():
    renders: list[tuple] = []
    languages = ["da", "sv", "da", "sv", "da", "en"]
    conns = [Connection(token_hash=None, renderer=CountingRenderer(renders), socket=Socket(), queue_size=4,
                        language=code) for code in languages]
    tasks = [conn.start() for conn in conns]
    conns.append(Connection(token_hash="a" * 64, renderer=CountingRenderer(renders), socket=Socket(), queue_size=4,
                            language="da"))
    tasks.append(conns[-1].start())
    send_state(Renderings(table()), conns)
    await asyncio.sleep(0)
    assert sorted(renders, key=str) == sorted([(None, False, "da"), (None, False, "sv"), (None, False),
                                               (0, True, "da")], key=str)
    for conn in conns:
        conn.finish()
    await asyncio.gather(*tasks)


async def test_each_connection_is_rendered_in_its_own_language_whatever_language_the_sender_speaks():
    renders: list[tuple] = []
    conns = [Connection(token_hash=token, renderer=CountingRenderer(renders), socket=Socket(), queue_size=4,
                        language=code) for token, code in [(None, "en"), ("a" * 64, "sv"), ("b" * 64, "da")]]
    tasks = [conn.start() for conn in conns]
    with speaking("da"):  # say, the language of whoever made the change
        send_state(Renderings(table()), conns)
        assert language() == "da"
    await asyncio.sleep(0)
    assert sorted(renders, key=str) == sorted([(None, False), (0, True, "sv"), (1, False, "da")], key=str)
    for conn in conns:
        conn.finish()
    await asyncio.gather(*tasks)


async def test_a_refusal_is_said_in_the_connections_language():
    socket = Socket()
    conn = Connection(token_hash=None, renderer=PageRenderer(CONSTANTS, link_url=str), socket=socket, queue_size=2,
                      language="de")
    task = conn.start()
    conn.error("not_host", problem("not_host"))
    await asyncio.sleep(0)
    assert socket.frames == [page_error("not_host", "das kann nur der Gastgeber")]
    conn.finish()
    await task


async def test_presence_counts_a_person_here_while_one_of_their_connections_is_open():
    presence = Presence()
    first, second = (Connection(token_hash="a" * 64, renderer=CountingRenderer([]), socket=Socket(), queue_size=2)
                     for _ in range(2))
    presence.gone_from(["a" * 64], now=10.0)
    assert presence.absent_for("a" * 64, 15.0) == 5.0
    presence.attach(first)
    presence.attach(second)
    assert presence.absent_for("a" * 64, 20.0) is None
    presence.detach(first, now=21.0)
    assert presence.absent_for("a" * 64, 30.0) is None
    presence.detach(second, now=31.0)
    assert presence.absent_for("a" * 64, 40.0) == 9.0
    assert not presence.detach(second, now=41.0)
    seats = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Bot", None, bot="easy", player="easy234567"))
    assert presence.absences(seats, 40.0) == [9.0, None]
    assert presence.spectators(seats) == 0


async def test_the_absences_of_a_table_are_each_seats_absence():
    presence = Presence()
    here = Connection(token_hash="b" * 64, renderer=CountingRenderer([]), socket=Socket(), queue_size=2)
    presence.attach(here)
    presence.gone_from(["a" * 64, "c" * 64], now=10.0)
    seats = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Ben", "b" * 64, player="ben2345678"),
             Seat("Bot", None, bot="easy", player="easy234567"), Seat("Cy", "c" * 64, player="cy23456789"),
             Seat("Dag", "d" * 64, player="dag2345678"))
    assert presence.absences(seats, 25.0) == [15.0, None, None, 15.0, 0.0]
    assert presence.absences(seats, 25.0) == [None if seat.is_bot else presence.absent_for(seat.token_hash, 25.0)
                                              for seat in seats]


async def test_a_moved_seats_old_connections_watch_and_its_absence_goes_on():
    presence = Presence()
    socket = Socket()
    old = Connection(token_hash="a" * 64, renderer=CountingRenderer([]), socket=socket, queue_size=2)
    sender = old.start()
    presence.attach(old)
    presence.moved("a" * 64, "n" * 64, 10.0, "moved away")
    await asyncio.sleep(0)
    assert old.token_hash is None and socket.frames == ["seat_moved"]
    assert presence.absent_for("n" * 64, 15.0) == 5.0  # the old browser was here: the new one is gone from now
    presence.gone_from(["b" * 64], now=20.0)  # Ben's phone died at 20
    presence.moved("b" * 64, "m" * 64, 30.0, "moved away")
    assert presence.absent_for("m" * 64, 40.0) == 20.0  # still away: the bot goes on playing for him
    old.finish()
    await sender


def test_the_page_gets_only_the_regions_that_changed_since_its_last_frame():
    renderer = PageRenderer(CONSTANTS, link_url=str)
    first = Renderings(table())
    state = renderer.render(first.viewer(0, True), first.shared)
    whole = renderer.frame(state)
    assert whole == renderer.frame(state, whole=True) and '<section id="seats"' in whole
    assert renderer.frame(state) is None  # sent already
    second = Renderings(table()._replace(version=8, spectators=3), first)
    later = renderer.render(second.viewer(0, True), second.shared)
    assert renderer.frame(later) == later.html["status"] and "3 watching" in later.html["status"]


def test_each_version_builds_each_viewers_view_once_and_passes_on_what_renderers_keep():
    first = Renderings(table())
    assert first.view(0, False) is first.view(0, False) and first.view(None, False) is not first.view(0, False)
    made = first.shared.kept.made(str.upper, "html")
    second = Renderings(table(), first)
    assert second.shared.kept.made(str.lower, "html") == "html" and len(second.shared) == 0
    assert second.shared.kept.made(str.upper, "html") is made


async def test_a_sent_version_lets_its_views_and_shared_pieces_go_and_builds_them_again_alike_when_asked():
    match, _ = deal_cards(new_match(["Ana", "Ben"], Rules(hand_size=3)), random.Random(2))
    conn = Connection(token_hash="a" * 64, renderer=CountingRenderer([]), socket=Socket(), queue_size=4)
    task = conn.start()
    rendered = Renderings(table(match))
    public, own = rendered.public(), rendered.view(0, True)
    def make():
        return ["made"]

    shared = rendered.shared.once(make)
    send_state(rendered, [conn])
    await asyncio.sleep(0)
    again = rendered.view(0, True)
    assert rendered.public() is not public and rendered.public() == public  # let go, then built again
    assert len(rendered.shared) == 0 and rendered.shared.once(make) is not shared
    assert again is not own and again == own and again.hand and again.hand == own.hand
    conn.finish()
    await task
