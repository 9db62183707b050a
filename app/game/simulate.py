"""Matches between random-legal players, for simulation, tests and benchmarks.

Pure like the rest of the engine: all chance comes from the ``random.Random``
passed in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from app.game.cards import DECK, Card
from app.game.match import Match, deal_cards, legal_mask, new_match, play_out_deal
from app.game.rules import Rules


def random_legal_card(match: Match, rng: random.Random) -> Card:
    """A card chosen uniformly among the legal cards of the seat to play.

    Raises ``ValueError`` when nobody is to play.
    """
    legal = legal_mask(match.rules, match.deal) if match.deal is not None and not match.finished else 0
    if not legal:
        raise ValueError("nobody is to play")
    return _pick(legal, rng.random())


def _pick(legal: int, fraction: float) -> Card:
    """The card at position ``int(fraction * count)`` of a bit set of cards."""
    for _ in range(int(fraction * legal.bit_count())):
        legal &= legal - 1
    return DECK[(legal & -legal).bit_length() - 1]


def play_random_match(players: Sequence[str] | int, rules: Rules, rng: random.Random) -> Match:
    """Play a whole match between random-legal players and return its final state.

    ``players`` is a list of names or a number of seats (named ``P1``…).
    """
    if isinstance(players, int):
        players = [f"P{seat + 1}" for seat in range(players)]
    match = new_match(players, rules)
    while not match.finished:
        match, _ = deal_cards(match, rng)
        match, _ = play_out_deal(match, rng=rng)
    return match
