"""The ``hard`` bot: a Monte Carlo search over the cards it cannot see.

For each legal rank it plays out the rest of the deal in many sampled worlds
(hands that fit everything public) and keeps the card with the best result.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from app.bots.heuristic import preferred_card, sheds_high
from app.bots.knowledge import read_knowledge
from app.bots.value import win_share
from app.bots.worlds import rebuild_match, sample_hands, with_hands
from app.game.cards import DECK, Card
from app.game.match import play_out_deal
from app.game.views import MatchView

DEFAULT_BUDGET_S = 0.15
"""Seconds of search per decision when the caller gives no budget."""

ROLLOUT_EPSILON = 0.1
"""Chance that a simulated player plays a random legal card instead of the
rule of thumb: real opponents are not all that predictable."""

MIN_WORLDS = 48
"""Worlds sampled before the search may stop early on a clear result."""

CHECK_EVERY = 16
CLEAR_Z = 3.0
"""Standard errors by which the best card must lead another to stop early."""

NEGLIGIBLE = 0.002
"""A difference in win share too small to matter (two cards as good as equal)."""


def search_card(view: MatchView, rng: random.Random, budget_s: float | None = None,
                max_worlds: int | None = None) -> Card:
    """The ``hard`` bot's card for the seat of ``view``: always one of ``view.you.legal``.

    Candidates are the legal cards, one per rank (suits carry no strength,
    docs/rules.md §1). With a single candidate it is returned at once. Otherwise
    worlds are sampled (:func:`~app.bots.worlds.sample_hands`, which uses
    what the public plays reveal, §2.4 and §3), and in each world every
    candidate is played and the deal played out by the engine with the rule
    of thumb (:func:`~app.bots.heuristic.preferred_card`, with some random
    play) for everyone; the engine scores the deal under the match's rules
    (§2.7–2.8, §3) and :func:`~app.bots.value.win_share` rates the result
    for this seat. The candidate with the best mean wins.

    ``budget_s`` (seconds of wall-clock time, default
    :data:`DEFAULT_BUDGET_S`) and ``max_worlds`` (default: no limit) bound
    the search, whichever comes first; it may stop sooner once one
    candidate is clearly best or the rest cannot matter. All chance comes
    from ``rng``. Raises ``ValueError`` when the viewer has no legal card.
    """
    if view.you is None or not view.you.legal:
        raise ValueError("the viewer has no legal card to play")
    candidates = one_per_rank(view.you.legal)
    if len(candidates) == 1:
        return candidates[0]
    started = time.perf_counter()
    deadline = started + (DEFAULT_BUDGET_S if budget_s is None else budget_s)
    limit = math.inf if max_worlds is None else max(max_worlds, 1)
    knowledge = read_knowledge(view)
    seat = knowledge.viewer
    high_first = sheds_high(view.rules)
    rand = rng.random
    base = None
    results: list[list[float]] = [[] for _ in candidates]
    worlds = 0
    while worlds < limit:
        hands = sample_hands(knowledge, rng)
        if base is None:
            base = world = rebuild_match(view, knowledge, hands)
        else:
            world = with_hands(base, knowledge, hands)
        for index, card in enumerate(candidates):
            end, _ = play_out_deal(world, _rollout(card, high_first, rand))
            results[index].append(win_share(end, seat))
        worlds += 1
        if time.perf_counter() >= deadline:
            break
        if worlds >= MIN_WORLDS and worlds % CHECK_EVERY == 0 and _settled(results):
            break
    means = [sum(values) / len(values) for values in results]
    return candidates[max(range(len(candidates)), key=means.__getitem__)]


def one_per_rank(cards: tuple[Card, ...]) -> list[Card]:
    """The first card of each rank among ``cards`` (sorted by rank, as views give them)."""
    out: list[Card] = []
    for card in cards:
        if not out or out[-1].rank != card.rank:
            out.append(card)
    return out


def _rollout(first: Card, high_first: bool, rand: Callable[[], float]) -> Callable[[int, int], Card]:
    """A chooser for ``play_out_deal``: ``first`` for the card searched, then the rule of thumb.

    With chance :data:`ROLLOUT_EPSILON` a card is instead uniform among the legal ones.
    """
    pending = [first]

    def choose(seat: int, legal: int) -> Card:
        if pending:
            return pending.pop()
        if legal & (legal - 1) and rand() < ROLLOUT_EPSILON:
            skip = int(rand() * legal.bit_count())
            while skip:
                legal &= legal - 1
                skip -= 1
            return DECK[(legal & -legal).bit_length() - 1]
        return preferred_card(legal, high_first)

    return choose


def _settled(results: list[list[float]]) -> bool:
    """Whether more worlds are unlikely to change the choice.

    True when, against every other candidate, the best one either leads by
    more than :data:`CLEAR_Z` standard errors of the paired difference or
    the difference is surely below :data:`NEGLIGIBLE`.
    """
    count = len(results[0])
    means = [sum(values) / count for values in results]
    best = max(range(len(results)), key=means.__getitem__)
    for index, values in enumerate(results):
        if index == best:
            continue
        diffs = [a - b for a, b in zip(results[best], values, strict=False)]
        mean = sum(diffs) / count
        spread = math.sqrt(max(sum((d - mean) ** 2 for d in diffs) / (count - 1), 0.0) / count)
        if mean - CLEAR_Z * spread > 0:
            continue
        if mean + CLEAR_Z * spread < NEGLIGIBLE:
            continue
        return False
    return True
