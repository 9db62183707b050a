"""Hindsight: what each card would have cost with every hand known, for a finished match's replay.

Unlike the coach's grades (:mod:`app.coach.analysis`), which use only what the
player knew, hindsight plays each legal rank out in the real deal, with the
real hands, everyone then playing the rule of thumb (docs/coach.md,
"Hindsight"). Shown only for finished matches, whose hands the replay shows
anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.bots.heuristic import preferred_card, sheds_high
from app.coach.analysis import positions
from app.game.cards import Card
from app.game.events import PenaltyScored
from app.game.match import Match, play_out_deal


@dataclass(frozen=True, slots=True)
class Hindsight:
    """One play in hindsight: the penalty points its seat scores in the deal with the card played
    (``points``), and the least any legal card would have given (``best_points``, with ``best`` the cards
    of those ranks), everyone playing the rule of thumb from there on with every hand as dealt."""

    points: int
    best_points: int
    best: tuple[str, ...]


def hindsight(record: Mapping[str, Any]) -> dict[tuple[int, int], Hindsight]:
    """Every play of a valid ``record`` with more than one legal rank, in hindsight: ``{(deal, play): …}``.

    Deterministic (no chance: the rule of thumb, :func:`~app.bots.heuristic.preferred_card`, plays every
    later card). The record must be valid (as stored): raises the engine's errors otherwise.
    """
    out = {}
    for deal_index, play_index, match in positions(record):
        seat = match.turn
        assert seat is not None, "a position is a seat's turn"
        legal = match.legal_cards(seat)
        ranks = sorted({card.rank for card in legal})
        if len(ranks) < 2:
            continue
        code = record["deals"][deal_index]["plays"][play_index]
        points = {rank: _points(match, seat, next(card for card in legal if card.rank == rank)) for rank in ranks}
        least = min(points.values())
        out[deal_index, play_index] = Hindsight(points[Card.parse(code).rank], least,
                                                tuple(card.code for card in legal if points[card.rank] == least))
    return out


def _points(match: Match, seat: int, first: Card) -> int:
    """Penalty points ``seat`` scores in the deal when the seat to play plays ``first``, then the rule of thumb."""
    high_first = sheds_high(match.rules)
    pending = [first]

    def choose(_seat: int, legal: int) -> Card:
        return pending.pop() if pending else preferred_card(legal, high_first)

    _, events = play_out_deal(match, choose)
    return sum(event.points for event in events if type(event) is PenaltyScored and event.seat == seat)
