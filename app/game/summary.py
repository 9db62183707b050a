"""The summary of a finished deal, from the events of its last play.

Tells who took the last trick and with which card, who paid what, and any
life lost, replacement total, elimination, reinstatement or match end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.game.cards import Card
from app.game.events import (
    DealEnded,
    Event,
    LifeLost,
    MatchWon,
    PenaltyScored,
    PlayerEliminated,
    PlayerReinstated,
    TrickWon,
)


@dataclass(frozen=True, slots=True)
class DealSummary:
    """What a deal's end did (docs/rules.md §2.7–2.10).

    ``deal`` counts from 1. ``trick_winner`` took the last trick with
    ``card``; ``penalties`` are ``(seat, points, card, total)``;
    ``lives_lost`` ``(seat, lives_left, new_total)``; ``eliminated`` and
    ``reinstated`` ``(seat, total)``; ``winners`` is empty unless the match
    ended. People read it through ``app.wording.deal_sentences``.
    """

    deal: int
    trick_winner: int
    card: Card
    penalties: tuple[tuple[int, int, Card, int], ...]
    lives_lost: tuple[tuple[int, int, int], ...]
    eliminated: tuple[tuple[int, int], ...]
    reinstated: tuple[tuple[int, int], ...]
    winners: tuple[int, ...]


def summarize_deal(events: Iterable[Event]) -> DealSummary | None:
    """The summary of the deal that ``events`` end, or ``None`` if no deal ended in them."""
    events = list(events)
    ended = [event for event in events if isinstance(event, DealEnded)]
    if not ended:
        return None
    last_trick = [event for event in events if isinstance(event, TrickWon)][-1]
    return DealSummary(
        deal=ended[-1].deal + 1,
        trick_winner=last_trick.seat,
        card=last_trick.card,
        penalties=tuple((e.seat, e.points, e.card, e.total) for e in events if isinstance(e, PenaltyScored)),
        lives_lost=tuple((e.seat, e.lives, e.total) for e in events if isinstance(e, LifeLost)),
        eliminated=tuple((e.seat, e.total) for e in events if isinstance(e, PlayerEliminated)),
        reinstated=tuple((e.seat, e.total) for e in events if isinstance(e, PlayerReinstated)),
        winners=next((e.seats for e in events if isinstance(e, MatchWon)), ()),
    )
