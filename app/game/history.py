"""A finished match told deal by deal and trick by trick, for replays and tables.

Built by replaying the record through the engine, so every number shown is
one the rules produce.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.game.cards import Card
from app.game.events import TrickWon
from app.game.match import deal_hands, new_match, play
from app.game.record import replay
from app.game.rules import Rules
from app.game.summary import DealSummary, summarize_deal


@dataclass(frozen=True, slots=True)
class TrickStep:
    """One trick: its cards as ``((seat, card), …)`` in play order, and who won it."""

    plays: tuple[tuple[int, Card], ...]
    winner: int


@dataclass(frozen=True, slots=True)
class DealStep:
    """One deal of a match: dealer, every hand as dealt, the tricks, and the totals after it.

    ``number`` counts from 1; ``summary`` is ``None`` for an unfinished deal.
    """

    number: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    tricks: tuple[TrickStep, ...]
    scores: tuple[int, ...]
    lives: tuple[int, ...]
    summary: DealSummary | None


def deal_by_deal(record: Mapping[str, Any]) -> list[DealStep]:
    """Every deal of a valid record with its tricks and the standing after it.

    Raises the errors of :func:`app.game.record.replay` for a record that
    does not check.
    """
    replay(record)  # check the whole record first; the loop below then cannot fail
    match = new_match(record["players"], Rules.from_dict(record.get("rules", {})))
    steps = []
    for number, deal in enumerate(record["deals"], start=1):
        match, _ = deal_hands(match, deal["hands"], dealer=deal["dealer"])
        assert match.deal is not None, "deal_hands starts a deal"
        width = len(match.deal.order)
        tricks: list[TrickStep] = []
        current: list[tuple[int, Card]] = []
        events: list[Any] = []
        for code in deal["plays"]:
            seat = match.turn
            assert seat is not None, "replay checked that every play has a seat to play it"
            match, events = play(match, code)
            current.append((seat, Card.parse(code)))
            if len(current) == width:
                tricks.append(TrickStep(tuple(current), _trick_winner(events)))
                current = []
        if current:
            tricks.append(TrickStep(tuple(current), -1))
        dealt = match.deal
        assert dealt is not None, "a match keeps its last deal"
        steps.append(DealStep(
            number=number,
            dealer=deal["dealer"],
            hands=tuple(dealt.dealt_hand(seat) for seat in range(match.seat_count)),
            tricks=tuple(tricks),
            scores=match.scores,
            lives=match.lives,
            summary=summarize_deal(events) if dealt.turn is None else None,
        ))
    return steps


def _trick_winner(events: list[Any]) -> int:
    return next(event.seat for event in events if isinstance(event, TrickWon))
