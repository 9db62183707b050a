"""Scenario helpers: start deals from given hands and play card codes.

Tests read like the game: ``start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D")``, then
``play_codes(match, "9C 2S 9H")``, then expect totals, lives and events.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

from app.game import Card, Match, Rules, deal_hands, new_match, play
from app.game.cards import DECK
from app.game.events import Event
from app.game.match import deal_cards
from app.game.summary import DealSummary, summarize_deal

NAMES = ("Ana", "Ben", "Cy", "Dag", "Eva", "Finn", "Gro")


def cards(codes: str) -> tuple[Card, ...]:
    """``"9C KH 2s"`` → the cards, in the order written."""
    return tuple(Card.parse(code) for code in codes.split())


def hand(codes: str) -> tuple[Card, ...]:
    """``"KH 6D 2S"`` → the cards lowest first, as ``Match.hand`` returns them."""
    return tuple(sorted(cards(codes)))


def table(players: int = 3, rules: Rules | None = None, *, scores: Sequence[int] | None = None,
          lives: Sequence[int] | None = None) -> Match:
    """A match before its first deal, optionally with given totals and lives.

    Totals and lives stand for what earlier deals left behind; a seat with 0
    lives is eliminated.
    """
    match = new_match(NAMES[:players], rules)
    if scores is not None:
        match = match._replace(scores=tuple(scores))
    if lives is not None:
        match = match._replace(lives=tuple(lives))
    return match


def start(*hands: str, dealer: int = 0, rules: Rules | None = None, scores: Sequence[int] | None = None,
          lives: Sequence[int] | None = None) -> Match:
    """A new match of ``len(hands)`` players, its first deal dealt by ``dealer`` from the given hands.

    Each hand is a string of codes (``""`` for a seat eliminated through ``lives``).
    """
    match = table(len(hands), rules, scores=scores, lives=lives)
    match, _ = deal_hands(match, [code.split() for code in hands], dealer=dealer)
    return match


def next_deal(match: Match, *hands: str) -> Match:
    """Deal the next deal of ``match`` from the given hands; the dealer is the one the rules require."""
    match, _ = deal_hands(match, [code.split() for code in hands])
    return match


def play_codes(match: Match, codes: str) -> tuple[Match, list[Event]]:
    """Play the cards in order, each for the seat whose turn it is; return the match and all events."""
    events: list[Event] = []
    for code in codes.split():
        match, new = play(match, code)
        events += new
    return match, events


def events_of(events: Iterable[Event], kind: type) -> list:
    """The events of one kind, in order."""
    return [event for event in events if isinstance(event, kind)]


def random_hands(players: int, hand_size: int, rng: random.Random,
                 active: Sequence[bool] | None = None) -> list[list[str]]:
    """Random hands (card codes) for a deal: ``hand_size`` each for active seats, none for the others."""
    pack = list(DECK)
    rng.shuffle(pack)
    hands = []
    for seat in range(players):
        if active is None or active[seat]:
            hands.append([card.code for card in pack[:hand_size]])
            del pack[:hand_size]
        else:
            hands.append([])
    return hands


def play_randomly(match: Match, rng: random.Random, *, max_plays: int | None = None) -> Match:
    """Play random legal cards, dealing random hands when a deal is due, until the match ends.

    Stops early after ``max_plays`` cards when given.
    """
    played = 0
    while not match.finished and (max_plays is None or played < max_plays):
        if match.needs_deal:
            dealer = rng.choice(match.active_seats()) if match.dealer is None else None
            hands = random_hands(match.seat_count, match.rules.hand_size, rng,
                                 [match.is_active(seat) for seat in range(match.seat_count)])
            match, _ = deal_hands(match, hands, dealer=dealer)
        else:
            match, _ = play(match, rng.choice(match.legal_cards(match.turn)))
            played += 1
    return match


def random_steps(match: Match, rng: random.Random) -> Iterator[tuple[Match, DealSummary | None]]:
    """Deal (``deal_cards`` with ``rng``) and play random legal cards until the match ends, yielding after
    each deal and each card the match and the summary of the last finished deal (``None`` before the first)."""
    summary = None
    while not match.finished:
        if match.needs_deal:
            match, _ = deal_cards(match, rng)
        else:
            match, events = play(match, rng.choice(match.legal_cards(match.turn)))
            summary = summarize_deal(events) or summary
        yield match, summary
