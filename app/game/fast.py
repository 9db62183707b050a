"""The fast path of the rules engine, for simulations and searches.

:mod:`app.game.match` is the readable engine: immutable states, one per
transition, with events. The searches of the bots and the engine benchmark
play millions of cards and need none of that, so this module plays the same
rules (docs/rules.md §2–3) on plain ints and lists, with no state or event
objects. Property tests (``tests/game/test_fast_engine.py``) check it against
the readable engine card for card: the same generator gives the same match.

Hands are bit sets (bit ``card`` set for each card, as in
:mod:`app.game.cards`), except inside :func:`play_random_match`, which keeps
sorted lists of card numbers; cards are their numbers 0–51.

The API, all pure apart from the injected ``rand`` / ``rng``:

- :func:`table_for` — the rule constants of a :class:`~app.game.rules.Rules`.
- :func:`position_of` — a readable match's deal in progress as the plain
  values :func:`play_out` and :func:`settle` take.
- :func:`play_random_match` — a whole match between random-legal players.
- :func:`play_out` — the rest of one deal from any position, each card by
  the rule of thumb with some random play; returns the last trick's payers.
- :func:`settle` — scores and lives after a deal's penalty (§2.7–2.10).
- :func:`followers_of` — who follows each leader in a deal's seating.
- :func:`trick_state` and :func:`legal_of` — who wins a trick so far, and
  the legal cards of a hand in it.
"""

from __future__ import annotations

import functools
import random
from bisect import bisect_left
from collections.abc import Callable
from typing import NamedTuple

from app.game.match import Match
from app.game.rules import Rules

ALL = (1 << 52) - 1
ACES = 48
"""The first ace's card number: (14 - 2) * 4."""
BITS = tuple(1 << card for card in range(52))
CARDS = range(52)
LOWEST_OF = (0, *(0xF << ((length - 1) & ~3) for length in range(1, 53)))
"""``hand & LOWEST_OF[(hand & -hand).bit_length()]``: the cards of ``hand``'s lowest rank."""
AT_LEAST = tuple(ALL >> (card & ~3) << (card & ~3) for card in range(52))
"""``AT_LEAST[card]``: every card of ``card``'s rank or higher."""


class Table(NamedTuple):
    """The constants of one set of rules that the fast loops read (docs/rules.md §3).

    ``forcing_from`` is the first trick (from 0) in which a led ace forces
    every follower's lowest card (``hand_size`` when never); ``highest`` is
    ``penalty_to == "highest"``; ``fixed_length`` the number of deals of a
    fixed-length match, 0 for elimination.
    """

    hand_size: int
    must_match: bool
    forcing_from: int
    highest: bool
    all_tied: bool
    threshold: int
    lives: int
    min_opponents: int
    fixed_length: int


@functools.lru_cache(maxsize=256)
def table_for(rules: Rules) -> Table:
    """The :class:`Table` of ``rules`` (cached: rules are immutable and few)."""
    hand_size = rules.hand_size
    forcing_from = {"forces_lowest": 0, "forces_lowest_last_trick": hand_size - 1}.get(rules.ace_lead, hand_size)
    length = rules.match_length
    return Table(hand_size, rules.follow == "must_match", forcing_from, rules.penalty_to == "highest",
                 rules.last_trick_tie == "all_tied", rules.threshold, rules.lives,
                 rules.second_life_min_opponents, length if isinstance(length, int) else 0)


@functools.lru_cache(maxsize=4096)
def seating(lives: tuple[int, ...], dealer: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The seats in a deal of ``dealer`` clockwise from the dealer's left, and :func:`followers_of` them.

    ``lives`` gives who is still in (non-zero); the dealer must be one of
    them (docs/rules.md §2.2–2.3).
    """
    count = len(lives)
    order = tuple(s for s in ((dealer + step) % count for step in range(1, count + 1)) if lives[s])
    return order, followers_of(order)


@functools.cache
def followers_of(order: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each seat of ``order``, the seats after it in a trick it leads, clockwise.

    Indexed by seat (an empty tuple for a seat not in the deal).
    """
    result: list[tuple[int, ...]] = [()] * (max(order) + 1)
    for index, seat in enumerate(order):
        result[seat] = order[index + 1:] + order[:index]
    return tuple(result)


def next_dealer(lives: tuple[int, ...], previous: int) -> int:
    """The next active seat to the left of ``previous`` (docs/rules.md §2.9)."""
    count = len(lives)
    for step in range(1, count + 1):
        seat = (previous + step) % count
        if lives[seat]:
            return seat
    raise ValueError("nobody is left to deal")


def shuffle_hands(order: tuple[int, ...], seat_count: int, hand_size: int,
                  rand: Callable[[], float]) -> list[list[int]]:
    """Shuffle a full pack with ``rand`` and deal ``hand_size`` cards to each seat of ``order`` (§2.2).

    Draws exactly what :func:`app.game.match.deal_cards` draws (a random key
    per card in card order, the pack sorted by key, one card at a time
    clockwise from the dealer's left), so the same generator gives the
    same hands. Returns each seat's card numbers, lowest first (empty for a
    seat not in the deal).
    """
    deck = sorted(CARDS, key=lambda _: rand())
    count = len(order)
    needed = hand_size * count
    hands: list[list[int]] = [[] for _ in range(seat_count)]
    for index, seat in enumerate(order):
        hand = hands[seat] = deck[index:needed:count]
        hand.sort()
    return hands


class Position(NamedTuple):
    """A deal in progress as plain values (see :func:`position_of`).

    ``hands`` per seat (bit sets), ``followers`` (:func:`followers_of` the
    deal's seats), ``leader`` and ``trick`` (card numbers so far) of the
    current trick, ``trick_index`` from 0, ``turn`` (the seat to play), and
    the totals, lives and deals (this one included) that :func:`settle` needs.
    """

    table: Table
    hands: tuple[int, ...]
    followers: tuple[tuple[int, ...], ...]
    leader: int
    trick: tuple[int, ...]
    trick_index: int
    turn: int
    scores: tuple[int, ...]
    lives: tuple[int, ...]
    deals: int


def position_of(match: Match) -> Position:
    """The deal in progress of ``match`` as a :class:`Position`.

    For searches over a real (or a sampled) match. A deal in progress only:
    raises ``ValueError`` when nobody is to play. Typical use, scoring each
    candidate card ``first`` of the seat to play in one world::

        at = position_of(match)
        payers, points = play_out(at.table, list(at.hands), at.followers, at.leader, list(at.trick),
                                  at.trick_index, first, rng.random, 0.1, True)
        scores, lives, winners = settle(at.table, at.followers, at.scores, at.lives, payers, points, at.deals)
    """
    deal = match.deal
    if match.finished or deal is None or deal.turn is None:
        raise ValueError("no deal is in progress")
    trick = tuple(int(card) for card in deal.plays[deal.trick_start:])
    return Position(table_for(match.rules), deal.hands, followers_of(deal.order), deal.leader, trick,
                    deal.trick_number, deal.turn, match.scores, match.lives, len(match.history) + 1)


class Outcome(NamedTuple):
    """The end of a match played by :func:`play_random_match`.

    ``scores`` and ``lives`` per seat, ``winners`` (seats sharing the win),
    ``deals`` played and ``plays`` (cards played in all).
    """

    scores: tuple[int, ...]
    lives: tuple[int, ...]
    winners: tuple[int, ...]
    deals: int
    plays: int


def play_random_match(seat_count: int, rules: Rules, rng: random.Random) -> Outcome:
    """A whole match of ``seat_count`` random-legal players under ``rules`` (docs/rules.md §2–3).

    Every card is uniform among the legal ones. Draws from ``rng`` exactly
    as :func:`app.game.simulate.play_random_match` does, so both give the
    same match for the same generator. Raises ``ValueError`` for fewer
    than 2 or more than 7 seats.
    """
    if not 2 <= seat_count <= 7:
        raise ValueError(f"a match needs 2 to 7 players, not {seat_count}")
    table = table_for(rules)
    rand = rng.random
    hand_size = table.hand_size
    scores = (0,) * seat_count
    lives = (table.lives,) * seat_count
    dealer = rng.choice(range(seat_count))
    deals = plays = 0
    winners: tuple[int, ...] = ()
    while not winners:
        if deals:
            dealer = next_dealer(lives, dealer)
        order, followers = seating(lives, dealer)
        hands = shuffle_hands(order, seat_count, hand_size, rand)
        seats, cards = _random_tricks(table, hands, followers, order[0], rand)
        plays += hand_size * len(order)
        payers, points = last_trick_payers(table, seats, cards)
        deals += 1
        scores, lives, winners = settle(table, followers, scores, lives, payers, points, deals)
    return Outcome(scores, lives, winners, deals, plays)


def _random_tricks(table: Table, hands: list[list[int]], followers: tuple[tuple[int, ...], ...], leader: int,
                   rand: Callable[[], float]) -> tuple[tuple[int, ...], list[int]]:
    """Play a fresh deal with every card uniform among the legal ones; return the last trick.

    ``hands`` are sorted lists of card numbers (changed in place). The legal
    cards of a follower are two runs of the sorted hand: the lowest rank
    (its first ``low`` cards) and everything from the bar's rank up (from
    index ``at``), found by bisection (docs/rules.md §2.4, §3 ``follow``).
    The ``k``-th legal card counted from the lowest is the one the readable
    engine's bit loop picks for the same draw: the same draws as
    :func:`app.game.match.play_out_deal` with a generator (the leader draws
    among their whole hand, a follower only when more than one card is
    legal, nobody in the last trick). Returns the last trick's seats and
    cards in play order.
    """
    hand_size, must_match, forcing_from = table.hand_size, table.must_match, table.forcing_from
    find = bisect_left
    for trick in range(hand_size - 1):
        size = hand_size - trick  # every hand holds this many cards (>= 2) as the trick starts
        hand = hands[leader]
        winning = hand.pop(int(rand() * size))
        winner = leader
        # Cards from ``floor`` up reach the bar; a forcing ace lets none (§3 ``ace_lead``).
        floor = 52 if winning >= ACES and trick >= forcing_from else winning & ~3
        for seat in followers[leader]:
            hand = hands[seat]
            at = find(hand, floor)
            if at == 0:  # every card reaches the bar
                card = hand.pop(int(rand() * size))
            elif must_match and at < size:
                card = hand.pop(at + int(rand() * (size - at))) if size - at > 1 else hand.pop(at)
            else:
                low = find(hand, (hand[0] | 3) + 1)
                if must_match:
                    at = size  # nothing reaches the bar: the lowest rank only
                if at <= low:  # the two runs meet: every card is legal
                    card = hand.pop(int(rand() * size))
                else:
                    count = low + size - at
                    if count > 1:
                        pick = int(rand() * count)
                        card = hand.pop(pick if pick < low else at + pick - low)
                    else:
                        card = hand.pop(0)
            if card >= floor:  # at least the highest so far: the later card wins ties (§2.5)
                winner = seat
                floor = card & ~3
        leader = winner
    seats = (leader, *followers[leader])
    return seats, [hands[seat][0] for seat in seats]


def play_out(table: Table, hands: list[int], followers: tuple[tuple[int, ...], ...], leader: int,
             trick: list[int], trick_index: int, first: int, rand: Callable[[], float], epsilon: float,
             high_first: bool) -> tuple[tuple[int, ...], int]:
    """Play the rest of a deal; return who pays for its last trick and how much.

    The deal stands at trick ``trick_index`` (from 0), led by ``leader``,
    with ``trick`` the card numbers played in it so far (in play order);
    ``hands`` holds each seat's cards now (bit sets, changed in place) and
    ``followers`` comes from :func:`followers_of`. The seat to play plays
    ``first``, which must be legal; every later card is the rule of thumb
    (the highest legal rank when ``high_first``, else the lowest, its
    lowest suit: :func:`app.bots.heuristic.preferred_card`), except that
    when more than one card is legal, with chance ``epsilon`` it is uniform
    among the legal ones. Draws from ``rand`` exactly as the ``hard``
    search's rollout through :func:`app.game.match.play_out_deal` does.

    Returns ``(payers, points)`` as :func:`last_trick_payers`
    (docs/rules.md §2.3–2.7, §3). Raises ``ValueError`` if ``first`` is not legal.
    """
    hand_size, must_match, forcing_from = table.hand_size, table.must_match, table.forcing_from
    low_of, at_least = LOWEST_OF, AT_LEAST
    pending = True
    while True:
        seats = (leader, *followers[leader])
        cards = list(trick)
        winner, bar = trick_state(table, seats, cards, trick_index)
        for seat in seats[len(cards):]:
            hand = hands[seat]
            if must_match:
                legal = hand & bar or hand & low_of[(hand & -hand).bit_length()]
            else:
                legal = hand & (bar | low_of[(hand & -hand).bit_length()])
            if pending:
                pending = False
                if not legal >> first & 1:
                    raise ValueError(f"card {first} is not legal for seat {seat}")
                card = first
            elif legal & (legal - 1) and rand() < epsilon:
                skip = int(rand() * legal.bit_count())
                while skip:
                    legal &= legal - 1
                    skip -= 1
                card = (legal & -legal).bit_length() - 1
            elif high_first:
                top = (legal.bit_length() - 1) & ~3
                rank_cards = legal >> top
                card = top + (rank_cards & -rank_cards).bit_length() - 1
            else:
                card = (legal & -legal).bit_length() - 1
            hands[seat] = hand ^ (1 << card)
            cards.append(card)
            if winner < 0:
                winner = seat
                bar = 0 if card >= ACES and trick_index >= forcing_from else at_least[card]
            elif bar >> card & 1:
                winner = seat
                bar = at_least[card]
        if trick_index == hand_size - 1:
            return last_trick_payers(table, seats, cards)
        leader = winner
        trick = []
        trick_index += 1


def trick_state(table: Table, seats: tuple[int, ...], cards: list[int], trick_index: int) -> tuple[int, int]:
    """The seat winning a trick so far and the bar a follower's card must reach, as a bit set.

    ``seats`` starts with the trick's leader, ``cards`` are the cards played
    in it so far (in play order), ``trick_index`` is the trick's index from
    0. An empty trick gives ``(-1, ALL)``; a forcing led ace gives a bar of
    0: only the lowest card may follow (docs/rules.md §2.4–2.5, §3 ``ace_lead``).
    """
    winner = -1
    bar = ALL
    for seat, card in zip(seats, cards, strict=False):
        if winner < 0:
            winner = seat
            bar = 0 if card >= ACES and trick_index >= table.forcing_from else AT_LEAST[card]
        elif bar >> card & 1:
            winner = seat
            bar = AT_LEAST[card]
    return winner, bar


def legal_of(table: Table, hand: int, bar: int) -> int:
    """The cards of ``hand`` that may be played against ``bar`` (from :func:`trick_state`), as a bit set (§2.4, §3)."""
    lowest = hand & LOWEST_OF[(hand & -hand).bit_length()]
    return (hand & bar or lowest) if table.must_match else hand & (bar | lowest)


def last_trick_payers(table: Table, seats: tuple[int, ...], cards: list[int]) -> tuple[tuple[int, ...], int]:
    """Who pays for a complete last trick and how many points each adds (docs/rules.md §2.5, §2.7, §3).

    ``seats`` and ``cards`` are the trick in play order. Under ``highest``
    the winner (the last of the highest rank) pays that card's value; with
    ``all_tied`` everyone of that rank does. Under ``lowest`` the last
    player of the lowest rank (everyone of it with ``all_tied``) pays the
    value of the highest card. A forcing led ace (§3 ``ace_lead``) wins
    and names the value.
    """
    ranks = [card >> 2 for card in cards]
    if table.highest:
        if cards[0] >= ACES and table.forcing_from < table.hand_size:
            pay_rank = 12  # a led ace forcing the last trick wins it
            payer = seats[0]
        else:
            pay_rank = max(ranks)
            payer = seats[len(ranks) - 1 - ranks[::-1].index(pay_rank)]
        points = pay_rank + 2
    else:
        pay_rank = min(ranks)
        payer = seats[len(ranks) - 1 - ranks[::-1].index(pay_rank)]
        points = max(ranks) + 2
    if table.all_tied:
        return tuple(seat for seat, rank in zip(seats, ranks, strict=True) if rank == pay_rank), points
    return (payer,), points


def settle(table: Table, followers: tuple[tuple[int, ...], ...], scores: tuple[int, ...], lives: tuple[int, ...],
           payers: tuple[int, ...], points: int, deals: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                                                   tuple[int, ...]]:
    """Scores, lives and winners after a deal whose last trick ``payers`` pay ``points`` each.

    ``scores`` and ``lives`` are every seat's at the start of the deal,
    ``followers`` the deal's :func:`followers_of`, ``deals`` how many deals
    have been played including this one. Applies the threshold, lives,
    second-life rule and reinstatement (docs/rules.md §2.7–2.8, §3) and
    the end of the match (§2.10, §3 ``match_length``). ``winners`` is empty
    while the match goes on.
    """
    threshold = table.threshold
    new = list(scores)
    crossed = []
    for seat in payers:
        new[seat] += points
        if new[seat] >= threshold:
            crossed.append(seat)
    last_deal = 0 < table.fixed_length <= deals
    if not crossed and not last_deal:
        return tuple(new), lives, ()
    left = list(lives)
    if crossed:
        others = len(followers[payers[0]])
        eliminated = []
        for seat in crossed:
            if left[seat] > 1 and others >= table.min_opponents:
                left[seat] -= 1
                new[seat] = max(scores[other] for other in followers[seat])
            else:
                left[seat] = 0
                eliminated.append(seat)
        if not any(left):
            lowest = min(new[seat] for seat in eliminated)
            for seat in eliminated:
                if new[seat] == lowest:
                    left[seat] = 1
    active = [seat for seat, alive in enumerate(left) if alive]
    winners: tuple[int, ...] = ()
    if len(active) == 1:
        winners = (active[0],)
    elif last_deal:
        best = min(new[seat] for seat in active)
        winners = tuple(seat for seat in active if new[seat] == best)
    return tuple(new), tuple(left), winners
