"""Shared helpers for the bot tests: rule variants and random match states."""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.game.match import Match, deal_cards, deal_hands, new_match, play
from app.game.rules import PRESETS, Rules
from app.game.simulate import random_legal_card

VARIANTS: dict[str, Rules] = {
    **PRESETS,
    "must_match": Rules(follow="must_match"),
    "forces_lowest": Rules(ace_lead="forces_lowest"),
    "forces_lowest_last_trick": Rules(ace_lead="forces_lowest_last_trick"),
    "all_tied": Rules(last_trick_tie="all_tied"),
    "inverse": Rules(penalty_to="lowest"),
    "inverse_must_match": Rules(penalty_to="lowest", follow="must_match", hand_size=5),
    "short_lives": Rules(threshold=10, lives=1),
    "three_lives": Rules(lives=3, second_life_min_opponents=2, hand_size=4),
    "fixed_length": Rules(match_length=3, hand_size=6),
}
"""Every preset and every option of docs/rules.md §3 away from its default."""


def random_states(rules: Rules, players: int, rng: random.Random, count: int) -> Iterator[Match]:
    """``count`` states of random-legal matches in which someone is to play.

    Matches are played by uniform random legal cards; roughly every state on
    the way is yielded, so early, middle and last tricks all appear.
    """
    match = new_match([f"P{seat}" for seat in range(players)], rules)
    produced = 0
    while produced < count:
        if match.finished:
            match = new_match([f"P{seat}" for seat in range(players)], rules)
        if match.needs_deal:
            match, _ = deal_cards(match, rng)
            continue
        if rng.random() < 0.5:
            produced += 1
            yield match
        match, _ = play(match, random_legal_card(match, rng))


def scenario(rules: Rules, hands: list[str], plays: str = "", dealer: int = 0, *,
             scores: tuple[int, ...] | None = None) -> Match:
    """A match from hands and plays in card codes: ``["2C AS", "3D KH"]``, ``"AS 3D"``.

    ``scores`` sets the totals before the deal (default all 0).
    """
    match = new_match([f"P{seat}" for seat in range(len(hands))], rules)
    if scores is not None:
        match = match._replace(scores=scores)
    match, _ = deal_hands(match, [hand.split() for hand in hands], dealer=dealer)
    for code in plays.split():
        match, _ = play(match, code)
    return match
