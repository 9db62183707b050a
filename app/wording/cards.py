"""Cards as people see and hear them: rank labels, suit symbols and names for screen readers.

The engine knows a card by its code (``TH``, docs/rules.md §1); this is how
it is shown (``10♥``) and named (``Ten of hearts``).
"""

from __future__ import annotations

import functools

from app.game.cards import DECK, SUIT_CHARS, Card
from app.wording.language import language, noted, noted_in, say, say_in

RANK_LABELS = (
    "2", "3", "4", "5", "6", "7", "8", "9", "10",
    # Translators: the corner label of a jack, as printed on the cards players know (at most 2 letters).
    noted_in("card corner", "J"),
    # Translators: the corner label of a queen, as printed on the cards players know (at most 2 letters).
    noted_in("card corner", "Q"),
    # Translators: the corner label of a king, as printed on the cards players know (at most 2 letters).
    noted_in("card corner", "K"),
    # Translators: the corner label of an ace, as printed on the cards players know (at most 2 letters).
    noted_in("card corner", "A"),
)
"""The label in a card's corner for each rank, 2 to ace."""

# Translators: the ranks and suits are only ever said together, in "{rank} of {suit}", to name a card
# to a screen reader: write each as it stands in your language's card name (capitalised or not).
RANK_NAMES = (noted("Two"), noted("Three"), noted("Four"), noted("Five"), noted("Six"), noted("Seven"),
              noted("Eight"), noted("Nine"), noted("Ten"), noted("Jack"), noted("Queen"), noted("King"),
              noted("Ace"))
# Translators: a suit as it stands in a card's name, "{rank} of {suit}" (capitalised or not).
SUIT_NAMES = (noted("clubs"), noted("diamonds"), noted("hearts"), noted("spades"))
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
"""The suits in code order (``C``, ``D``, ``H``, ``S``)."""


def rank_label(rank: int) -> str:
    """The label of a rank (2–14) as printed on cards: ``10`` → ``"10"``, ``11`` → ``"J"``, ``14`` → ``"A"``."""
    return say_in("card corner", RANK_LABELS[rank - 2])


def suit_symbol(card: Card) -> str:
    """The symbol of a card's suit: ``♣``, ``♦``, ``♥`` or ``♠``."""
    return SUIT_SYMBOLS[SUIT_CHARS.index(card.suit)]


def card_symbol(card: Card) -> str:
    """A card as shown in sentences and on faces: rank label and suit symbol, e.g. ``"10♥"``."""
    return rank_label(card.rank) + suit_symbol(card)


def card_name(card: Card) -> str:
    """A card's name in words, for screen readers: ``TH`` → ``"Ten of hearts"``."""
    return _card_name(card, language())


@functools.lru_cache(maxsize=1024)
def _card_name(card: Card, code: str) -> str:
    # Each hand on the table page names each of its cards in every state sent: 52 names per language
    # ``code`` being spoken, said once.
    suit = SUIT_CHARS.index(card.suit)
    # Translators: a card's name for screen readers, e.g. "Ten of hearts"; put rank and suit in your order.
    return say("{rank} of {suit}", rank=say(RANK_NAMES[card.rank - 2]), suit=say(SUIT_NAMES[suit]))


def card_faces() -> dict[str, dict[str, str]]:
    """Every card by code with its corner label, suit symbol and name, for page scripts.

    ``{"TH": {"rank": "10", "suit": "♥", "name": "Ten of hearts"}, …}``.
    """
    return {card.code: {"rank": rank_label(card.rank), "suit": suit_symbol(card), "name": card_name(card)}
            for card in DECK}
