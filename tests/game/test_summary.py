"""Deal summaries: who took the last trick, who paid, lives, eliminations, the end."""

from __future__ import annotations

from app.game import Card, Rules
from app.game.summary import summarize_deal
from tests.game.helpers import play_codes, start


def test_a_trick_that_does_not_end_the_deal_has_no_summary():
    match = start("9C 4D 5D", "2S 3C 6H", "9H 7S 8S", dealer=2, rules=Rules(hand_size=3))
    match, events = play_codes(match, "9C 2S 9H")
    assert summarize_deal(events) is None


def test_a_deal_end_is_summarised():
    rules = Rules(hand_size=3)
    match = start("9C 4D 5D", "2S 3C 6H", "9H 7S 8S", dealer=2, rules=rules, scores=[5, 12, 14])
    # Trick 1: 9C 2S 9H -> Cy; trick 2: Cy 7S, Ana 4D (lowest), Ben 3C (lowest) -> Cy;
    # trick 3: Cy 8S, Ana 5D (lowest), Ben 6H (lowest) -> Cy takes the last trick with 8S.
    match, events = play_codes(match, "9C 2S 9H 7S 4D 3C 8S 5D 6H")
    summary = summarize_deal(events)
    assert summary.deal == 1
    assert (summary.trick_winner, summary.card) == (2, Card.parse("8S"))
    assert summary.penalties == ((2, 8, Card.parse("8S"), 22),)
    assert summary.lives_lost == ((2, 1, 12),)
    assert summary.eliminated == () and summary.reinstated == () and summary.winners == ()


def test_an_elimination_and_the_end_of_the_match_are_summarised():
    rules = Rules(hand_size=3, lives=1)
    match = start("9C 4D 5D", "2S 3C 6H", dealer=1, rules=rules, scores=[18, 0])
    match, events = play_codes(match, "9C 2S 5D 6H 3C 4D")
    summary = summarize_deal(events)
    assert summary.eliminated == ((0, 22),) and summary.winners == (1,)
    assert summary.lives_lost == ()


def test_the_inverse_penalty_names_the_card_whose_value_is_paid():
    rules = Rules(hand_size=3, penalty_to="lowest")
    match = start("9C 4D KD", "2S 3C 6H", dealer=1, rules=rules)
    match, events = play_codes(match, "9C 2S 4D 3C KD 6H")
    summary = summarize_deal(events)
    assert summary.trick_winner == 0 and summary.penalties == ((1, 13, Card.parse("KD"), 13),)


def test_every_equal_lowest_card_paying_under_inverse_cucumber_is_summarised():
    rules = Rules(hand_size=3, penalty_to="lowest", last_trick_tie="all_tied")
    match = start("AH AD 2S", "2C 2D 2H", "4C 5C KS", dealer=2, rules=rules)
    match, events = play_codes(match, "AH 2C 4C  AD 2D 5C  2S 2H KS")
    summary = summarize_deal(events)
    assert summary.trick_winner == 2
    assert summary.penalties == ((0, 13, Card.parse("KS"), 13), (1, 13, Card.parse("KS"), 13))
