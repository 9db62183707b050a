"""The fast path (:mod:`app.game.fast`) against the readable engine (:mod:`app.game.match`), by Hypothesis.

The same generator must give the same match card for card: whole random
matches, and deals played out from any position by the searches' rollout
policy, under random rules (docs/rules.md §2–3).
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bots.heuristic import preferred_card
from app.game import Rules, deal_cards, new_match, play, play_out_deal
from app.game.cards import DECK, Card, mask_of
from app.game.fast import (
    followers_of,
    last_trick_payers,
    play_out,
    play_random_match,
    position_of,
    settle,
    shuffle_hands,
    table_for,
)
from app.game.match import last_trick_payers as readable_payers
from app.game.simulate import play_random_match as readable_random_match
from tests.game.test_properties import PLAYERS, RULES, SEEDS

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS)
def test_a_random_match_is_the_readable_engines(rules: Rules, players: int, seed: int) -> None:
    readable = readable_random_match(players, rules, random.Random(seed))
    fast = play_random_match(players, rules, random.Random(seed))
    assert fast.scores == readable.scores
    assert fast.lives == readable.lives
    assert fast.winners == readable.winners
    assert fast.deals == len(readable.history)
    assert fast.plays == sum(len(deal.plays) for deal in readable.history)


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS)
def test_the_shuffle_deals_the_readable_engines_hands(rules: Rules, players: int, seed: int) -> None:
    match, _ = deal_cards(new_match([f"P{seat}" for seat in range(players)], rules), random.Random(seed))
    deal = match.deal
    assert deal is not None
    rng = random.Random(seed)
    rng.choice(range(players))  # the lot for the first dealer, drawn first by deal_cards
    hands = shuffle_hands(deal.order, players, rules.hand_size, rng.random)
    assert [mask_of(hand) for hand in hands] == list(deal.hands)
    assert all(hand == sorted(hand) for hand in hands)


def rollout(first: Card, high_first: bool, epsilon: float, rand):  # type: ignore[no-untyped-def]
    """The hard search's rollout chooser, written plainly: ``first``, then the rule of thumb or a random card."""
    pending = [first]

    def choose(seat: int, legal: int) -> Card:
        if pending:
            return pending.pop()
        if legal & (legal - 1) and rand() < epsilon:
            cards = [card for card in DECK if legal >> card & 1]
            return cards[int(rand() * len(cards))]
        return preferred_card(legal, high_first)

    return choose


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, depth=st.floats(0, 1), epsilon=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
       high_first=st.booleans())
def test_a_play_out_is_the_readable_engines(rules: Rules, players: int, seed: int, depth: float, epsilon: float,
                                            high_first: bool) -> None:
    rng = random.Random(seed)
    match, _ = deal_cards(new_match([f"P{seat}" for seat in range(players)], rules), rng)
    # Walk some way into the deal with random legal cards, then play the rest out both ways.
    for _ in range(int(depth * (len(match.deal.order) * rules.hand_size - 1))):
        match, _ = play(match, rng.choice(match.legal_cards(match.turn)))
    deal = match.deal
    assert deal is not None and deal.turn is not None
    first = rng.choice(match.legal_cards(deal.turn))
    draws = rng.random()
    ended, _ = play_out_deal(match, rollout(first, high_first, epsilon, random.Random(draws).random))

    at = position_of(match)
    assert at.turn == deal.turn
    payers, points = play_out(at.table, list(at.hands), at.followers, at.leader, list(at.trick), at.trick_index,
                              first, random.Random(draws).random, epsilon, high_first)
    readable_seats, readable_points, _ = readable_payers(rules, ended.deal)
    assert (payers, points) == (readable_seats, readable_points)
    scores, lives, winners = settle(at.table, at.followers, at.scores, at.lives, payers, points, at.deals)
    assert (scores, lives, winners) == (ended.scores, ended.lives, ended.winners)


def test_a_position_needs_a_deal_in_progress() -> None:
    with pytest.raises(ValueError, match="no deal"):
        position_of(new_match(["Ana", "Ben"]))


def test_a_card_that_is_not_legal_is_refused() -> None:
    table = table_for(Rules())
    hands = [mask_of([0]), mask_of([4, 8])]  # seat 0: 2C (QC already led); seat 1: 3C, 4C
    # Seat 1 follows a led queen holding only lower cards: only its lowest (3C) is legal, not 4C.
    with pytest.raises(ValueError, match="not legal"):
        play_out(table, hands, followers_of((0, 1)), 0, [40], 0, 8, random.Random(1).random, 0.0, True)


def test_the_last_trick_payers_of_a_forcing_ace() -> None:
    table = table_for(Rules(ace_lead="forces_lowest", last_trick_tie="all_tied"))
    # Seat 2 leads the ace of spades; seat 0's only card is another ace: both pay 14.
    assert last_trick_payers(table, (2, 0, 1), [51, 48, 20]) == ((2, 0), 14)
    assert last_trick_payers(table_for(Rules()), (2, 0, 1), [51, 48, 20]) == ((0,), 14)
