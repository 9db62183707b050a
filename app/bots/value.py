"""How good a match position is for one seat: an estimate of its share of the win.

The ``hard`` search scores the end of every simulated deal with it, so that
penalty points count by what they do to lives, eliminations and the win.
"""

from __future__ import annotations

from app.game.match import Match

SPARE_LIFE_ROOM = 0.5
"""A spare life is worth this fraction of the threshold in extra room: after
losing a life a player continues on the highest total of the others
(docs/rules.md §2.8), which is rarely 0."""

ROOM_EXPONENT = 2.0
"""Shares grow faster than room: a player far from the threshold usually
outlasts several near it."""


def win_share(match: Match, seat: int) -> float:
    """Estimated share of the win of ``seat`` in ``match``, from 0 to 1.

    A finished match gives the real share (1 divided among tied winners,
    docs/rules.md §2.10, §3 ``match_length``); an eliminated seat gets 0.
    Otherwise each active player's *room* is the points it can still take
    before the threshold plus :data:`SPARE_LIFE_ROOM` of the threshold per
    spare life (§2.8), and the share is ``room ** ROOM_EXPONENT`` over the
    sum of that for every active player.
    """
    if match.finished:
        return 1 / len(match.winners) if seat in match.winners else 0.0
    return share_of(match.rules.threshold, match.scores, match.lives, seat)


def share_of(threshold: int, scores: tuple[int, ...], lives: tuple[int, ...], seat: int,
             winners: tuple[int, ...] = ()) -> float:
    """:func:`win_share` from plain totals, lives (0 = eliminated) and winners (empty while the match goes on).

    For the searches that play deals on :mod:`app.game.fast` and never build
    a :class:`~app.game.match.Match`. Returns a share from 0 to 1.
    """
    if winners:
        return 1 / len(winners) if seat in winners else 0.0
    if not lives[seat]:
        return 0.0
    spare = SPARE_LIFE_ROOM * threshold
    mine = 0.0
    total = 0.0
    for other, left in enumerate(lives):
        if left:
            weight = (max(threshold - scores[other], 1) + (left - 1) * spare) ** ROOM_EXPONENT
            total += weight
            if other == seat:
                mine = weight
    return mine / total
