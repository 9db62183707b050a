"""The JSON renderer's pieces kept by the values they show: found again for equal values, and each what the
readable frames (app/rooms/frames.py) give."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import orjson
import pytest

from app.game.match import deal_cards, new_match
from app.game.rules import Rules
from app.game.score_sheet import score_sheet
from app.rooms import frames as json_frames
from app.rooms import json_renderer
from app.rooms.fanout import Renderings
from app.rooms.frames import state_message
from app.rooms.json_renderer import JsonRenderer, LastDealShown, SheetText, last_deal_text
from app.rooms.kept import Kept
from app.rooms.lobby import Seat
from app.rooms.views import Table, room_view
from app.wording.language import speaking
from tests.game.helpers import random_steps
from tests.rooms.renderings import each_viewer as walk

SEATS = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Ben", "b" * 64, player="ben2345678"),
         Seat("Easy bot 1", None, bot="easy", player="easy234567"))
ROOM_VIEWERS = [(0, True), (1, False), (2, False), (None, False), (None, True), (0, False)]


def room_life(seed):
    """A room's versions: the lobby, the host without a seat, then two whole matches with their summaries,
    presence and the clock changing."""
    rng = random.Random(seed)
    rules = Rules(hand_size=3, threshold=10, lives=2)

    def table(version, seats, match=None, summary=None, connected=frozenset({0})):
        return Table(code="ROOM1", version=version, rules=rules, seats=seats, host="a" * 64, match=match,
                     match_id="m1" if match else None, last_summary=summary, connected=connected,
                     away=frozenset(), spectators=1, turn_seconds=30, turn_remaining=rng.choice([None, 12.5]))

    yield table(1, SEATS[:1])
    yield table(2, SEATS[1:2])  # Ana left her seat: she hosts without one
    version = 2
    for _ in range(2):
        dealt, _ = deal_cards(new_match([seat.name for seat in SEATS], rules), rng)
        for match, summary in random_steps(dealt, rng):
            version += 1
            yield table(version, SEATS, match, summary, frozenset(rng.sample([0, 1], rng.randint(0, 2))))


def each_viewer(seed):
    """Each version of :func:`room_life` as :func:`tests.rooms.renderings.each_viewer` walks it, for
    :data:`ROOM_VIEWERS`."""
    return walk(room_life(seed), ROOM_VIEWERS)


def test_a_kept_score_sheet_is_found_again_for_every_sheet_equal_to_the_one_it_was_made_from():
    match = next(table.match for table in room_life(1) if table.match is not None and len(table.match.history) > 1)
    sheet = score_sheet(match)
    kept = Kept()
    made = kept.made(SheetText, sheet)
    assert orjson.loads(made.whole) == json_frames.score_sheet_json(sheet)
    assert kept.made(SheetText, sheet) is made
    shorter = sheet[:-1]
    assert orjson.loads(kept.made(SheetText, shorter).whole) == json_frames.score_sheet_json(shorter)
    equal = tuple(replace(line) for line in sheet)  # the same deals, another tuple: found again
    assert kept.made(SheetText, equal) is made
    assert kept.following().made(SheetText, equal) is made  # and in the next version
    assert orjson.loads(made.added_to(shorter)) == json_frames.score_sheet_json(sheet[-1:])
    assert made.added_to(equal) == "[]" and made.added_to(sheet) == "[]" and made.added_to(()) == made.whole
    assert made.added_to(sheet[1:]) is None and made.added_to((*sheet, sheet[0])) is None


def test_a_kept_last_deal_is_found_again_only_for_the_same_summary_told_with_the_same_names():
    table = next(table for table in room_life(1) if table.last_summary is not None)
    public = room_view(table, None)
    kept = Kept()

    def last_deal(view):
        return kept.made(last_deal_text, LastDealShown(view.summary, view.seat_names))

    made = last_deal(public)
    assert json.loads(made) == json_frames.last_deal_json(public)
    assert last_deal(public) is made
    assert last_deal(public._replace(summary=replace(table.last_summary))) is made  # an equal summary
    taker = table.last_summary.trick_winner  # named in the first sentence
    seats = list(public.seats)
    seats[taker] = seats[taker]._replace(name="Zoë")
    renamed = public._replace(seats=tuple(seats))
    told = last_deal(renamed)
    assert json.loads(told) == json_frames.last_deal_json(renamed) != json_frames.last_deal_json(public)
    assert told.isascii()
    with speaking("de"):
        german = last_deal(renamed)
        assert json.loads(german) == json_frames.last_deal_json(renamed)
    assert last_deal(renamed) is told and german is not told  # kept for each language apart


@pytest.mark.parametrize("seed", [1, 2])
def test_a_hand_at_rest_shows_what_its_view_shows_and_you_is_what_the_view_gives(seed):
    """A hand at rest is told from its cards and its refusal's code alone (without its view) as its view
    tells it; ``you`` made from what it shows is the viewer's view's, in every language."""
    at_rest = 0
    for renderings, seat, host in each_viewer(seed):
        viewer = renderings.viewer(seat, host)
        rest = viewer.at_rest
        if rest is not None:
            assert json_renderer.hand_shown_at_rest(rest) == json_renderer.hand_shown(viewer.hand)
            at_rest += 1
        you = json_renderer.you_json(json_renderer.you_shown(viewer))
        assert you == json_frames.compact(json_frames.you_json(room_view(renderings.table, seat, host=host)))
    assert at_rest > 20


def test_a_name_orjson_refuses_is_written_as_the_standard_library_writes_it():
    table = next(table for table in room_life(2) if table.last_summary is not None)
    name = "Ana \ud800"  # a lone surrogate, as only a client's own words could bring
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(name)
    table = table._replace(seats=(replace(table.seats[0], name=name), *table.seats[1:]),
                           match=table.match._replace(players=(name, *table.match.players[1:])))
    renderer = JsonRenderer(link_url=str)
    renderings = Renderings(table)
    for seat, host in ROOM_VIEWERS:
        frame = renderer.frame(renderer.render(renderings.viewer(seat, host), renderings.shared), whole=True)
        assert frame == state_message(room_view(table, seat, host=host)) and "\\ud800" in frame
