"""The ``normal`` rule of thumb: highest legal card, or lowest under inverse cucumber."""

import pytest

from app.bots.heuristic import normal_card, preferred_card, sheds_high
from app.game.cards import Card, mask_of, parse_cards
from app.game.rules import Rules
from app.game.views import view_for
from tests.bots.helpers import scenario

QUICK = Rules(hand_size=3)


def legal(codes):
    return mask_of(parse_cards(codes.split()))


def test_highest_card_is_played_in_the_lowest_suit_of_its_rank():
    assert preferred_card(legal("2C KS KD 9H"), high_first=True) == Card.parse("KD")


def test_lowest_card_when_shedding_low():
    assert preferred_card(legal("5S 2H KD 2D"), high_first=False) == Card.parse("2D")


def test_no_legal_card_is_an_error():
    with pytest.raises(ValueError):
        preferred_card(0, high_first=True)


def test_which_way_depends_on_the_penalty_rule():
    assert sheds_high(Rules())
    assert sheds_high(Rules(last_trick_tie="all_tied"))
    assert not sheds_high(Rules(penalty_to="lowest"))


def test_leader_leads_the_highest_card():
    # Seat 1 leads (dealer 0): hands "3C TD AS".
    match = scenario(QUICK, ["2C 9D KS", "3C TD AS", "4C JD QS"])
    assert normal_card(view_for(match, 1)) == Card.parse("AS")


def test_inverse_cucumber_leader_leads_the_lowest_card():
    match = scenario(Rules(hand_size=3, penalty_to="lowest"), ["2C 9D KS", "3C TD AS", "4C JD QS"])
    assert normal_card(view_for(match, 1)) == Card.parse("3C")


def test_follower_sheds_the_highest_card_that_may_follow():
    # 9C led; seat 2 may play JD, QS (at least 9) or 4C (lowest) and sheds QS.
    match = scenario(QUICK, ["2C 9D KS", "9C TD AS", "4C JD QS"], "9C")
    assert normal_card(view_for(match, 2)) == Card.parse("QS")


def test_follower_who_cannot_reach_the_bar_plays_the_lowest_card():
    match = scenario(QUICK, ["2C 9D KS", "AC TD AS", "4C JD QS"], "AC")
    assert normal_card(view_for(match, 2)) == Card.parse("4C")


def test_a_view_without_legal_cards_is_refused():
    match = scenario(QUICK, ["2C 9D KS", "3C TD AS", "4C JD QS"])
    with pytest.raises(ValueError):
        normal_card(view_for(match, 2))
    with pytest.raises(ValueError):
        normal_card(view_for(match, None))
