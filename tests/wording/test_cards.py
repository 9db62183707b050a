"""Cards as people see and hear them (docs/rules.md §1)."""

import pytest

from app.game import DECK, Card
from app.wording import card_faces, card_name, card_symbol, rank_label, suit_symbol


@pytest.mark.parametrize(("code", "symbol", "name"), [
    ("2C", "2♣", "Two of clubs"), ("9H", "9♥", "Nine of hearts"), ("TH", "10♥", "Ten of hearts"),
    ("JD", "J♦", "Jack of diamonds"), ("QS", "Q♠", "Queen of spades"), ("KD", "K♦", "King of diamonds"),
    ("AS", "A♠", "Ace of spades"),
])
def test_symbols_and_names(code, symbol, name):
    card = Card.parse(code)
    assert card_symbol(card) == symbol
    assert card_name(card) == name


def test_rank_labels_and_suit_symbols():
    assert [rank_label(rank) for rank in range(2, 15)] == \
        ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert [suit_symbol(Card.parse(f"9{suit}")) for suit in "CDHS"] == ["♣", "♦", "♥", "♠"]


def test_every_card_has_a_distinct_name_and_face():
    faces = card_faces()
    assert list(faces) == [card.code for card in DECK]
    assert len({face["name"] for face in faces.values()}) == 52
    assert faces["TH"] == {"rank": "10", "suit": "♥", "name": "Ten of hearts"}
