"""Engine errors: stable codes, and refusals as a code with facts (docs/rules.md §2.3–2.4, §3)."""

from app.game import Card, CardNotInHand, GameError, IllegalMove, MatchOver, Refusal
from app.game.errors import InvalidRules
from app.game.refusals import REFUSALS, IllegalPlay


def test_an_illegal_move_without_facts_takes_its_own_code():
    error = MatchOver()
    assert error.code == "match_over" and error.refusal == Refusal("match_over")
    assert str(error) == error.message == "match_over"
    assert isinstance(error, IllegalMove) and isinstance(error, GameError)


def test_the_message_of_an_illegal_move_is_its_code_and_facts():
    error = CardNotInHand(Refusal("card_not_in_hand", card=Card.parse("AS")))
    assert error.message == "card_not_in_hand (card AS)"
    error = IllegalPlay(Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"),
                                lowest=(Card.parse("2D"), Card.parse("2S"))))
    assert error.code == "illegal_play"
    assert error.message == "match_or_lowest (card 6D, highest 9C, lowest 2D/2S)"
    assert str(Refusal("not_your_turn", seat=2, player="Cy")) == "not_your_turn (seat 2)"


def test_refusal_codes_are_distinct():
    assert len(set(REFUSALS)) == len(REFUSALS)


def test_malformed_input_keeps_its_message():
    error = InvalidRules("lives must be a whole number from 1 to 3, not 9", "lives")
    assert (error.code, error.option, error.message) == ("invalid_rules", "lives", str(error))
