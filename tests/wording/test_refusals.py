"""Refusals in words: a refused play, and a card of the hand that cannot be played now."""

from dataclasses import replace

import pytest

from app.game import Card, InvalidCard, NotYourTurn, Refusal
from app.game.refusals import REFUSALS, DealNotStarted, IllegalPlay
from app.wording import error_message, refusal, unplayable
from app.wording import refusals as wording
from app.wording.language import speaking
from app.wording.refusals import unplayable_said


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
    assert unplayable(Refusal("not_your_turn", seat=0, player="Ana")) == "wait for your turn"
    assert unplayable(Refusal("deal_not_started")) == "wait for the next deal"
    reason = Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"), lowest=cards("2S"))
    assert unplayable(reason) == refusal(reason)


def test_a_reason_said_again_is_said_in_the_language_spoken_and_for_its_own_card():
    reason = Refusal("must_match", card=Card.parse("6D"), highest=Card.parse("9C"), lowest=cards("2S"))
    said = unplayable(reason)
    with speaking("de"):
        german = unplayable(reason)
    assert german != said and "9" in german
    assert unplayable(replace(reason, card=Card.parse("5D"), highest=Card.parse("JC"))) != said


def test_waiting_names_nobody_so_every_waiting_hand_says_the_same_whoever_is_to_play():
    ana, ben = Refusal("not_your_turn", seat=0, player="Ana"), Refusal("not_your_turn", seat=1, player="Ben")
    assert unplayable(ana) == unplayable(ben) == "wait for your turn"
    with speaking("sv"):
        assert unplayable(ana) == unplayable(ben) == "vänta på din tur"
    assert unplayable_said(ana) == unplayable_said(ben)
    assert unplayable_said(Refusal("deal_not_started")) != unplayable_said(ana)


def test_what_a_reason_is_said_by_tells_apart_reasons_said_otherwise():
    reason = Refusal("must_match", card=Card.parse("6D"), highest=Card.parse("9C"), lowest=cards("2S"))
    other = replace(reason, highest=Card.parse("JC"))
    assert unplayable(reason) != unplayable(other) and unplayable_said(reason) != unplayable_said(other)


def test_the_cards_of_a_hand_refused_for_one_reason_share_its_words_and_the_cards_named_keep_theirs():
    sixes = [Refusal("match_or_lowest", card=Card.parse(code), highest=Card.parse("9C"), lowest=cards("2S"))
             for code in ("6D", "6H", "7S")]
    assert len({unplayable_said(reason) for reason in sixes}) == 1
    assert {unplayable(reason) for reason in sixes} == {refusal(sixes[0])}
    assert unplayable_said(sixes[0]) != unplayable_said(replace(sixes[0], lowest=cards("2D")))
    named = [Refusal("not_legal", card=Card.parse(code)) for code in ("7H", "8H")]
    assert unplayable_said(named[0]) != unplayable_said(named[1])
    assert [unplayable(reason) for reason in named] == ["7H is not a legal card here", "8H is not a legal card here"]


@pytest.mark.parametrize("code", sorted(set(REFUSALS) - set(wording.WAITING)))
def test_a_reason_said_by_the_facts_its_words_name_says_what_the_whole_reason_says(code):
    reason = Refusal(code, card=Card.parse("6D"), seat=2, player="Cy", highest=Card.parse("9C"), lowest=cards("2S 2H"))
    assert unplayable(reason) == refusal(reason)


def test_an_engine_error_for_people():
    reason = Refusal("not_your_turn", seat=1, player="Ben")
    assert error_message(NotYourTurn(reason)) == "it is Ben's turn"
    assert error_message(DealNotStarted()) == "no deal is being played; wait for the next deal"
    assert error_message(IllegalPlay(Refusal("not_legal", card=Card.parse("7H")))) == "7H is not a legal card here"
    assert error_message(InvalidCard("'1X' is not a card code")) == "'1X' is not a card code"
