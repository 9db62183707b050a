"""Final and running standings of a match: who placed where.

Placings follow the match's end (docs/rules.md §2.10, §3 ``match_length``):
winners first, then players still in by total, then eliminated players, the
later eliminated ahead.
"""

from __future__ import annotations

from app.game.match import Match, last_trick_payers


def elimination_deals(match: Match) -> list[int | None]:
    """For each seat, the index of the deal (from 0) that eliminated it, or ``None``.

    Replays the scoring of the completed deals (docs/rules.md §2.8); a player
    reinstated later in the same deal counts as not eliminated.
    """
    result: list[int | None] = [None] * match.seat_count
    for index, deal in enumerate(match.history):
        for seat in range(match.seat_count):
            if deal.dealt[seat] and not _in_next(match, index, seat):
                result[seat] = index
    return result


def _in_next(match: Match, index: int, seat: int) -> bool:
    """Whether ``seat`` was still in after deal ``index``."""
    if index + 1 < len(match.history):
        return bool(match.history[index + 1].dealt[seat])
    return match.lives[seat] > 0


def placings(match: Match) -> list[int]:
    """Each seat's place, from 1, with equal places shared (1, 2, 2, 4).

    Winners share place 1. Then players still in, lower total first; then
    eliminated players, the later their elimination the better, lower total
    first within a deal. Meaningful for a match in progress too.
    """
    out = elimination_deals(match)
    winners = set(match.winners)

    def key(seat: int) -> tuple[int, int, int]:
        if seat in winners:
            return (0, 0, 0)
        out_in = out[seat]
        if out_in is None:
            return (1, 0, match.scores[seat])
        return (2, -out_in, match.scores[seat])

    keys = [key(seat) for seat in range(match.seat_count)]
    return [1 + sum(other < mine for other in keys) for mine in keys]


def penalties_per_deal(match: Match) -> list[list[int]]:
    """For each completed deal, the penalty points each seat received (docs/rules.md §2.7)."""
    table = []
    for deal in match.history:
        row = [0] * match.seat_count
        payers, points, _ = last_trick_payers(match.rules, deal)
        for seat in payers:
            row[seat] += points
        table.append(row)
    return table
