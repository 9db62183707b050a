"""Errors raised by the rules engine, each with a stable ``code`` string.

Malformed input (text that is not a card, options that are not rules) is kept
apart from moves the rules forbid, so callers can report them differently.
"""

from __future__ import annotations


class GameError(Exception):
    """Base of every engine error; ``code`` is a stable identifier for APIs."""

    code = "game_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidCard(GameError):
    """Text that is not a card code (docs/rules.md §1)."""

    code = "invalid_card"


class InvalidRules(GameError):
    """An unknown rules option or a value out of range (docs/rules.md §3).

    ``option`` names the offending option (``None`` when the rules object as a
    whole is malformed, e.g. not a mapping).
    """

    code = "invalid_rules"

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


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


class IllegalMove(GameError):
    """Base of the errors for a play the rules forbid; nothing changes."""

    code = "illegal_move"


class MatchOver(IllegalMove):
    """The match has ended; no more deals or plays (docs/rules.md §2.10)."""

    code = "match_over"


class DealNotStarted(IllegalMove):
    """A play was made while no deal is in progress (the next one is not dealt)."""

    code = "deal_not_started"


class DealInProgress(IllegalMove):
    """A new deal was asked for while the current one is still being played."""

    code = "deal_in_progress"


class NotYourTurn(IllegalMove):
    """A seat tried to play while it is another seat's turn (docs/rules.md §2.3)."""

    code = "not_your_turn"


class CardNotInHand(IllegalMove):
    """The card is not in the hand of the seat whose turn it is."""

    code = "card_not_in_hand"


class IllegalPlay(IllegalMove):
    """The card is held but the follow rules forbid it (docs/rules.md §2.4, §3)."""

    code = "illegal_play"
