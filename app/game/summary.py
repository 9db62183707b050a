"""The summary of a finished deal, from the events of its last play.

Tells who took the last trick and with which card, who paid what, and any
life lost, replacement total, elimination, reinstatement or match end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    ended.
    """

    deal: int
    trick_winner: int
    card: Card
    penalties: tuple[tuple[int, int, Card, int], ...]
    lives_lost: tuple[tuple[int, int, int], ...]
    eliminated: tuple[tuple[int, int], ...]
    reinstated: tuple[tuple[int, int], ...]
    winners: tuple[int, ...]

    def sentences(self, names: Sequence[str]) -> list[str]:
        """The summary in plain words, one sentence per fact, using the players' ``names``."""
        lines = [f"{names[self.trick_winner]} took the last trick with {self.card.symbol}."]
        for seat, points, card, total in self.penalties:
            because = "" if card == self.card and seat == self.trick_winner else f" (the value of {card.symbol})"
            lines.append(f"{names[seat]} scores {points} penalty points{because}, now on {total}.")
        for seat, left, total in self.lives_lost:
            life_word = "life" if left == 1 else "lives"
            lines.append(f"{names[seat]} reached the threshold and loses a life ({left} {life_word} left), "
                         f"continuing on {total} points.")
        for seat, total in self.eliminated:
            lines.append(f"{names[seat]} is eliminated with {total} points.")
        for seat, total in self.reinstated:
            lines.append(f"Nobody would be left, so {names[seat]} stays in with one life on {total} points.")
        if len(self.winners) == 1:
            lines.append(f"{names[self.winners[0]]} wins the match!")
        elif self.winners:
            lines.append(" and ".join(names[seat] for seat in self.winners) + " share the win!")
        return lines


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
