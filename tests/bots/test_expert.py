"""The ``expert`` bot: sensible choices, legal under every rule set, reproducible, its inference sound."""

import random

import pytest

from app.bots import expert
from app.bots.choose import choose_card
from app.bots.expert import EarlierPlay, earlier_plays, expert_card, inferred_from, world_weight
from app.bots.knowledge import read_knowledge
from app.bots.worlds import sample_hands
from app.game.cards import Card, mask_of, parse_cards
from app.game.fast import table_for
from app.game.rules import Rules
from app.game.views import view_for
from tests.bots.helpers import VARIANTS, random_states, scenario

QUICK = Rules(hand_size=3)
HANDS = ["4S 5S 6S", "KH 2C AS", "3D 7D 9D"]
PLAYS = "KH 3D 4S"
SEARCH = {"budget_s": 30.0, "max_worlds": 60}


def test_leads_the_ace_rather_than_keep_it_for_the_last_trick():
    match = scenario(QUICK, HANDS, PLAYS)
    assert expert_card(view_for(match, 1), random.Random(1), **SEARCH) == Card.parse("AS")


def test_inverse_cucumber_keeps_the_ace_for_the_last_trick():
    match = scenario(Rules(hand_size=3, penalty_to="lowest"), HANDS, PLAYS)
    assert expert_card(view_for(match, 1), random.Random(1), **SEARCH) == Card.parse("2C")


def test_sheds_the_card_that_would_win_the_last_trick():
    match = scenario(QUICK, ["6C 7C 8C", "4C 5C QD", "2H 3H KS"], "QD 2H 6C 5C")
    assert expert_card(view_for(match, 2), random.Random(2), **SEARCH) == Card.parse("KS")


def test_a_single_legal_rank_is_played_without_searching(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(expert, "sample_hands", fail)
    match = scenario(QUICK, ["2C 9D KS", "AC TD AS", "4C JD QS"], "AC")
    assert expert_card(view_for(match, 2), random.Random(1)) == Card.parse("4C")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_always_a_legal_card_under_every_rule_set(name):
    rng = random.Random(name)
    for match in random_states(VARIANTS[name], 4, rng, 12):
        view = view_for(match, match.turn)
        assert choose_card(view, "expert", rng, 30.0, max_worlds=8) in view.you.legal


def test_same_generator_same_card():
    for match in random_states(VARIANTS["agurk"], 4, random.Random(4), 10):
        view = view_for(match, match.turn)
        first = expert_card(view, random.Random(9), budget_s=30, max_worlds=20)
        assert expert_card(view, random.Random(9), budget_s=30, max_worlds=20) == first


def test_no_legal_card_is_an_error():
    match = scenario(QUICK, HANDS, PLAYS)
    with pytest.raises(ValueError):
        expert_card(view_for(match, 0), random.Random(1))


def test_earlier_plays_name_each_other_seats_card_with_its_bar_and_what_it_played_since():
    match = scenario(QUICK, HANDS, PLAYS)  # seat 1 led KH, seat 2 gave 3D, seat 0 gave 4S; seat 1 leads again
    knowledge = read_knowledge(view_for(match, 1))
    table = table_for(QUICK)
    plays = earlier_plays(table, knowledge)
    king_and_up = mask_of(card for card in range(52) if card >> 2 >= Card.parse("KH") >> 2)
    assert plays == [EarlierPlay(2, Card.parse("3D"), king_and_up, mask_of(parse_cards(["3D"]))),
                     EarlierPlay(0, Card.parse("4S"), king_and_up, mask_of(parse_cards(["4S"])))]


def test_worlds_are_weighted_by_the_plays_heads_up_only():
    three = scenario(QUICK, HANDS, PLAYS)
    assert earlier_plays(table_for(QUICK), knowledge := read_knowledge(view_for(three, 1)))
    assert inferred_from(table_for(QUICK), knowledge) == []
    two = scenario(QUICK, ["4S 5S 6S", "KH 2C AS"], "KH 4S")  # seat 1 led KH, seat 0 gave 4S
    knowledge = read_knowledge(view_for(two, 1))
    assert inferred_from(table_for(QUICK), knowledge) == earlier_plays(table_for(QUICK), knowledge) != []


def test_a_world_weighs_the_chance_of_each_earlier_card(monkeypatch):
    table = table_for(QUICK)
    # Seat 2 followed a led king with 3D: in a world where it held the ace, the rule of
    # thumb would have shed the ace; where it held only low cards, 3D was its only choice.
    play = EarlierPlay(2, Card.parse("3D"), mask_of(card for card in range(52) if card >= 44),
                       mask_of(parse_cards(["3D"])))
    low_world = (0, 0, mask_of(parse_cards(["7D", "9D"])))
    ace_world = (0, 0, mask_of(parse_cards(["7D", "AD"])))
    assert world_weight(table, [play], low_world, True) == 1.0
    monkeypatch.setattr(expert, "INFERENCE_NOISE", 0.5)
    assert world_weight(table, [play], ace_world, True) == pytest.approx(0.5 * 1 / 2)
    monkeypatch.setattr(expert, "INFERENCE_NOISE", 1.0)
    assert world_weight(table, [play], ace_world, True) == pytest.approx(1 / 2)


def test_sampled_worlds_always_weigh_more_than_nothing():
    rng = random.Random(5)
    for match in random_states(VARIANTS["agurk"], 5, rng, 20):
        knowledge = read_knowledge(view_for(match, match.turn))
        earlier = earlier_plays(table_for(match.rules), knowledge)
        assert 0 < world_weight(table_for(match.rules), earlier, sample_hands(knowledge, rng), True) <= 1
