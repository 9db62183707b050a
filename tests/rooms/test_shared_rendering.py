"""Rendering shared between viewers gives each viewer exactly what rendering for them alone gives."""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import replace

import pytest

from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.game.score_sheet import score_sheet
from app.game.views import SeatView, view_for
from app.pages import rendering
from app.pages import table as table_page
from app.pages.rendering import render_blocks
from app.pages.table import LIVE_REGIONS, SEAT_IDS, PageConstants, PageRenderer, first_page
from app.rooms.fanout import Renderings
from app.rooms.frames import state_message
from app.rooms.json_renderer import JsonRenderer
from app.rooms.lobby import Seat
from app.rooms.views import SeatInfo, Table, room_view
from app.wording.language import language, speaking
from tests.game.helpers import random_steps
from tests.rooms.renderings import each_viewer as walk

SEATS = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Ben", "b" * 64, player="ben2345678"),
         Seat("Easy bot 1", None, bot="easy", player="easy234567"))
VIEWERS = [(0, True), (1, False), (2, False), (None, False), (None, True)]
CONTEXT = PageConstants(lambda name, **params: f"/{name}", 4.0)


def tables():
    """The room in the lobby, then after every play of a short match."""
    rng = random.Random(5)
    yield Table(code="ROOM1", version=1, rules=Rules(hand_size=3), seats=SEATS, host="a" * 64, match=None,
                match_id=None, last_summary=None, connected=frozenset({0}), away=frozenset(), spectators=1,
                turn_seconds=None, turn_remaining=None)
    match, _ = deal_cards(new_match([seat.name for seat in SEATS], Rules(hand_size=3)), rng)
    version = 2
    while match.turn is not None:
        yield Table(code="ROOM1", version=version, rules=Rules(hand_size=3), seats=SEATS, host="a" * 64,
                    match=match, match_id="m1", last_summary=None, connected=frozenset({0, 1}),
                    away=frozenset({1}), spectators=2, turn_seconds=30, turn_remaining=12.5)
        seat = match.turn
        match, _ = play(match, rng.choice(match.legal_cards(seat)), seat)
        version += 1


def test_each_json_viewer_gets_the_frame_made_for_them_alone():
    for table in tables():
        renderings, renderer = Renderings(table), JsonRenderer(link_url=str)
        for seat, host in VIEWERS:
            shared = renderer.frame(renderer.render(renderings.viewer(seat, host), renderings.shared), whole=True)
            alone = state_message(room_view(table, seat, host=host))
            assert shared == alone and json.loads(shared)["version"] == table.version


def alone(table, seat, host):
    """The live regions' values for the viewer in ``seat`` (host or not) of ``table``, worked out afresh (nothing
    shared with other viewers, nothing kept from other versions), with the page's constants: what ``room.html``
    is rendered whole with."""
    return {**CONTEXT._asdict(), **first_page(Renderings(table).viewer(seat, host))}


def assert_alone(state, values):
    """``state`` (a page renderer's) is what the values in ``values`` (:func:`alone`) give rendered afresh: sent
    whole, the live regions as the whole page shows them (each seat inside ``seats``), and each seat alone
    as it is there."""
    whole = render_blocks("room.html", list(LIVE_REGIONS), values)
    assert PageRenderer(CONTEXT, link_url=str).frame(state, whole=True) == whole
    seats = values["seats"].seats
    assert [name for name in state.html if name.startswith("seat-")] == list(SEAT_IDS[:len(seats)])
    for seat in seats:
        html = state.html[SEAT_IDS[seat.info.seat]]
        assert html == render_blocks("_seat.html", [("seat", {"seat": seat})], {})
        assert html.lstrip().startswith(f'<article id="seat-{seat.info.seat}" ') and html in whole


def test_each_page_viewer_gets_the_regions_made_for_them_alone():
    for table in tables():
        renderings = Renderings(table)
        for seat, host in VIEWERS:
            shared = PageRenderer(CONTEXT, link_url=str).render(renderings.viewer(seat, host), renderings.shared)
            assert_alone(shared, alone(table, seat, host))


def room_life(seed):
    """A room's versions, each as the room makes a new one: seats taken and left in the lobby, the host
    leaving their seat and taking it back, presence, away seats, spectators and the clock changing, then
    a whole match with its summaries and its end, and a new match."""
    rng = random.Random(seed)
    rules = Rules(hand_size=3, threshold=10, lives=2)
    seats = (SEATS[0],)
    version = 0

    def table(seats, host="a" * 64, match=None, summary=None, connected=frozenset({0}), away=frozenset(),
              spectators=1, clock=None, left=None):
        nonlocal version
        version += 1
        return Table(code="ROOM1", version=version, rules=rules, seats=seats, host=host, match=match,
                     match_id="m1" if match else None, last_summary=summary, connected=connected, away=away,
                     spectators=spectators, turn_seconds=clock, turn_remaining=left)

    yield table(seats)
    yield table(seats + SEATS[1:2], connected=frozenset({0, 1}))
    yield table(seats + SEATS[1:2], connected=frozenset({0, 1}), spectators=3, clock=30)
    yield table((SEATS[1],), connected=frozenset({0}), clock=30)  # Ana left her seat: she hosts without one
    seats = SEATS
    yield table(seats, connected=frozenset({0, 1}), clock=30)
    for _ in range(2):
        dealt, _ = deal_cards(new_match([seat.name for seat in seats], rules), rng)
        for match, summary in random_steps(dealt, rng):
            connected = frozenset(rng.sample([0, 1], rng.randint(0, 2)))
            away = frozenset({1}) - connected if rng.random() < 0.5 else frozenset()
            yield table(seats, match=match, summary=summary, connected=connected, away=away,
                        spectators=rng.randint(0, 2), clock=30, left=rng.choice([None, 12.5, 30.0]))
        yield table(seats, match=match, summary=summary, connected=frozenset({0, 1}))


ROOM_VIEWERS = [(0, True), (1, False), (2, False), (None, False), (None, True), (0, False)]


@pytest.mark.parametrize("seed", [1, 2])
def test_each_page_viewer_gets_what_rendering_for_them_alone_gives_in_every_version_of_a_room(seed):
    """Renderings kept from one version to the next, and shared between viewers, are what each viewer's
    view gives rendered afresh: in every language, for every kind of viewer, whatever changed."""
    for renderings, seat, host in each_viewer(seed):
        shared = PageRenderer(CONTEXT, link_url=str).render(renderings.viewer(seat, host), renderings.shared)
        assert_alone(shared, alone(renderings.table, seat, host))


def each_viewer(seed):
    """Each version of :func:`room_life` as :func:`tests.rooms.renderings.each_viewer` walks it, for
    :data:`ROOM_VIEWERS`."""
    return walk(room_life(seed), ROOM_VIEWERS)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_json_viewer_gets_what_rendering_for_them_alone_gives_in_every_version_of_a_room(seed):
    """What the JSON renderer keeps from one version to the next (the score sheet's JSON) and shares between
    viewers gives each viewer, in every version and language, the frame their view gives rendered afresh."""
    renderer, sheets = JsonRenderer(link_url=str), set()
    for renderings, seat, host in each_viewer(seed):
        shared = renderer.frame(renderer.render(renderings.viewer(seat, host), renderings.shared), whole=True)
        assert shared == state_message(room_view(renderings.table, seat, host=host))
        sheets.add(len(json.loads(shared)["state"]["score_sheet"]))
    assert len(sheets) > 3  # the sheet grew, and a new match emptied it


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_json_connection_holds_the_whole_state_of_every_version_adding_the_deals_each_state_adds(seed):
    """A connection of each viewer, in each language, sent every version of a room's life: its first state has
    the whole score sheet, each later one only the deals added since (none, or the deal just ended) unless
    the sheet started again (a new match); the sheet it holds is each time the one a state rendered for it
    alone gives whole."""
    connections: dict[tuple[str, int | None, bool], JsonRenderer] = {}
    held: dict[tuple[str, int | None, bool], list] = {}
    added = whole = 0
    for renderings, seat, host in each_viewer(seed):
        key = (language(), seat, host)
        renderer = connections.setdefault(key, JsonRenderer(link_url=str))
        state = json.loads(renderer.frame(renderer.render(renderings.viewer(seat, host), renderings.shared)))["state"]
        alone = json.loads(state_message(room_view(renderings.table, seat, host=host)))["state"]
        assert ("score_sheet" in state) != ("score_sheet_added" in state)
        if "score_sheet_added" in state:
            new = state.pop("score_sheet_added")
            assert len(new) <= 1 and key in held
            state["score_sheet"] = held[key] + new
            added += bool(new)
        else:
            assert key not in held or len(alone["score_sheet"]) < len(held[key]) or not alone["score_sheet"]
            whole += 1
        held[key] = state["score_sheet"]
        assert state == alone
    assert added > 3 and whole > len(connections)  # deals added, and sent whole again for a new match


def test_a_json_connection_gets_the_whole_sheet_again_when_it_asks_and_when_the_sheet_is_not_its_own_grown():
    tables = [table for table in room_life(1) if table.match is not None and table.match.history]
    start = tables[0].match.history
    tables = [table for table in tables if table.match.history[:len(start)] == start]  # the first match's
    early, later = (Renderings(table) for table in (tables[0], tables[-1]))
    assert len(tables[-1].match.history) > len(start) + 1
    renderer = JsonRenderer(link_url=str)
    first = json.loads(renderer.frame(renderer.render(early.viewer(0, True), early.shared)))["state"]
    assert len(first["score_sheet"]) == len(tables[0].match.history)
    grown = json.loads(renderer.frame(renderer.render(later.viewer(0, True), later.shared)))["state"]
    assert len(grown["score_sheet_added"]) == len(tables[-1].match.history) - len(tables[0].match.history)
    again = json.loads(renderer.frame(renderer.render(later.viewer(0, True), later.shared), whole=True))["state"]
    assert again["score_sheet"] == first["score_sheet"] + grown["score_sheet_added"]
    renderer.sheet = tuple(replace(line, totals=tuple(total + 1 for total in line.totals))
                           for line in renderer.sheet[:1])  # a sheet that is not this one's beginning
    other = json.loads(renderer.frame(renderer.render(later.viewer(0, True), later.shared)))["state"]
    assert other["score_sheet"] == again["score_sheet"]


ROW = re.compile(r'<tr data-deal=.*?</tr>', re.DOTALL)
LAST_TRICK = re.compile(r'<details class="last-trick" id="last-trick-details" data-keep-open.*?</details>', re.DOTALL)


def sheet_shown(html: str) -> tuple[list[str], list[str]]:
    """The score sheet's rows and last trick in ``html``, as a page shows them (an out-of-band mark aside)."""
    return ROW.findall(html), [found.replace(' hx-swap-oob="true"', "") for found in LAST_TRICK.findall(html)]


def test_each_page_holds_the_whole_score_sheet_getting_each_deals_row_alone_once_it_has_the_sheet():
    """A page connection of each viewer, in each language, sent every version of a room's life: the sheet it
    shows, from the whole sheets and new rows it is sent, is each time the one its view gives rendered afresh;
    a deal's end sends only its row (and its last trick) to a page that has the deals before."""
    pages: dict[tuple[str, int | None, bool], tuple[PageRenderer, tuple[list[str], list[str]]]] = {}
    appended = 0
    for renderings, seat, host in each_viewer(1):
        key = (language(), seat, host)
        renderer, (rows, last) = pages.get(key, (PageRenderer(CONTEXT, link_url=str), ([], [])))
        frame = renderer.frame(renderer.render(renderings.viewer(seat, host), renderings.shared)) or ""
        if '<section id="scoresheet"' in frame:
            assert 'beforeend:#scoresheet-table' not in frame
            rows, last = sheet_shown(frame.split('<section id="scoresheet"', 1)[1].split("</section>", 1)[0])
        elif 'hx-swap-oob="beforeend:#scoresheet-table"' in frame:
            new_rows, last = sheet_shown(frame)
            assert len(new_rows) == 1 and len(last) == 1
            rows, appended = rows + new_rows, appended + 1
        pages[key] = renderer, (rows, last)
        fresh = render_blocks("room.html", ["scoresheet"], alone(renderings.table, seat, host))
        assert (rows, last) == sheet_shown(fresh)
    assert appended > 3


def held_cards(html):
    """The cards of the hand region's buttons."""
    return set(re.findall(r'<button[^>]* data-card="(\w\w)"', html))


def test_a_hand_region_is_never_shared_between_seats_and_spectators_never_get_one():
    previous = None
    for table in room_life(3):
        renderings = previous = Renderings(table, previous)
        hands = {}
        for seat, host in ROOM_VIEWERS:
            if seat is not None and seat >= len(table.seats):
                continue
            state = PageRenderer(CONTEXT, link_url=str).render(renderings.viewer(seat, host), renderings.shared)
            regions = {**state.html, "seats": state.container()}
            hands[seat, host] = regions["hand"]
            if seat is None:
                assert held_cards(regions["hand"]) == set() and 'data-card' not in regions["hand"]
            elif table.match is not None and not table.match.finished and table.match.deal is not None:
                assert held_cards(regions["hand"]) == {card.code for card in table.match.hand(seat)}
                others = {card.code for other in range(table.match.seat_count) if other != seat
                          for card in table.match.hand(other)}
                assert not others & set(re.findall(r'data-card="(\w\w)"', "".join(regions.values())))
        for (seat, _), html in hands.items():
            for (other, _), other_html in hands.items():
                if seat != other and held_cards(html):
                    assert html is not other_html and held_cards(html) != held_cards(other_html)


def test_every_page_of_a_table_of_four_gets_its_own_marks_and_no_one_elses():
    """Each version of a deal at four: the page of the seat to play says it is their turn, on its status
    and its seat, and no other page does; each player's own seat is marked as theirs on their page only;
    no page holds an HTML comment."""
    renderers = {viewer: PageRenderer(CONTEXT, link_url=str) for viewer in FOUR_VIEWERS}
    previous = None
    for table in deal_at_four():
        renderings = Renderings(table, previous)
        for (seat, host), renderer in renderers.items():
            state = renderer.render(renderings.viewer(seat, host), renderings.shared)
            regions = {**state.html, "seats": state.container()}
            page = "".join(regions.values())
            assert "<!--" not in page
            assert ("Your turn: play a card" in regions["status"]) == (seat is not None and seat == table.match.turn)
            assert ("your-turn" in regions["status"]) == (seat is not None and seat == table.match.turn)
            own = [name for name in SEAT_IDS if name in regions and 'class="tag you-tag"' in regions[name]]
            assert own == ([] if seat is None else [SEAT_IDS[seat]])
            assert ('class="link device-link"' in page) == (seat is not None)
        previous = renderings


def counted_renders(monkeypatch):
    """The blocks page renderers render from now on, in a list filled as they do: each by its name, a seat
    by its element id."""
    calls = []
    real = rendering.render_block

    def counting(template, name, variables):
        calls.append(SEAT_IDS[variables["seat"].info.seat] if name == "seat" else name)
        return real(template, name, variables)

    monkeypatch.setattr(table_page, "render_block", counting)
    monkeypatch.setattr(rendering, "render_block", counting)
    return calls


EVERYONES = sorted(name for name in [*LIVE_REGIONS, "seat-0"] if name != "seats")
"""What a version of the one-seat lobby renders for everyone: each region (but the seats' container, rendered
only for a page it is sent to) and the one seat."""


def test_a_region_is_rendered_again_only_when_what_it_shows_changed(monkeypatch):
    calls = counted_renders(monkeypatch)
    lobby = next(room_life(4))
    first = Renderings(lobby)
    PageRenderer(CONTEXT, link_url=str).render(first.viewer(0, True), first.shared)
    # Everyone's regions, then those that show the host in seat 0 otherwise: what the lobby tells them, their
    # own seat, the host's controls, no form to take a seat, the rules they may change.
    assert sorted(calls) == sorted([*EVERYONES, "controls", "join", "rules", "seat-0", "status"])
    calls.clear()
    # A new version where only the spectators changed: the status (its version and count) is all that is new,
    # for everyone and for the host.
    second = Renderings(lobby._replace(version=lobby.version + 1, spectators=2), first)
    PageRenderer(CONTEXT, link_url=str).render(second.viewer(0, True), second.shared)
    assert calls == ["status", "status"]
    calls.clear()
    # The same, said in Danish: each region once more, in Danish.
    with speaking("da"):
        PageRenderer(CONTEXT, link_url=str).render(second.viewer(0, True), second.shared)
    assert sorted(calls) == sorted([*EVERYONES, "controls", "join", "rules", "seat-0", "status"])
    calls.clear()
    # A new seat: the regions that count the seats again, and the new seat, for everyone and as the host sees
    # them (with the control that removes Ben); the rules, the join form and Ana's seat not.
    third = Renderings(lobby._replace(version=lobby.version + 2, spectators=2, seats=SEATS[:2]), second)
    PageRenderer(CONTEXT, link_url=str).render(third.viewer(0, True), third.shared)
    assert sorted(calls) == ["controls", "controls", "seat-1", "seat-1", "status", "status"]
    calls.clear()
    # Another viewer of that version, Ben: his status, his own seat and his controls are his alone; the join
    # form he sees is the host's (no form for a seated player), the rules and Ana's seat everyone's.
    PageRenderer(CONTEXT, link_url=str).render(third.viewer(1, False), third.shared)
    assert sorted(calls) == ["controls", "seat-1", "status"]


def test_the_status_read_again_with_the_turn_clock_counted_later_shows_the_seconds_left_then():
    # A room's state asked for again (a sync) is the same version, its turn clock read anew: the status must
    # not be the one kept from when the version was made.
    table = next(table for table in tables() if table.match is not None)
    first = Renderings(table)
    before = PageRenderer(CONTEXT, link_url=str).render(first.viewer(0, True), first.shared).html["status"]
    again = Renderings(table._replace(turn_remaining=4.5), first)
    after = PageRenderer(CONTEXT, link_url=str).render(again.viewer(0, True), again.shared).html["status"]
    assert 'data-remaining="12.5"' in before and 'data-remaining="4.5"' in after


def test_reading_the_turn_clock_again_keeps_what_the_version_rendered_for_the_next_one(monkeypatch):
    # The version's facts built again (a sync, the room's GET), nothing rendered from them: the next version
    # still finds what the version rendered, and renders only what it changed, as it does without.
    before = next(table for table in room_life(5) if table.phase == "playing" and table.match.turn is not None)
    seat = before.match.turn
    after = before._replace(version=before.version + 1, match=play(before.match, before.match.legal_cards(seat)[0],
                                                                   seat)[0])
    calls = counted_renders(monkeypatch)
    renders = []
    for read_again in (False, True):
        start = Renderings(before)
        for viewer in ROOM_VIEWERS:
            PageRenderer(CONTEXT, link_url=str).render(start.viewer(*viewer), start.shared)
        if read_again:
            start = Renderings(before._replace(turn_remaining=3.0), start)
        calls.clear()
        following = Renderings(after, start)
        for viewer in ROOM_VIEWERS:
            PageRenderer(CONTEXT, link_url=str).render(following.viewer(*viewer), following.shared)
        renders.append(sorted(calls))
    assert renders[1] == renders[0] and "rules" not in renders[0]


def test_a_play_renders_again_only_what_it_changed(monkeypatch):
    """After a card is played mid-trick, the regions nobody's play touches are not rendered again, and the
    status twice: as the seat to play sees it, and as everyone else does."""
    before = next(table for table in room_life(5) if table.phase == "playing" and table.match.turn is not None
                  and view_for(table.match, None).trick)
    seat = before.match.turn
    after = before._replace(version=before.version + 1, match=play(before.match, before.match.legal_cards(seat)[0],
                                                                   seat)[0])
    first = Renderings(before)
    for seat, host in ROOM_VIEWERS:
        PageRenderer(CONTEXT, link_url=str).render(first.viewer(seat, host), first.shared)
    calls = counted_renders(monkeypatch)
    second = Renderings(after, first)
    for seat, host in ROOM_VIEWERS:
        PageRenderer(CONTEXT, link_url=str).render(second.viewer(seat, host), second.shared)
    assert not {"summary", "controls", "join", "rules", "seats"} & set(calls)
    assert calls.count("status") == 2


FOUR = (*SEATS[:2], Seat("Cy", "c" * 64, player="cy23456789"), Seat("Dag", "d" * 64, player="dag2345678"))
FOUR_VIEWERS = [(0, True), (1, False), (2, False), (3, False), (None, False)]


def deal_at_four():
    """A deal at four, every player connected: the table before each play and after the last one."""
    rules = Rules(hand_size=3)
    match, _ = deal_cards(new_match([seat.name for seat in FOUR], rules), random.Random(7))
    rng = random.Random(8)
    for version in itertools.count(1):
        yield Table(code="ROOM4", version=version, rules=rules, seats=FOUR, host="a" * 64, match=match,
                    match_id="m4", last_summary=None, connected=frozenset(range(4)), away=frozenset(),
                    spectators=1, turn_seconds=None, turn_remaining=None)
        if match.turn is None:
            return
        match, _ = play(match, rng.choice(match.legal_cards(match.turn)), match.turn)


def plays_at_four(monkeypatch):
    """Each version of :func:`deal_at_four` sent to each player's page and a spectator's: yields the renderings
    of the version before (``None`` the first time) and of this one, the blocks rendered for it
    (:func:`counted_renders`) and the frame each page was sent, by viewer (``""``: none)."""
    renderers = {viewer: PageRenderer(CONTEXT, link_url=str) for viewer in FOUR_VIEWERS}
    calls = counted_renders(monkeypatch)
    previous = None
    for table in deal_at_four():
        renderings = Renderings(table, previous)
        calls.clear()
        frames = {viewer: renderer.frame(renderer.render(renderings.viewer(*viewer), renderings.shared)) or ""
                  for viewer, renderer in renderers.items()}
        yield previous, renderings, calls, frames
        previous = renderings


def is_mid_trick(was, now):
    """Whether the play from match ``was`` to ``now`` was a card played into a trick that is not yet full."""
    return 0 < len(view_for(was, None).trick) < len(view_for(now, None).trick) < len(FOUR)


def test_a_play_at_a_table_of_four_renders_only_the_seats_it_changed_for_their_player_and_for_everyone(monkeypatch):
    """Each play of a deal at four, with each player's page and a spectator's open: a seat the play did not
    change is not rendered again, nor is the seats' container, and a seat it changed is rendered twice (as
    its own player sees it, and as everyone else does). A card played mid-trick changes two seats: the one
    who played it, and the one to play next. Each page is sent those seats alone."""
    plays_mid_trick = 0
    for previous, renderings, calls, frames in plays_at_four(monkeypatch):
        if previous is None:
            assert all('id="seats"' in sent for sent in frames.values())  # the first time: all of it
            continue
        was, now = previous.table.match, renderings.table.match
        changed = {seat.seat for seat, before in zip(renderings.public().seats, previous.public().seats,
                                                     strict=True) if seat != before}
        assert "seats" not in calls
        rendered = sorted(name for name in calls if name.startswith("seat-"))
        assert rendered == sorted(2 * [SEAT_IDS[seat] for seat in changed])
        for sent in frames.values():
            assert 'id="seats"' not in sent
            assert set(re.findall(r'<article id="(seat-\d)"', sent)) == {SEAT_IDS[seat] for seat in changed}
        if is_mid_trick(was, now):
            assert changed == {was.turn, now.turn}
            plays_mid_trick += 1
    assert plays_mid_trick >= 6


def test_a_play_renders_again_and_sends_only_the_hands_it_changed(monkeypatch):
    """Each play of a deal at four, with each player's page open: a card that cannot be played while waiting
    names nobody, so a hand is rendered again, and sent, only when its cards changed or its turn came or
    went; mid-trick, that is the hand of the player who played and the hand of the one to play next."""
    plays_mid_trick = 0
    for previous, renderings, calls, frames in plays_at_four(monkeypatch):
        if previous is None:
            continue
        was, now = previous.table.match, renderings.table.match
        changed = {seat for seat in range(len(FOUR))
                   if (was.hand(seat), was.turn == seat) != (now.hand(seat), now.turn == seat)}
        # A hand played empty is the empty region a spectator has (kept from the version before).
        assert calls.count("hand") == len([seat for seat in changed if now.hand(seat)])
        assert {seat for (seat, _), sent in frames.items() if 'id="hand"' in sent} == changed
        if is_mid_trick(was, now):
            assert changed == {was.turn, now.turn}
            plays_mid_trick += 1
    assert plays_mid_trick >= 6


def test_the_trick_is_rendered_once_for_everyone_and_once_for_each_viewer_it_names_you(monkeypatch):
    """The trick says "You" under the viewer's own card and turn, and the player's name elsewhere: its
    region is rendered once a version for everyone, and once more for each viewer whose seat it names."""
    versions = 0
    for _, renderings, calls, frames in plays_at_four(monkeypatch):
        match = renderings.table.match
        trick = view_for(match, None).trick
        named = {play.seat for play in trick} | ({match.turn} if match.turn is not None else set())
        assert calls.count("trick") == 1 + len(named & {seat for seat, _ in FOUR_VIEWERS})
        for (seat, _), sent in frames.items():
            by = {number: name.strip() for number, name in
                  re.findall(r'<li class="play[^"]*" data-seat="(\d)">.*?<span class="by">([^<]*)', sent)}
            assert set(by) == {str(play.seat) for play in trick} | {str(renderings.table.match.turn)} - {"None"}
            assert by == {number: "You" if number == str(seat) else FOUR[int(number)].name for number in by}
            assert "<!--" not in sent
        versions += 1
    assert versions > 10


@pytest.mark.parametrize("seed", [1, 2])
def test_each_versions_score_sheet_is_the_matchs_own_though_it_is_worked_out_only_after_a_deal(seed, monkeypatch):
    """The score sheet is carried from one version to the next (even across versions nobody looked at)
    and worked out again only when a deal has been completed or another match is played."""
    from app.rooms import views

    worked_out = []

    def counted(match):
        worked_out.append(match)
        return score_sheet(match)

    monkeypatch.setattr(views, "score_sheet", counted)
    previous, deals = None, []
    for number, table in enumerate(room_life(seed)):
        renderings = previous = Renderings(table, previous)
        if number % 3 == 2:
            continue  # nobody looked at this version
        sheet = renderings.public().score_sheet
        assert sheet == (score_sheet(table.match) if table.match is not None else ())
        if table.match is not None and (not deals or deals[-1] is not table.match.history):
            deals.append(table.match.history)
    assert [match.history for match in worked_out] == deals


def test_a_seat_as_everyone_sees_it_begins_with_the_engines_seat():
    # public_view builds each SeatInfo from the engine's SeatView, field by field in order: they must not drift.
    assert SeatInfo._fields[:len(SeatView._fields)] == SeatView._fields
    for table in room_life(2):
        if table.match is not None:
            engine_seats = view_for(table.match, None).seats
            assert [seat[:len(SeatView._fields)] for seat in room_view(table, None).seats] == list(engine_seats)


def test_a_seat_taken_at_a_finished_table_reaches_the_pages_inside_the_seats_container():
    """At a finished match's table the seats' container reads the same however many are seated: a seat taken
    then (someone joins, or a bot, to play again) comes inside the container, as a seat alone has no element
    of its id on the page to replace. Freed again, the container comes without it."""
    finished = next(table for table in room_life(1) if table.phase == "finished")
    renderer = PageRenderer(CONTEXT, link_url=str)
    first = Renderings(finished)
    renderer.frame(renderer.render(first.viewer(0, True), first.shared))
    dag = Seat("Dag", "d" * 64, player="dag2345678")
    joined = Renderings(finished._replace(version=finished.version + 1, seats=(*finished.seats, dag)), first)
    sent = renderer.frame(renderer.render(joined.viewer(0, True), joined.shared)) or ""
    assert '<section id="seats"' in sent and f'<article id="seat-{len(finished.seats)}"' in sent
    left = Renderings(finished._replace(version=finished.version + 2), joined)
    sent = renderer.frame(renderer.render(left.viewer(0, True), left.shared)) or ""
    assert '<section id="seats"' in sent and f'id="seat-{len(finished.seats)}"' not in sent
