"""The exact endgame: canonical hands, the optimum on small positions, and the play-out that ends in it."""

import random

import pytest

from app.bots.endgame import canonical, cost, play_then_solve, solve
from app.bots.play_model import model_card, model_for
from app.game.cards import DECK, mask_of, parse_cards
from app.game.fast import Table, followers_of, last_trick_payers, legal_of, play_out, table_for, trick_state
from app.game.match import last_trick_payers as paid_for
from app.game.match import play
from app.game.rules import Rules
from app.game.views import view_for
from tests.bots.helpers import VARIANTS, random_states

QUICK = table_for(Rules(hand_size=3))
"""Positions below stand at the second of three tricks: two cards a hand."""


def hands_of(*codes: str) -> tuple[int, ...]:
    return tuple(canonical(mask_of(parse_cards(hand.split()))) for hand in codes)


def test_canonical_moves_each_rank_to_its_lowest_suits():
    assert canonical(mask_of(parse_cards(["KS", "KH", "2D"]))) == mask_of(parse_cards(["KC", "KD", "2C"]))
    assert canonical(mask_of(parse_cards(["9C", "9D"]))) == mask_of(parse_cards(["9C", "9D"]))


def test_leading_the_king_makes_the_other_seat_pay_for_the_last_trick():
    # Seat 0 leads from K 3 against Q 2. Leading the king forces the 2 and leaves seat 1 the queen
    # for the last trick (12 points); leading the 3 lets seat 1 win it and leave seat 0 the king.
    hands = hands_of("KC 3C", "QC 2C")
    assert solve(QUICK, hands, followers_of((0, 1)), 0, (), 1) == ((1,), 12)


def test_three_seats_each_play_for_themselves():
    # Seat 0 leads from 6 5 against 8 3 and 9 4, two tricks. Whatever seat 0 leads, seat 1 covers
    # with the 8 and seat 2 takes the trick with the 9 and leads its 4, so seat 0's last card is
    # the highest: it leads the 6 and keeps the 5 to pay 5 rather than 6.
    hands = hands_of("5C 6C", "8C 3C", "9C 4C")
    assert solve(QUICK, hands, followers_of((0, 1, 2)), 0, (), 1) == ((0,), 5)


def test_costs_count_own_penalty_first():
    assert cost(((0,), 13), 0, 2) > cost(((1,), 2), 0, 2)
    assert cost(((1,), 13), 0, 2) < cost(((1,), 2), 0, 2) < 0


def _brute(table: Table, hands: tuple[int, ...], followers: tuple[tuple[int, ...], ...], leader: int,
           trick: tuple[int, ...], trick_index: int) -> tuple[tuple[int, ...], int]:
    """Max^n over every legal card of the real hands (no canonical form, no memory): the reference."""
    seats = (leader, *followers[leader])
    if len(trick) == len(seats):
        if trick_index == table.hand_size - 1:
            return last_trick_payers(table, seats, list(trick))
        winner, _ = trick_state(table, seats, list(trick), trick_index)
        return _brute(table, hands, followers, winner, (), trick_index + 1)
    _, bar = trick_state(table, seats, list(trick), trick_index)
    seat = seats[len(trick)]
    legal = legal_of(table, hands[seat], bar)
    ranks = sorted({card >> 2 for card in range(52) if legal >> card & 1}, reverse=True)
    best = None
    best_cost = 0.0
    for rank in ranks:
        card = next(card for card in range(52) if legal >> card & 1 and card >> 2 == rank)
        after = list(hands)
        after[seat] ^= 1 << card
        ending = _brute(table, tuple(after), followers, leader, (*trick, card), trick_index)
        value = cost(ending, seat, len(seats))
        if best is None or value < best_cost or (value == best_cost and not table.highest):
            best, best_cost = ending, value
    assert best is not None
    return best


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_solve_equals_a_plain_search_over_the_real_hands(name):
    rules = VARIANTS[name]
    table = table_for(rules)
    rng = random.Random(name)
    checked = 0
    for match in random_states(rules, rng.choice([2, 3, 4]), rng, 80):
        deal = match.deal
        if max(hand.bit_count() for hand in deal.hands) > 3:
            continue
        followers = followers_of(deal.order)
        trick = tuple(int(card) for card in deal.plays[deal.trick_start:])
        expected = _brute(table, deal.hands, followers, deal.leader, trick, deal.trick_number)
        found = solve(table, tuple(canonical(hand) for hand in deal.hands), followers, deal.leader, trick,
                      deal.trick_number)
        assert found == expected
        checked += 1
    assert checked


@pytest.mark.parametrize("name", ["agurk", "inverse", "must_match", "forces_lowest"])
def test_play_then_solve_is_the_rule_of_thumb_then_the_exact_end(name):
    rules = VARIANTS[name]
    table = table_for(rules)
    high_first = rules.penalty_to == "highest"
    rng = random.Random(name)
    for match in random_states(rules, 3, rng, 30):
        deal = match.deal
        followers = followers_of(deal.order)
        trick = [int(card) for card in deal.plays[deal.trick_start:]]
        legal = legal_of(table, deal.hands[deal.turn], trick_state(table, (deal.leader, *followers[deal.leader]),
                                                                   trick, deal.trick_number)[1])
        first = legal.bit_length() - 1
        # Solving only the last trick (one card each, no choice) is the rule of thumb's play-out.
        ruled = play_then_solve(table, list(deal.hands), followers, deal.leader, list(trick), deal.trick_number,
                                first, rng.random, 0.0, high_first, 1)
        assert ruled == play_out(table, list(deal.hands), followers, deal.leader, list(trick), deal.trick_number,
                                 first, rng.random, 0.0, high_first)
        # Solving from the first card on is the exact result of the position after it.
        exact = play_then_solve(table, list(deal.hands), followers, deal.leader, list(trick), deal.trick_number,
                                first, rng.random, 0.0, high_first, rules.hand_size)
        after = list(deal.hands)
        after[deal.turn] ^= 1 << first
        seats = (deal.leader, *followers[deal.leader])
        played = [*trick, first]
        if len(played) == len(seats):
            if deal.trick_number == rules.hand_size - 1:
                assert exact == last_trick_payers(table, seats, played)
                continue
            leader, played, index = trick_state(table, seats, played, deal.trick_number)[0], [], deal.trick_number + 1
        else:
            leader, index = deal.leader, deal.trick_number
        assert exact == solve(table, tuple(canonical(hand) for hand in after), followers, leader, tuple(played), index)



def test_with_a_model_every_seat_draws_its_cards_from_it_until_the_exact_end():
    # The readable engine plays the same rest of the deal card by card, each seat drawing from the
    # model with the same stream of chance, given the bar of the trick's highest rank.
    rules = VARIANTS["agurk"]
    table = table_for(rules)
    states = random.Random("model")
    for players in (2, 4):
        model = model_for(players)
        for start in random_states(rules, players, states, 25):
            match = start
            deal = match.deal
            followers = followers_of(deal.order)
            trick = [int(card) for card in deal.plays[deal.trick_start:]]
            first = mask_of(view_for(match, deal.turn).you.legal).bit_length() - 1
            solve_at = 4 if players == 2 else 1
            ending = play_then_solve(table, list(deal.hands), followers, deal.leader, list(trick), deal.trick_number,
                                     first, random.Random(players).random, 0.0, True, solve_at, model)
            rand = random.Random(players).random
            card = first
            while True:
                match, _ = play(match, DECK[card])
                if match.deal is None or match.deal.is_complete:
                    break
                if rules.hand_size - match.deal.trick_number <= solve_at:
                    break
                you = view_for(match, match.deal.turn).you
                played = match.deal.plays[match.deal.trick_start:]
                top = max((int(c) >> 2 for c in played), default=0)
                bar = sum(1 << number for number in range(52) if number >> 2 >= top)
                card = model_card(model, mask_of(you.hand), mask_of(you.legal), bar, not played,
                                  len(played) == players - 1, rand)
            if match.deal is not None and not match.deal.is_complete:
                deal = match.deal
                hands = tuple(canonical(hand) for hand in deal.hands)
                now = tuple(int(card) for card in deal.plays[deal.trick_start:])
                assert ending == solve(table, hands, followers, deal.leader, now, deal.trick_number)
                continue
            finished = match.history[-1] if match.deal is None or not match.deal.is_complete else match.deal
            payers, points, _ = paid_for(rules, finished)
            assert ending == (tuple(payers), points)
