"""Cards, ranks, values and card codes (docs/rules.md §1).

A card is a small int (0–51) with a notation: ``Card.parse("10h")`` gives
``TH``. Hands are also kept as bit sets (bit ``card`` set), which makes the
follow rules a few integer operations. How a card is shown or named to
people is the business of ``app.wording``.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.game.errors import InvalidCard

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "CDHS"
ACE = 14


class Card(int):
    """One card of the 52-card pack, as an int ``(rank - 2) * 4 + suit``.

    Ordering by the int is ordering by rank (suits only break ties, and carry
    no strength in play). ``str(card)`` is the canonical code (``"9C"``,
    ``"TH"``); ``repr`` rebuilds the card.
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Read a card code, case-insensitively, accepting ``10`` for the ten (docs/rules.md §1).

        ``"9c"`` → ``9C``, ``"10h"`` → ``TH``; a card is returned as it is. Raises :class:`InvalidCard`
        for anything else (wrong type, unknown rank or suit, extra text, space around it, letters outside
        ASCII that upper-case to a rank or suit, such as ``ſ`` to ``S``).
        """
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCard(f"a card code must be text, not {type(text).__name__}")
        card = _BY_CODE.get(text.upper()) if text.isascii() else None
        if card is None:
            shown = text if len(text) <= 12 else text[:12] + "…"
            raise InvalidCard(f"{shown!r} is not a card code (rank 2-9, T or 10, J, Q, K, A, then suit C, D, H or S)",
                              shown)
        return card

    @property
    def rank(self) -> int:
        """Rank from 2 to 14 (J=11, Q=12, K=13, A=14)."""
        return (self >> 2) + 2

    @property
    def value(self) -> int:
        """Penalty value in points (docs/rules.md §1): equal to the rank."""
        return (self >> 2) + 2

    @property
    def suit(self) -> str:
        """Suit letter: ``C``, ``D``, ``H`` or ``S``."""
        return SUIT_CHARS[self & 3]

    @property
    def code(self) -> str:
        """Canonical upper-case code, e.g. ``"TH"``."""
        return _CODES[self]

    @property
    def is_red(self) -> bool:
        """Whether the suit is diamonds or hearts."""
        return (self & 3) in (1, 2)

    def __str__(self) -> str:
        return _CODES[self]

    def __repr__(self) -> str:
        return f"Card.parse({_CODES[self]!r})"


_CODES = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""The 52 cards in rank order (2C, 2D, 2H, 2S, 3C, …, AS)."""
_BY_CODE = {code: DECK[i] for i, code in enumerate(_CODES)}
_BY_CODE.update({"10" + code[1]: DECK[i] for i, code in enumerate(_CODES) if code[0] == "T"})


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Parse several card codes; raises :class:`InvalidCard` at the first bad one."""
    return tuple(Card.parse(code) for code in codes)


def mask_of(cards: Iterable[int]) -> int:
    """Bit set of the given cards (bit ``card`` set for each)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bit set, lowest rank first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(cards)


def rank_mask_from(rank: int) -> int:
    """Bit set of every card of ``rank`` (2–14) or higher."""
    return _FROM_RANK[rank]


def lowest_rank_of(mask: int) -> int:
    """Rank (2–14) of the lowest card in a non-empty bit set."""
    return (((mask & -mask).bit_length() - 1) >> 2) + 2


_ALL = (1 << 52) - 1
_FROM_RANK = {rank: _ALL >> (4 * (rank - 2)) << (4 * (rank - 2)) for rank in range(2, 16)}
RANK_BITS = {rank: 0xF << (4 * (rank - 2)) for rank in range(2, 15)}
"""Bit set of the four cards of each rank."""
