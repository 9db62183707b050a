"""Exact play of the rest of a deal when every hand is known: the ``expert`` bot's endgame.

Cards differ only by rank (docs/rules.md §1) and only the last trick scores
(§2.7), so the end of a deal with a few cards a hand is a small game. This
module finds how it ends when every player sees every hand and plays to
pay as little as possible (max^n: each seat picks the card that is best
for itself, assuming the same of everyone after it).

Hands are bit sets (as in :mod:`app.game.cards`) in *canonical* form: a
hand's cards of one rank are always that rank's lowest suits, so hands
that differ only by suit are one position. :func:`canonical` makes one;
playing a rank removes its highest suit, which keeps the form.
"""

from __future__ import annotations

from collections.abc import Callable

from app.bots.play_model import PlayModel, model_card
from app.game.fast import Table, last_trick_payers, legal_of, trick_state

Ending = tuple[tuple[int, ...], int]
"""How a deal ends: the seats that pay for its last trick and the points each adds (§2.7, §3)."""

MAX_MEMO = 50_000
"""Positions remembered per set of rules before the memory is cleared: a bound on the memory of each process
where an expert thinks."""

SPITE = 0.01
"""How much a seat's :func:`cost` counts the others' penalty against its own."""

Position = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int, tuple[int, ...], int]
"""A position as remembered: the hands, the seat order (``followers``), the leader, the trick and its index."""

_MEMOS: dict[Table, dict[Position, Ending]] = {}


def canonical(hand: int) -> int:
    """``hand`` (a bit set of cards) with each rank's cards moved to that rank's lowest suits."""
    out = 0
    while hand:
        low = (hand & -hand).bit_length() - 1
        base = low & ~3
        count = (hand >> base & 0xF).bit_count()
        out |= ((1 << count) - 1) << base
        hand &= ~(0xF << base)
    return out


def cost(ending: Ending, seat: int, players: int) -> float:
    """What ``ending`` costs ``seat``, in points: its own penalty less the mean penalty of the others.

    ``players`` is how many seats are in the deal (at least 2). Paying
    nothing is better when another seat pays more, so that a seat that
    cannot be hurt still plays against the others.
    """
    payers, points = ending
    mine = points if seat in payers else 0
    others = points * len(payers) - mine
    return mine - SPITE * others / (players - 1)


def solve(table: Table, hands: tuple[int, ...], followers: tuple[tuple[int, ...], ...], leader: int,
          trick: tuple[int, ...], trick_index: int) -> Ending:
    """How the deal ends from this position when everyone plays it perfectly for themselves.

    ``hands`` are every seat's cards now, canonical (:func:`canonical`);
    ``followers`` the deal's :func:`~app.game.fast.followers_of`;
    ``leader`` leads trick ``trick_index`` (from 0), in which ``trick``
    (card numbers, in play order) has been played. Every seat to play picks
    the rank of least :func:`cost` to itself given the best replies after it
    (among equal ones the rule of thumb's: the highest rank under the
    default penalty, the lowest under inverse cucumber); the rules are those of ``table`` (§2.3–2.7,
    §3). Positions are remembered between calls, per ``table``.
    """
    memo = _MEMOS.get(table)
    if memo is None or len(memo) > MAX_MEMO:
        memo = _MEMOS[table] = {}
    return _solve(table, memo, hands, followers, leader, trick, trick_index)


def _solve(table: Table, memo: dict[Position, Ending],
           hands: tuple[int, ...], followers: tuple[tuple[int, ...], ...], leader: int, trick: tuple[int, ...],
           trick_index: int) -> Ending:
    """:func:`solve` with its memory."""
    key = (hands, followers, leader, trick, trick_index)
    found = memo.get(key)
    if found is not None:
        return found
    seats = (leader, *followers[leader])
    players = len(seats)
    last = trick_index == table.hand_size - 1
    if last and not trick:  # one card each: nothing left to choose
        ending = last_trick_payers(table, seats, [hands[seat] .bit_length() - 1 for seat in seats])
        memo[key] = ending
        return ending
    _, bar = trick_state(table, seats, list(trick), trick_index)
    seat = seats[len(trick)]
    hand = hands[seat]
    legal = legal_of(table, hand, bar)
    best: Ending | None = None
    best_cost = 0.0
    while legal:
        top = legal.bit_length() - 1
        base = top & ~3
        legal &= ~(0xF << base)
        card = (hand >> base & 0xF).bit_length() - 1 + base  # the rank's highest suit keeps the hand canonical
        after = list(hands)
        after[seat] = hand ^ (1 << card)
        played = (*trick, card)
        if len(played) < players:
            ending = _solve(table, memo, tuple(after), followers, leader, played, trick_index)
        elif last:
            ending = last_trick_payers(table, seats, list(played))
        else:
            winner, _ = trick_state(table, seats, list(played), trick_index)
            ending = _solve(table, memo, tuple(after), followers, winner, (), trick_index + 1)
        value = cost(ending, seat, players)
        if best is None or value < best_cost or (value == best_cost and not table.highest):
            best, best_cost = ending, value
    assert best is not None, "a seat to play has a legal card"
    memo[key] = best
    return best


def play_then_solve(table: Table, hands: list[int], followers: tuple[tuple[int, ...], ...], leader: int,
                    trick: list[int], trick_index: int, first: int, rand: Callable[[], float], epsilon: float,
                    high_first: bool, solve_at: int, model: PlayModel | None = None) -> Ending:
    """Play ``first`` and the rest of the deal: by the rule of thumb until hands are small, then exactly.

    The position is as in :func:`~app.game.fast.play_out` (``hands`` bit
    sets per seat, changed in place; ``first`` legal for the seat to play).
    While a trick would start with more than ``solve_at`` cards a hand, each
    card is the rule of thumb's (the highest legal rank when ``high_first``,
    else the lowest; with chance ``epsilon`` a legal card at random); from
    the first trick that starts with at most ``solve_at`` cards a hand, or
    at once when the position is already that small, :func:`solve` ends the
    deal. With a ``model`` every seat's cards before that are drawn from it
    (:func:`~app.bots.play_model.model_card`) instead, with no other random
    play. Returns its :data:`Ending` (docs/rules.md §2.3–2.7, §3).
    """
    size = table.hand_size
    seats = (leader, *followers[leader])
    card = first
    while True:
        seat = seats[len(trick)]
        hands[seat] ^= 1 << card
        trick.append(card)
        if len(trick) == len(seats):
            if trick_index == size - 1:
                return last_trick_payers(table, seats, trick)
            leader, _ = trick_state(table, seats, trick, trick_index)
            seats = (leader, *followers[leader])
            trick, trick_index = [], trick_index + 1
        if size - trick_index <= solve_at:
            return solve(table, tuple(canonical(hand) for hand in hands), followers, leader, tuple(trick),
                         trick_index)
        _, bar = trick_state(table, seats, trick, trick_index)
        seat = seats[len(trick)]
        legal = legal_of(table, hands[seat], bar)
        if model is not None:
            card = model_card(model, hands[seat], legal, bar, not trick, len(trick) == len(seats) - 1, rand)
        elif legal & (legal - 1) and rand() < epsilon:
            skip = int(rand() * legal.bit_count())
            while skip:
                legal &= legal - 1
                skip -= 1
            card = (legal & -legal).bit_length() - 1
        elif high_first:
            card = legal.bit_length() - 1
        else:
            card = (legal & -legal).bit_length() - 1
