"""A model of how a searching player plays, counted from the ``hard`` bot's self-play.

The ``expert`` plays its sampled worlds out with this model for every seat
instead of the rule of thumb: the ``hard`` search rarely leads its highest
card from a long hand, and as a follower it often plays the lowest card
that reaches the trick's highest, or gives up its lowest card.

A card is described by its *kind* relative to the hand and the trick
(:func:`kind_of`); the model gives, for a seat holding ``n`` cards, how
often each kind was played:

- leading: the index of the led rank among the hand's ranks counted once
  from the top (0 = the highest);
- following (``last``: the seat plays the trick's last card): the highest
  legal rank (:data:`HIGHEST`), the lowest card that reaches the trick's
  highest (:data:`LOWEST_REACHING`), the lowest card (:data:`LOWEST`) or a
  reaching rank between those (:data:`MIDDLE_REACHING`).

The counts live in ``play_model.json`` beside this module, made by
``python -m bench.learn_play`` (docs/bots.md), one table for deals of two
seats and one for more. Only the default penalty was counted: under
inverse cucumber the ``expert`` keeps the rule of thumb.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

HIGHEST = 0
LOWEST_REACHING = 1
LOWEST = 2
MIDDLE_REACHING = 3
FOLLOW_KINDS = ("highest", "lowest_reaching", "lowest", "middle_reaching")
"""The names of the following kinds, by index, as the model file stores them."""

MAX_CARDS = 7
"""The largest hand (docs/rules.md §3 ``hand_size``)."""


@dataclass(frozen=True, slots=True)
class PlayModel:
    """Cumulative chances of each kind of card, by the number of cards the seat holds.

    ``leads[n]`` has one entry per lead index (0 = the highest rank);
    ``follows[2 * n + last]`` one per following kind. Each row rises to 1;
    rows for fewer than 2 cards are never read (one card is no choice).
    """

    leads: tuple[tuple[float, ...], ...]
    follows: tuple[tuple[float, ...], ...]


def ranks_from_top(hand: int) -> list[int]:
    """The first card number of each rank in ``hand`` (a bit set), highest rank first."""
    out = []
    while hand:
        base = (hand.bit_length() - 1) & ~3
        out.append(base)
        hand &= ~(0xF << base)
    return out


def kind_of(hand: int, legal: int, bar: int, leading: bool, card: int) -> int:
    """The kind of ``card`` played from ``hand`` (see the module docstring), as an index.

    ``legal`` are the legal cards of ``hand`` and ``bar`` the cards that
    reach the trick's highest so far (:func:`~app.game.fast.trick_state`);
    ``leading``: the trick is empty, and the kind is the rank's index from
    the top. All are bit sets; ``card`` (a card number) is in ``legal``.
    Raises ``ValueError`` for a lead whose rank ``hand`` does not hold.
    """
    rank = card & ~3
    if leading:
        return ranks_from_top(hand).index(rank)
    if rank == (legal.bit_length() - 1) & ~3:
        return HIGHEST
    reach = legal & bar
    if reach and rank == ((reach & -reach).bit_length() - 1) & ~3:
        return LOWEST_REACHING
    if reach >> card & 1:
        return MIDDLE_REACHING
    return LOWEST


def card_of_kind(hand: int, legal: int, bar: int, leading: bool, kind: int) -> int:
    """A legal card number of ``kind`` (the inverse of :func:`kind_of`), its rank's lowest suit.

    A lead index past the hand's ranks gives its lowest rank. A following
    kind that no legal card has gives the lowest legal card, except
    :data:`HIGHEST`, which always exists.
    """
    if leading:
        ranks = ranks_from_top(hand)
        return _lowest_suit(hand, ranks[min(kind, len(ranks) - 1)])
    if kind == HIGHEST:
        return _lowest_suit(legal, (legal.bit_length() - 1) & ~3)
    reach = legal & bar
    if reach and kind == LOWEST_REACHING:
        return (reach & -reach).bit_length() - 1
    if reach and kind == MIDDLE_REACHING:
        ranks = ranks_from_top(reach)
        return _lowest_suit(reach, ranks[len(ranks) // 2])
    return (legal & -legal).bit_length() - 1


def _lowest_suit(cards: int, base: int) -> int:
    """The card number of the lowest suit that ``cards`` (a bit set) hold of the rank whose first card is ``base``."""
    suits = cards >> base & 0xF
    return base + (suits & -suits).bit_length() - 1


def model_card(model: PlayModel, hand: int, legal: int, bar: int, leading: bool, last: bool,
               rand: Callable[[], float]) -> int:
    """A card number drawn from ``model`` for a seat holding ``hand`` with ``legal`` cards (bit sets).

    ``bar`` as in :func:`kind_of`, ``leading`` whether the trick is empty,
    ``last`` whether this seat plays the trick's last card. One draw from
    ``rand`` picks the kind by its chance; :func:`card_of_kind` plays it.
    With one legal rank its lowest suit is played and nothing is drawn.
    """
    if ((legal.bit_length() - 1) ^ ((legal & -legal).bit_length() - 1)) < 4:  # one legal rank: no choice
        return (legal & -legal).bit_length() - 1
    size = hand.bit_count()
    row = model.leads[size] if leading else model.follows[2 * size + last]
    draw = rand()
    kind = 0
    end = len(row) - 1
    while kind < end and draw >= row[kind]:
        kind += 1
    return card_of_kind(hand, legal, bar, leading, kind)


def from_counts(counts: dict[str, Any]) -> PlayModel:
    """A :class:`PlayModel` from counts as ``play_model.json`` holds one table.

    ``counts["lead"][str(n)]`` lists how often each lead index was played
    from ``n`` cards; ``counts["follow"][str(n)][last]`` (``last`` 0 or 1)
    how often each of :data:`FOLLOW_KINDS`. Half a count is added to every
    possible kind, so that none has no chance. Raises ``KeyError`` or
    ``ValueError`` for a malformed table.
    """
    leads: list[tuple[float, ...]] = [(1.0,), (1.0,)]
    follows: list[tuple[float, ...]] = [(1.0,)] * 4
    for size in range(2, MAX_CARDS + 1):
        lead = [float(count) for count in counts["lead"][str(size)]][:size]
        if len(lead) != size:
            raise ValueError(f"the lead counts for {size} cards need {size} entries")
        leads.append(_cumulative(lead))
        for last in (0, 1):
            follow = [float(count) for count in counts["follow"][str(size)][last]]
            if len(follow) != len(FOLLOW_KINDS):
                raise ValueError(f"the follow counts need {len(FOLLOW_KINDS)} entries")
            follows.append(_cumulative(follow))
    return PlayModel(tuple(leads), tuple(follows))


def _cumulative(counts: list[float]) -> tuple[float, ...]:
    """Running shares of ``counts`` plus half a count each, the last exactly 1."""
    smoothed = [count + 0.5 for count in counts]
    total = sum(smoothed)
    out = []
    running = 0.0
    for count in smoothed:
        running += count / total
        out.append(running)
    out[-1] = 1.0
    return tuple(out)


@functools.cache
def model_for(seats: int) -> PlayModel:
    """The shipped model for a deal of ``seats`` seats: the heads-up table for 2, else the table for more."""
    text = resources.files("app.bots").joinpath("play_model.json").read_text(encoding="utf-8")
    tables = json.loads(text)["tables"]
    return from_counts(tables["heads_up" if seats == 2 else "more"])
