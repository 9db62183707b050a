"""Reading a seat's knowledge of the deal from its view (docs/rules.md §2.3–2.6, §3)."""

import random

import pytest

from app.bots.knowledge import read_knowledge
from app.game.cards import Card, cards_of, mask_of, rank_mask_from
from app.game.match import deal_cards, new_match, play_out_deal
from app.game.rules import Rules
from app.game.views import view_for
from tests.bots.helpers import VARIANTS, random_states, scenario


def below(rank):
    return ((1 << 52) - 1) & ~rank_mask_from(rank)


def test_follower_below_the_bar_holds_nothing_lower():
    # 9C led; seat 2 plays 4C, below the nine: it was their lowest card (§2.4).
    match = scenario(Rules(hand_size=3), ["2C 9D KS", "9C TD AS", "4C JD QS"], "9C 4C")
    known = read_knowledge(view_for(match, 0))
    assert known.possible[2] & below(4) == 0
    assert known.possible[2] >> Card.parse("AH") & 1
    # The leader's card says nothing about what they hold.
    assert known.possible[1] >> Card.parse("2D") & 1


def test_must_match_follower_below_the_bar_holds_nothing_at_or_above_it():
    match = scenario(Rules(hand_size=3, follow="must_match"), ["2C 9D KS", "9C TD AS", "4C 5D 6S"], "9C 4C")
    known = read_knowledge(view_for(match, 0))
    assert known.possible[2] & below(4) == 0
    assert known.possible[2] & rank_mask_from(9) == 0
    assert known.possible[2] >> Card.parse("8H") & 1


def test_follower_of_a_forcing_ace_played_their_lowest():
    match = scenario(Rules(hand_size=3, ace_lead="forces_lowest"), ["2C 9D KS", "AC TD AS", "8C JD QS"], "AC 8C")
    known = read_knowledge(view_for(match, 0))
    assert known.possible[2] & below(8) == 0


def test_a_follower_at_the_bar_reveals_nothing():
    match = scenario(Rules(hand_size=3), ["2C 9D KS", "9C TD AS", "4C JD QS"], "9C QS")
    known = read_knowledge(view_for(match, 0))
    assert known.possible[2] >> Card.parse("2D") & 1


def test_play_order_follows_trick_winners():
    # Trick 1: seat 1 leads 9C, seat 2 plays 9H (equal, later: wins), seat 0 plays 2C.
    match = scenario(Rules(hand_size=3), ["2C 9D KS", "9C TD AS", "9H JD QS"], "9C 9H 2C QS")
    known = read_knowledge(view_for(match, 0))
    assert known.plays == tuple(map(Card.parse, ["9C", "9H", "2C", "QS"]))
    assert known.order == (1, 2, 0)
    assert known.played[2] == mask_of(map(Card.parse, ["9H", "QS"]))
    assert known.cards_left == (2, 2, 1)


def test_unseen_cards_are_everything_not_held_or_played():
    match = scenario(Rules(hand_size=3), ["2C 9D KS", "9C TD AS", "4C JD QS"], "9C")
    known = read_knowledge(view_for(match, 2))
    assert known.hand == mask_of(map(Card.parse, ["4C", "JD", "QS"]))
    assert known.unseen.bit_count() == 52 - 3 - 1
    assert not known.unseen & known.hand
    assert known.hidden_seats() == (1, 0)  # in deal order, from the dealer's left


def test_spectators_and_finished_deals_have_nothing_to_read():
    rng = random.Random(3)
    match, _ = deal_cards(new_match(["A", "B", "C"]), rng)
    with pytest.raises(ValueError):
        read_knowledge(view_for(match, None))
    match, _ = play_out_deal(match, rng=rng)
    with pytest.raises(ValueError):
        read_knowledge(view_for(match, 0))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_real_hands_always_fit_what_is_known(name):
    rng = random.Random(name)
    for players in (2, 4, 7):
        for match in random_states(VARIANTS[name], players, rng, 40):
            for viewer in match.deal.order:
                known = read_knowledge(view_for(match, viewer))
                deal = match.deal
                assert known.plays == deal.plays
                assert known.order == deal.order
                assert known.hand == deal.hands[viewer]
                assert known.cards_left == tuple(hand.bit_count() for hand in deal.hands)
                for seat, hand in enumerate(deal.hands):
                    assert hand & ~known.possible[seat] == 0, (seat, cards_of(hand))
                    assert known.played[seat] | hand == deal.dealt[seat]
