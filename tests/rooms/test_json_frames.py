"""A JSON connection's state frames keep their size however many deals a match has had: the score sheet comes
whole once, then as the deals it adds (docs/protocol.md, "WebSocket")."""

from __future__ import annotations

import json
import random
import statistics

from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.game.summary import summarize_deal
from app.rooms.fanout import Renderings
from app.rooms.frames import state_message
from app.rooms.json_renderer import JsonRenderer
from app.rooms.lobby import Seat
from app.rooms.views import Table, room_view

NAMES = ("Ana", "Ben", "Cy", "Dag", "Eva", "Finn", "Gro")
SEATS = tuple(Seat(name, chr(ord("a") + index) * 64, player=f"{name.lower():x<10}")
              for index, name in enumerate(NAMES))


def long_match(seed: int):
    """Each version of a room playing a match of 7 seats to 100 points with 3 lives, by deals and plays: yields
    ``(deal, table)`` after each deal dealt and each card played (mostly the highest card a seat may play,
    which makes a long match)."""
    rng = random.Random(seed)
    match, summary, version = new_match(NAMES, Rules(threshold=100, lives=3)), None, 0
    while not match.finished:
        match, _ = deal_cards(match, rng)
        deal = len(match.history) + 1
        while True:
            version += 1
            yield deal, Table(code="ROOM1", version=version, rules=match.rules, seats=SEATS, host=SEATS[0].token_hash,
                              match=match, match_id="m1", last_summary=summary, connected=frozenset(range(7)),
                              away=frozenset(), spectators=1, turn_seconds=None, turn_remaining=None)
            if match.turn is None:
                break
            seat, legal = match.turn, match.legal_cards(match.turn)
            match, events = play(match, max(legal) if rng.random() < 0.5 else rng.choice(legal), seat)
            summary = summarize_deal(events) or summary


def test_the_frame_for_a_card_in_deal_90_of_a_long_match_is_about_the_size_of_one_in_deal_1():
    player, spectator = JsonRenderer(link_url=str), JsonRenderer(link_url=str)
    sizes: dict[int, list[int]] = {}
    whole_sizes: dict[int, list[int]] = {}
    sheet: list = []
    previous = None
    for deal, table in long_match(30):
        renderings = previous = Renderings(table, previous)
        frame = player.frame(player.render(renderings.viewer(0, True), renderings.shared))
        watched = spectator.frame(spectator.render(renderings.viewer(None, False), renderings.shared))
        sizes.setdefault(deal, []).append(len(frame.encode()))
        if deal in (1, 90):
            whole_sizes.setdefault(deal, []).append(len(state_message(room_view(table, 0, host=True)).encode()))
        state = json.loads(frame)["state"]
        sheet = state["score_sheet"] if "score_sheet" in state else sheet + state["score_sheet_added"]
        assert json.loads(watched)["state"]["you"] is None and len(watched) < len(frame) + 200
        assert state["you"]["hand"] == [card.code for card in table.match.hand(0)]  # only the player's own
    assert max(sizes) >= 90
    assert sheet == json.loads(state_message(room_view(table, 0)))["state"]["score_sheet"]
    first, ninetieth = statistics.median(sizes[1]), statistics.median(sizes[90])
    assert ninetieth <= 3 * first and ninetieth < 16_000, (first, ninetieth)
    assert statistics.median(whole_sizes[90]) > 3 * statistics.median(whole_sizes[1])  # whole, it would grow
