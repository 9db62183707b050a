"""Cards, ranks, values and card codes (docs/rules.md §1)."""

import pytest

from app.game import DECK, Card, InvalidCard, parse_cards
from app.game.cards import cards_of, lowest_rank_of, mask_of, rank_mask_from

RANKS = "23456789TJQKA"
SUITS = "CDHS"


def test_the_pack_has_52_distinct_cards_in_rank_order():
    assert len(DECK) == 52
    assert len({card.code for card in DECK}) == 52
    assert [card.code for card in DECK[:5]] == ["2C", "2D", "2H", "2S", "3C"]
    assert DECK[-1].code == "AS"
    ranks = [card.rank for card in DECK]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize("code", [r + s for r in RANKS for s in SUITS])
def test_every_canonical_code_round_trips(code):
    card = Card.parse(code)
    assert str(card) == code
    assert card.code == code
    assert eval(repr(card), {"Card": Card}) == card
    assert repr(card) == f"Card.parse({code!r})"


@pytest.mark.parametrize(("text", "code"), [
    ("9c", "9C"), ("10h", "TH"), ("10H", "TH"), ("th", "TH"), ("aS", "AS"), ("qd", "QD"), ("10C", "TC"),
])
def test_input_is_case_insensitive_and_accepts_10_for_the_ten(text, code):
    assert Card.parse(text).code == code


def test_parse_of_a_card_is_that_card():
    card = Card.parse("KH")
    assert Card.parse(card) is card


@pytest.mark.parametrize("text", ["", "1H", "11H", "9X", "9", "C9", "9CC", "T", "10", "100H", "ZZ", "9 C", "♥9",
                                  # Space around a code, and letters outside ASCII that upper-case to a suit:
                                  " 2C", "9H\n", "\u00a02C", "9H\u2003", "5\u017f", "\uff19C"])
def test_bad_codes_raise_invalid_card(text):
    with pytest.raises(InvalidCard) as caught:
        Card.parse(text)
    assert caught.value.code == "invalid_card"


@pytest.mark.parametrize("value", [None, 9, 9.0, b"9C", ["9C"]])
def test_non_text_raises_invalid_card(value):
    with pytest.raises(InvalidCard):
        Card.parse(value)


def test_a_long_bad_code_is_shortened_in_the_message():
    with pytest.raises(InvalidCard) as caught:
        Card.parse("X" * 500)
    assert len(caught.value.message) < 200


@pytest.mark.parametrize(("code", "rank", "value"), [
    ("2C", 2, 2), ("9D", 9, 9), ("TH", 10, 10), ("JS", 11, 11), ("QC", 12, 12), ("KD", 13, 13), ("AH", 14, 14),
])
def test_rank_and_penalty_value(code, rank, value):
    card = Card.parse(code)
    assert card.rank == rank
    assert card.value == value


def test_suits_carry_no_rank():
    assert {Card.parse(code).rank for code in ("9C", "9D", "9H", "9S")} == {9}
    assert Card.parse("TC").rank > Card.parse("9S").rank


def test_suit_and_colour():
    ten = Card.parse("TH")
    assert ten.suit == "H"
    assert ten.is_red
    assert not Card.parse("AS").is_red
    assert Card.parse("QD").is_red


def test_parse_cards_parses_in_order_and_stops_at_the_first_bad_code():
    assert [card.code for card in parse_cards(["9c", "10s", "AD"])] == ["9C", "TS", "AD"]
    with pytest.raises(InvalidCard):
        parse_cards(["9C", "XX", "AD"])


def test_bit_sets_round_trip_lowest_first():
    chosen = parse_cards(["KH", "2S", "9C", "2D"])
    mask = mask_of(chosen)
    assert mask.bit_count() == 4
    assert [card.code for card in cards_of(mask)] == ["2D", "2S", "9C", "KH"]
    assert lowest_rank_of(mask) == 2
    assert lowest_rank_of(mask_of(parse_cards(["AS", "JD"]))) == 11


def test_rank_mask_from_holds_that_rank_and_above():
    mask = rank_mask_from(13)
    assert [card.code for card in cards_of(mask)] == ["KC", "KD", "KH", "KS", "AC", "AD", "AH", "AS"]
    assert rank_mask_from(2) == (1 << 52) - 1
