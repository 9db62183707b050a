"""Cards as people see and hear them: rank labels, suit symbols and names for screen readers.

The engine knows a card by its code (``TH``, docs/rules.md §1); this is how
it is shown (``10♥``) and named (``Ten of hearts``).
"""

from __future__ import annotations

from app.game.cards import DECK, SUIT_CHARS, Card
from app.wording.language import noted, say

RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", noted("J"), noted("Q"), noted("K"), noted("A"))
"""The label in a card's corner for each rank, 2 to ace."""

RANK_NAMES = (noted("Two"), noted("Three"), noted("Four"), noted("Five"), noted("Six"), noted("Seven"),
              noted("Eight"), noted("Nine"), noted("Ten"), noted("Jack"), noted("Queen"), noted("King"),
              noted("Ace"))
SUIT_NAMES = (noted("clubs"), noted("diamonds"), noted("hearts"), noted("spades"))
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
"""The suits in code order (``C``, ``D``, ``H``, ``S``)."""


def rank_label(rank: int) -> str:
    """The label of a rank (2–14) as printed on cards: ``10`` → ``"10"``, ``11`` → ``"J"``, ``14`` → ``"A"``."""
    return say(RANK_LABELS[rank - 2])


def suit_symbol(card: Card) -> str:
    """The symbol of a card's suit: ``♣``, ``♦``, ``♥`` or ``♠``."""
    return SUIT_SYMBOLS[SUIT_CHARS.index(card.suit)]


def card_symbol(card: Card) -> str:
    """A card as shown in sentences and on faces: rank label and suit symbol, e.g. ``"10♥"``."""
    return rank_label(card.rank) + suit_symbol(card)


def card_name(card: Card) -> str:
    """A card's name in words, for screen readers: ``TH`` → ``"Ten of hearts"``."""
    suit = SUIT_CHARS.index(card.suit)
    return say("{rank} of {suit}", rank=say(RANK_NAMES[card.rank - 2]), suit=say(SUIT_NAMES[suit]))


def card_faces() -> dict[str, dict[str, str]]:
    """Every card by code with its corner label, suit symbol and name, for page scripts.

    ``{"TH": {"rank": "10", "suit": "♥", "name": "Ten of hearts"}, …}``.
    """
    return {card.code: {"rank": rank_label(card.rank), "suit": suit_symbol(card), "name": card_name(card)}
            for card in DECK}
