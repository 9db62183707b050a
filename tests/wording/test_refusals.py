"""Refusals in words: a refused play, and a card of the hand that cannot be played now."""

import pytest

from app.game import Card, InvalidCard, NotYourTurn, Refusal
from app.game.refusals import REFUSALS, DealNotStarted, IllegalPlay
from app.wording import error_message, refusal, unplayable
from app.wording import refusals as wording
from app.wording.language import speaking


def cards(codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes.split())


@pytest.mark.parametrize(("reason", "said"), [
    (Refusal("match_over"), "the match is over"),
    (Refusal("deal_not_started"), "no deal is being played; wait for the next deal"),
    (Refusal("deal_in_progress"), "the current deal is still being played"),
    (Refusal("not_your_turn", seat=0, player="Ana"), "it is Ana's turn"),
    (Refusal("card_not_in_hand", card=Card.parse("AS")), "AS is not in your hand"),
    (Refusal("lowest_after_ace", card=Card.parse("AH"), highest=Card.parse("AS"), lowest=cards("2C 2S")),
     "an ace was led: you must play your lowest card (2C or 2S)"),
    (Refusal("must_match", card=Card.parse("2S"), highest=Card.parse("TC"), lowest=cards("2S")),
     "you hold a card of rank 10 or higher, so you must play one"),
    (Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"), lowest=cards("2S")),
     "play a card of rank 9 or higher, or your lowest card (2S)"),
    (Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("QC"), lowest=cards("2D 2H 2S")),
     "play a card of rank Q or higher, or your lowest card (2D or 2H or 2S)"),
    (Refusal("not_legal", card=Card.parse("7H")), "7H is not a legal card here"),
])
def test_every_refusal_in_words(reason, said):
    assert refusal(reason) == said


def test_every_code_of_the_engine_has_its_words():
    assert set(wording.REFUSALS) == set(REFUSALS)


def test_a_card_that_cannot_be_played_yet_says_what_to_wait_for():
    assert unplayable(Refusal("not_your_turn", seat=0, player="Ana")) == "wait for your turn: it is Ana's turn"
    assert unplayable(Refusal("deal_not_started")) == "wait for the next deal"
    reason = Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"), lowest=cards("2S"))
    assert unplayable(reason) == refusal(reason)


def test_a_reason_said_again_is_said_in_the_language_spoken_and_for_its_own_player():
    reason = Refusal("not_your_turn", seat=0, player="Normal bot 2")
    assert unplayable(reason) == "wait for your turn: it is Normal bot 2's turn"
    with speaking("de"):
        german = unplayable(reason)
    assert german != unplayable(reason) and "2" in german
    assert unplayable(Refusal("not_your_turn", seat=1, player="Ben")) == "wait for your turn: it is Ben's turn"


def test_an_engine_error_for_people():
    reason = Refusal("not_your_turn", seat=1, player="Ben")
    assert error_message(NotYourTurn(reason)) == "it is Ben's turn"
    assert error_message(DealNotStarted()) == "no deal is being played; wait for the next deal"
    assert error_message(IllegalPlay(Refusal("not_legal", card=Card.parse("7H")))) == "7H is not a legal card here"
    assert error_message(InvalidCard("'1X' is not a card code")) == "'1X' is not a card code"
