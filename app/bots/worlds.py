"""Possible worlds: hidden hands that fit a seat's knowledge, and the match they make.

The ``hard`` search samples many such worlds and plays each one out; a world
holds the seat's real hand and guessed hands for everyone else.
"""

from __future__ import annotations

import random

from app.bots.knowledge import DealKnowledge
from app.game.cards import cards_of
from app.game.match import Deal, Match, deal_hands, play
from app.game.views import MatchView

UNKNOWN_DEAL = Deal(dealer=-1, dealt=(), order=(), next_seat=(), hands=(), plays=(), leaders=(),
                    turn=None, winner=-1, winning=None, forced=False)
"""Stands in the rebuilt match's history for each earlier deal: a seat's view
does not show their cards, and the engine only needs to know how many there
were (for a fixed ``match_length``, docs/rules.md §3)."""

_RANDOM_TRIES = 30


def sample_hands(knowledge: DealKnowledge, rng: random.Random) -> tuple[int, ...]:
    """A guess at every seat's current hand that fits ``knowledge``, as bit sets per seat.

    The viewer gets their real hand; every other seat ``s`` gets
    ``knowledge.cards_left[s]`` cards from ``knowledge.possible[s]``, no card
    twice. Unseen cards left over are the ones nobody was dealt (docs/rules.md
    §2.2). Each seat's cards are drawn uniformly from what is still free,
    most constrained seat first; should that paint itself into a corner, a
    matching that always fits is used instead. Raises ``ValueError`` if no
    assignment fits (the knowledge contradicts itself).
    """
    seats = knowledge.hidden_seats()
    hands = [0] * len(knowledge.cards_left)
    hands[knowledge.viewer] = knowledge.hand
    ranked = sorted(seats, key=lambda seat: knowledge.possible[seat].bit_count() - knowledge.cards_left[seat])
    for _ in range(_RANDOM_TRIES):
        free = knowledge.unseen
        for seat in ranked:
            pool = knowledge.possible[seat] & free
            need = knowledge.cards_left[seat]
            if pool.bit_count() < need:
                break
            chosen = sum(1 << card for card in rng.sample(_bits(pool), need))
            hands[seat] = chosen
            free &= ~chosen
        else:
            return tuple(hands)
        rng.shuffle(ranked)
    return _matched_hands(knowledge, rng, hands)


def _bits(mask: int) -> list[int]:
    """The card numbers of a bit set, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _matched_hands(knowledge: DealKnowledge, rng: random.Random, hands: list[int]) -> tuple[int, ...]:
    """Hands found by bipartite matching of free card slots to cards (augmenting paths)."""
    slots = [seat for seat in knowledge.hidden_seats() for _ in range(knowledge.cards_left[seat])]
    rng.shuffle(slots)
    holder: dict[int, int] = {}  # card -> slot index

    def place(slot: int, tried: set[int]) -> bool:
        choices = _bits(knowledge.possible[slots[slot]])
        rng.shuffle(choices)
        for card in choices:
            if card in tried:
                continue
            tried.add(card)
            if card not in holder or place(holder[card], tried):
                holder[card] = slot
                return True
        return False

    for slot in range(len(slots)):
        if not place(slot, set()):
            raise ValueError("no hands fit what the plays of this deal reveal")
    for seat in knowledge.hidden_seats():
        hands[seat] = 0
    for card, slot in holder.items():
        hands[slots[slot]] |= 1 << card
    return tuple(hands)


def rebuild_match(view: MatchView, knowledge: DealKnowledge, hands: tuple[int, ...]) -> Match:
    """The match as it would stand if every seat held ``hands`` (bit sets per seat).

    Replays the deal through the engine: each seat is dealt its hand plus
    the cards it has played, then ``knowledge.plays`` are played in order
    (docs/rules.md §2.2–2.5, §3). Totals, lives, dealer and rules come from the
    view; earlier deals are :data:`UNKNOWN_DEAL` (only their number counts).
    For the real hands the result equals the real match apart from those
    earlier deals. Raises a :class:`~app.game.errors.GameError` if the hands
    do not fit the plays.
    """
    players = tuple(seat.name for seat in view.seats)
    before = Match(rules=view.rules, players=players,
                   scores=tuple(seat.score for seat in view.seats),
                   lives=tuple(seat.lives for seat in view.seats),
                   dealer=None, history=(UNKNOWN_DEAL,) * (view.deal_number - 1), deal=None,
                   winners=(), finished=False)
    dealt = [cards_of(hand | played) for hand, played in zip(hands, knowledge.played, strict=False)]
    match, _ = deal_hands(before, dealt, dealer=view.dealer)
    for card in knowledge.plays:
        match, _ = play(match, card)
    return match


def with_hands(match: Match, knowledge: DealKnowledge, hands: tuple[int, ...]) -> Match:
    """``match`` (from :func:`rebuild_match`) with every seat holding ``hands`` instead.

    Only a deal's ``hands`` and ``dealt`` depend on the hidden cards; the rest
    of the state follows from the public plays, so this is the same as
    rebuilding, at a fraction of the cost. ``hands`` must fit ``knowledge``
    (e.g. come from :func:`sample_hands`).
    """
    dealt = tuple(hand | played for hand, played in zip(hands, knowledge.played, strict=False))
    deal = match.deal
    assert deal is not None, "a match from rebuild_match has a deal"
    return match._replace(deal=deal._replace(hands=hands, dealt=dealt))

