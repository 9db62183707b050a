"""What happened: past-tense facts returned by every engine transition.

Rooms turn them into deal summaries and messages; replays ignore them.
"""

from __future__ import annotations

from typing import NamedTuple

from app.game.cards import Card


class DealStarted(NamedTuple):
    """Deal number ``deal`` (from 0) was dealt by ``dealer``; ``leader`` leads."""

    deal: int
    dealer: int
    leader: int


class CardPlayed(NamedTuple):
    """``seat`` played ``card`` into trick ``trick`` (from 0)."""

    seat: int
    card: Card
    trick: int


class TrickWon(NamedTuple):
    """``seat`` won trick ``trick`` (from 0) with ``card``; they lead next."""

    seat: int
    card: Card
    trick: int


class PenaltyScored(NamedTuple):
    """``seat`` received ``points`` for the last trick (holding ``card``); new ``total``."""

    seat: int
    points: int
    card: Card
    total: int


class LifeLost(NamedTuple):
    """``seat`` reached the threshold, lost a life (``lives`` left) and continues on ``total``."""

    seat: int
    lives: int
    total: int


class PlayerEliminated(NamedTuple):
    """``seat`` is out of the match, finishing on ``total`` points."""

    seat: int
    total: int


class PlayerReinstated(NamedTuple):
    """``seat`` stays in with one life on ``total``, because the deal would have left nobody in."""

    seat: int
    total: int


class DealEnded(NamedTuple):
    """Deal ``deal`` (from 0) is complete; its penalties are applied."""

    deal: int


class MatchWon(NamedTuple):
    """The match is over; ``seats`` share the win (usually one)."""

    seats: tuple[int, ...]


Event = (DealStarted | CardPlayed | TrickWon | PenaltyScored | LifeLost | PlayerEliminated
         | PlayerReinstated | DealEnded | MatchWon)
