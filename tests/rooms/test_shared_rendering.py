"""Rendering shared between viewers gives each viewer exactly what rendering for them alone gives."""

from __future__ import annotations

import json
import random

from app.api.room_pages import LIVE_REGIONS, PageRenderer
from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.rendering import render_blocks
from app.rooms.fanout import Renderings
from app.rooms.lobby import Seat
from app.rooms.protocol import JsonRenderer, state_message
from app.rooms.views import Table, room_view

SEATS = (Seat("Ana", "a" * 64, player="ana2345678"), Seat("Ben", "b" * 64, player="ben2345678"),
         Seat("Easy bot 1", None, bot="easy", player="easy234567"))
VIEWERS = [(0, True), (1, False), (2, False), (None, False), (None, True)]
CONTEXT = {"path_for": lambda name, **params: f"/{name}", "deal_pause": 4.0}


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
            shared = renderer.frame(renderer.render(renderings.view(seat, host), renderings.shared))
            alone = state_message(room_view(table, seat, host=host))
            assert shared == alone and json.loads(shared)["version"] == table.version


def test_each_page_viewer_gets_the_regions_made_for_them_alone():
    for table in tables():
        renderings = Renderings(table)
        for seat, host in VIEWERS:
            shared = PageRenderer(CONTEXT, link_url=str).render(renderings.view(seat, host), renderings.shared)
            values = {**CONTEXT, "view": room_view(table, seat, host=host)}
            assert shared == {name: render_blocks("room.html", [name], values) for name in LIVE_REGIONS}
