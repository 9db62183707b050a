"""The model of play counted from the ``hard`` bot: kinds of cards, draws, the shipped file and the script."""

import json
import random
from collections import Counter
from itertools import pairwise

import pytest

from app.bots.play_model import (
    FOLLOW_KINDS,
    HIGHEST,
    LOWEST,
    LOWEST_REACHING,
    MIDDLE_REACHING,
    card_of_kind,
    from_counts,
    kind_of,
    model_card,
    model_for,
)
from app.game.cards import mask_of, parse_cards
from app.game.fast import table_for, trick_state
from app.game.views import view_for
from bench.learn_play import OUT, count_deal, empty_counts
from tests.bots.helpers import VARIANTS, random_states


def cards(codes):
    return mask_of(parse_cards(codes.split()))


def number(code):
    return int(parse_cards([code])[0])


def positions(players, count, seed):
    """(hand, legal, bar, leading, last) of seats to play in random house-rules matches."""
    rules = VARIANTS["agurk"]
    table = table_for(rules)
    for match in random_states(rules, players, random.Random(seed), count):
        deal = match.deal
        you = view_for(match, deal.turn).you
        played = [int(card) for card in deal.plays[deal.trick_start:]]
        seats = (deal.leader, *(deal.order[(deal.order.index(deal.leader) + step) % len(deal.order)]
                                for step in range(1, len(deal.order))))
        _, bar = trick_state(table, seats, played, deal.trick_number)
        yield mask_of(you.hand), mask_of(you.legal), bar, not played, len(played) == players - 1


def test_the_kinds_of_a_follower_s_cards():
    bar = cards(" ".join(f"{rank}{suit}" for rank in "89TJQKA" for suit in "CDHS"))  # an 8 leads
    hand = cards("AS QD 9H 9C 5S 2D")
    legal = cards("AS QD 9H 9C 2D")
    assert kind_of(hand, legal, bar, False, number("AS")) == HIGHEST
    assert kind_of(hand, legal, bar, False, number("9H")) == LOWEST_REACHING
    assert kind_of(hand, legal, bar, False, number("QD")) == MIDDLE_REACHING
    assert kind_of(hand, legal, bar, False, number("2D")) == LOWEST
    assert card_of_kind(hand, legal, bar, False, HIGHEST) == number("AS")
    assert card_of_kind(hand, legal, bar, False, LOWEST_REACHING) == number("9C")  # the rank's lowest suit
    assert card_of_kind(hand, legal, bar, False, MIDDLE_REACHING) == number("QD")
    assert card_of_kind(hand, legal, bar, False, LOWEST) == number("2D")


def test_a_lead_is_its_rank_s_place_from_the_top():
    hand = cards("AS KD 9H 9C 5S 2D")
    assert [kind_of(hand, hand, 0, True, number(code)) for code in ("AS", "KD", "9C", "5S", "2D")] == [0, 1, 2, 3, 4]
    assert card_of_kind(hand, hand, 0, True, 2) == number("9C")
    assert card_of_kind(hand, hand, 0, True, 6) == number("2D")  # past the ranks: the lowest


def test_every_kind_that_a_legal_card_has_is_played_back_and_always_legally():
    for hand, legal, bar, leading, _ in positions(4, 300, "kinds"):
        kinds = {kind_of(hand, legal, bar, leading, card) for card in range(52) if legal >> card & 1}
        for kind in range(7 if leading else len(FOLLOW_KINDS)):
            card = card_of_kind(hand, legal, bar, leading, kind)
            assert legal >> card & 1
            if kind in kinds and kind != MIDDLE_REACHING:
                assert kind_of(hand, legal, bar, leading, card) == kind


def test_draws_follow_the_model_s_chances():
    model = model_for(4)
    hand = cards("AS KD 9H 7C 5S 2D")  # six cards, leading
    rand = random.Random(3).random
    draws = Counter(kind_of(hand, hand, 0, True, model_card(model, hand, hand, 0, True, False, rand))
                    for _ in range(20_000))
    row = model.leads[6]
    chances = [row[0], *(b - a for a, b in pairwise(row))]
    for kind, chance in enumerate(chances):
        assert abs(draws[kind] / 20_000 - chance) < 0.015


def test_a_single_legal_rank_is_played_without_a_draw():
    model = model_for(2)
    hand = cards("AS KD 2D 2C")
    legal = cards("2D 2C")

    def no_draw():
        raise AssertionError("no chance is needed")

    assert model_card(model, hand, legal, cards("AS AD AH"), False, True, no_draw) == number("2C")


def test_drawn_cards_are_legal():
    rng = random.Random(5)
    for players in (2, 3, 4):
        model = model_for(players)
        for hand, legal, bar, leading, last in positions(players, 200, players):
            assert legal >> model_card(model, hand, legal, bar, leading, last, rng.random) & 1


def test_the_shipped_model_is_the_script_s_and_every_row_rises_to_one():
    shipped = json.loads(OUT.read_text(encoding="utf-8"))
    assert set(shipped["tables"]) == {"heads_up", "more"}
    assert shipped["follow_kinds"] == list(FOLLOW_KINDS)
    for players in (2, 4):
        model = model_for(players)
        for row in (*model.leads[2:], *model.follows[4:]):
            assert all(0 < a < b for a, b in pairwise(row)) and row[-1] == 1.0


def test_malformed_counts_are_refused():
    counts = empty_counts()
    counts["lead"]["5"] = [1, 2]
    with pytest.raises(ValueError, match="5 cards"):
        from_counts(counts)
    counts = empty_counts()
    del counts["follow"]["3"]
    with pytest.raises(KeyError):
        from_counts(counts)


def test_the_script_counts_one_kind_for_every_card_played_with_a_choice():
    counts = count_deal(2, 0, seed=9)
    again = count_deal(2, 0, seed=9)
    assert counts == again
    leads = sum(sum(row) for row in counts["lead"].values())
    follows = sum(sum(row) for rows in counts["follow"].values() for row in rows)
    assert 0 < leads <= 6 and 0 < follows <= 6  # seven tricks, the last without a choice
