"""The ``hard`` search: sensible choices, reproducible, within its time budget."""

import random
import statistics
import time

import pytest

from app.bots import search
from app.bots.search import search_card
from app.game.cards import Card
from app.game.rules import Rules
from app.game.views import view_for
from tests.bots.helpers import VARIANTS, random_states, scenario

QUICK = Rules(hand_size=3)
# Trick 1: seat 1 leads KH, seats 2 and 0 must give up their lowest cards;
# seat 1 wins and leads the second of three tricks holding 2C and AS.
HANDS = ["4S 5S 6S", "KH 2C AS", "3D 7D 9D"]
PLAYS = "KH 3D 4S"


def test_leads_the_ace_rather_than_keep_it_for_the_last_trick():
    match = scenario(QUICK, HANDS, PLAYS)
    assert search_card(view_for(match, 1), random.Random(1), budget_s=5, max_worlds=60) == Card.parse("AS")


def test_inverse_cucumber_keeps_the_ace_for_the_last_trick():
    match = scenario(Rules(hand_size=3, penalty_to="lowest"), HANDS, PLAYS)
    assert search_card(view_for(match, 1), random.Random(1), budget_s=5, max_worlds=60) == Card.parse("2C")


def test_sheds_the_card_that_would_win_the_last_trick():
    # Seat 1 wins the first trick with QD and leads 5C to the second; seat 2
    # holds 3H and KS and may play either: keeping the king would make it pay
    # for the last trick.
    match = scenario(QUICK, ["6C 7C 8C", "4C 5C QD", "2H 3H KS"], "QD 2H 6C 5C")
    assert search_card(view_for(match, 2), random.Random(2), budget_s=5, max_worlds=60) == Card.parse("KS")


def test_a_single_legal_rank_is_played_without_searching(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(search, "sample_hands", fail)
    match = scenario(QUICK, ["2C 9D KS", "AC TD AS", "4C JD QS"], "AC")
    assert search_card(view_for(match, 2), random.Random(1)) == Card.parse("4C")


def test_same_generator_same_card():
    rng = random.Random(4)
    for match in random_states(VARIANTS["agurk"], 4, rng, 10):
        view = view_for(match, match.turn)
        first = search_card(view, random.Random(9), budget_s=30, max_worlds=20)
        assert search_card(view, random.Random(9), budget_s=30, max_worlds=20) == first


def test_no_legal_card_is_an_error():
    match = scenario(QUICK, HANDS, PLAYS)
    with pytest.raises(ValueError):
        search_card(view_for(match, 0), random.Random(1))


def test_decisions_stay_within_the_time_budget():
    budget = 0.03
    rng = random.Random(6)
    times = []
    for match in random_states(Rules(), 5, rng, 40):
        view = view_for(match, match.turn)
        started = time.perf_counter()
        card = search_card(view, rng, budget_s=budget)
        times.append(time.perf_counter() - started)
        assert card in view.you.legal
    # The search stops at the first world that ends past the budget; a world
    # takes well under a millisecond, so the rest is for a busy machine.
    assert statistics.median(times) <= budget + 0.02
    assert max(times) <= budget + 0.25
