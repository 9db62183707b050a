"""The score sheet of a match: each completed deal's penalties, running totals, lives and eliminations.

Worked out again from the deals a match keeps, with the engine's own scoring
(:func:`~app.game.match.score_deal`), so it always agrees with the match.
Everything on it is public (docs/rules.md §2.6–2.8): no hand appears.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.game.cards import Card
from app.game.events import Event, PenaltyScored
from app.game.match import Match, score_deal


@dataclass(frozen=True, slots=True)
class DealScore:
    """One line of the score sheet: what deal ``number`` (from 1) did to every seat.

    - ``dealer``: who dealt it; ``last_trick``: its last trick as
      ``((seat, card), …)`` in play order, face up for everyone (§2.6);
      ``trick_winner``: the seat that took that trick (§2.5).
    - ``penalties[s]``: points seat s received for the last trick (§2.7),
      0 for everyone else.
    - ``totals[s]`` and ``lives[s]``: seat s's total and lives after the
      deal, a lost life's replacement total included (§2.8).
    - ``lives_lost``: the seats with fewer lives after the deal than before,
      those it put out included: only a life actually taken, so not a player
      put out and kept in on the one life they had (§3, settled cases);
      ``eliminated``: the seats it put out of the match (a player
      reinstated by §3's settled cases is not among them).
    """

    number: int
    dealer: int
    last_trick: tuple[tuple[int, Card], ...]
    trick_winner: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    lives: tuple[int, ...]
    lives_lost: tuple[int, ...]
    eliminated: tuple[int, ...]


def score_sheet(match: Match) -> tuple[DealScore, ...]:
    """Every completed deal of ``match``, oldest first, as :class:`DealScore` lines.

    Replays the scoring of each deal in ``match.history`` from the start of
    the match (every seat on 0 with the rules' lives, §2.1), so the last
    line's ``totals`` and ``lives`` are the match's own. Empty before the
    first deal is complete. A deal in progress is not on the sheet.
    """
    rules = match.rules
    scores = (0,) * match.seat_count
    lives = (rules.lives,) * match.seat_count
    lines = []
    for number, deal in enumerate(match.history, start=1):
        events: list[Event] = []
        scores, after = score_deal(rules, deal, scores, lives, events)
        penalties = [0] * match.seat_count
        for event in events:
            if isinstance(event, PenaltyScored):
                penalties[event.seat] += event.points
        lost = tuple(seat for seat in range(match.seat_count) if after[seat] < lives[seat])
        lines.append(DealScore(
            number=number,
            dealer=deal.dealer,
            last_trick=deal.current_trick(),
            trick_winner=deal.winner,
            penalties=tuple(penalties),
            totals=scores,
            lives=after,
            lives_lost=lost,
            eliminated=tuple(seat for seat in lost if after[seat] == 0),
        ))
        lives = after
    return tuple(lines)
