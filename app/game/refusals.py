"""Moves the rules forbid: why (a :class:`Refusal`, a code and facts), and the errors that carry it.

Words for people are made from refusals outside the engine (``app.wording``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.game.cards import Card
from app.game.errors import GameError

REFUSALS = ("match_over", "deal_not_started", "deal_in_progress", "not_your_turn", "card_not_in_hand",
            "lowest_after_ace", "must_match", "match_or_lowest", "not_legal")
"""Every :attr:`Refusal.code`, one per reason the rules give for refusing a move."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the rules forbid a move: a stable ``code`` and the facts that explain it.

    Words for people are made from these outside the engine (``app.wording``).
    The codes (all in :data:`REFUSALS`) and the facts each one sets:

    - ``match_over``: the match has ended (docs/rules.md §2.10).
    - ``deal_not_started``: no deal is being played.
    - ``deal_in_progress``: a deal is still being played.
    - ``not_your_turn``: ``seat`` and ``player`` (name) are the seat to play (§2.3).
    - ``card_not_in_hand``: ``card`` is not held by the seat to play.
    - ``lowest_after_ace``: a led ace forces the lowest card (§3 ``ace_lead``);
      ``card`` was refused, ``highest`` is the ace, ``lowest`` the cards allowed.
    - ``must_match``: under §3 ``follow = "must_match"``, ``card`` neither
      reaches ``highest`` (the highest card of the trick so far) nor is one of
      ``lowest`` (the cards of the player's lowest rank).
    - ``match_or_lowest``: under §2.4, ``card`` neither reaches ``highest``
      nor is one of ``lowest``.
    - ``not_legal``: a chooser picked ``card`` outside the legal cards.
    """

    code: str
    card: Card | None = None
    seat: int | None = None
    player: str | None = None
    highest: Card | None = None
    lowest: tuple[Card, ...] = ()

    def __str__(self) -> str:
        """The code and its facts for logs and record checks, e.g. ``card_not_in_hand (card AS)``."""
        facts = [f"{name} {value}" for name, value in
                 (("card", self.card), ("seat", self.seat), ("highest", self.highest)) if value is not None]
        if self.lowest:
            facts.append("lowest " + "/".join(map(str, self.lowest)))
        return f"{self.code} ({', '.join(facts)})" if facts else self.code


class IllegalMove(GameError):
    """Base of the errors for a move the rules forbid; nothing changes.

    ``refusal`` says why, as a code and facts (a bare refusal with the
    error's own code when none is given); the message is its short
    technical form, for logs and record checks, not for people.
    """

    code = "illegal_move"

    def __init__(self, refusal: Refusal | None = None) -> None:
        self.refusal = refusal if refusal is not None else Refusal(self.code)
        super().__init__(str(self.refusal))


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
