"""Errors raised by the rules engine for malformed input, each with a stable ``code`` string.

Moves the rules forbid are refused with the errors of :mod:`app.game.refusals`,
kept apart so callers can report them differently.
"""

from __future__ import annotations

SHOWN_LIMIT = 40
"""Characters of a refused value an error message repeats (:func:`shown`)."""


def shown(value: object) -> str:
    """``value`` as an error message repeats it: its ``repr``, cut to :data:`SHOWN_LIMIT` characters and an
    ellipsis, so that a huge value sent in error is not written back in full."""
    text = repr(value)
    return text if len(text) <= SHOWN_LIMIT else text[:SHOWN_LIMIT] + "…"


def card_given(value: object) -> str | None:
    """The ``card`` a fault names for ``value``, given where a card code was due: the text cut to 8
    characters (a card code has 2 or 3), ``None`` for a value that is not text (docs/rules.md §4)."""
    return value[:8] if isinstance(value, str) else None


class GameError(Exception):
    """Base of every engine error; ``code`` is a stable identifier for APIs."""

    code = "game_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidCard(GameError):
    """Text that is not a card code (docs/rules.md §1).

    ``text`` is the text refused (cut to 12 characters and an ellipsis), or
    ``None`` when what was refused was not text at all.
    """

    code = "invalid_card"

    def __init__(self, message: str, text: str | None = None) -> None:
        super().__init__(message)
        self.text = text


class InvalidRules(GameError):
    """An unknown rules option or a value out of range (docs/rules.md §3).

    ``option`` names the offending option (``None`` when the rules object as a
    whole is malformed, e.g. not a mapping), or ``"preset"`` for an unknown
    preset; ``value`` is the value refused, when there is one
    (``has_value`` says whether there is: a refused value may be ``None``).
    """

    code = "invalid_rules"
    _NO_VALUE = object()

    def __init__(self, message: str, option: str | None = None, *, value: object = _NO_VALUE) -> None:
        super().__init__(message)
        self.option = option
        self.has_value = value is not InvalidRules._NO_VALUE
        self.value = value if self.has_value else None


class InvalidMatch(GameError):
    """A match cannot be set up as asked (player count, names, dealer)."""

    code = "invalid_match"


class InvalidDeal(GameError):
    """Dealt hands that break docs/rules.md §2.2 / §4 (size, duplicates, seats).

    ``seat`` and ``card`` point at the first fault when there is one.
    """

    code = "invalid_deal"

    def __init__(self, message: str, seat: int | None = None, card: str | None = None) -> None:
        super().__init__(message)
        self.seat = seat
        self.card = card
