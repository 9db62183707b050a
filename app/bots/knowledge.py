"""What one seat knows about the deal in progress, read from its view alone.

Rebuilds the public course of the deal (who played which card, in which
order) and narrows down the cards each other seat may still hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.game.cards import ACE, Card, mask_of, rank_mask_from
from app.game.rules import Rules
from app.game.views import MatchPhase, MatchView, TrickCard

LOWEST_RANK = 2
ABOVE_ACE = ACE + 1


@dataclass(frozen=True, slots=True)
class DealKnowledge:
    """The public facts of the deal in progress plus the viewer's own hand.

    Bit sets have bit ``card`` set for each card (as in :mod:`app.game.cards`);
    per-seat tuples are indexed by seat.

    - ``viewer``: the seat whose view this was read from.
    - ``order``: the seats in the deal, clockwise from the dealer's left (§2.2).
    - ``plays``: every card played in this deal so far, in order of play.
    - ``hand``: the viewer's hand.
    - ``played[s]``: the cards seat s played in this deal (earlier tricks and
      the current one).
    - ``cards_left[s]``: how many cards seat s holds now.
    - ``unseen``: the cards neither in the viewer's hand nor played. They are
      in the other hands or among the cards nobody was dealt (§2.2).
    - ``possible[s]``: the unseen cards seat s may still hold, after what its
      plays reveal (see :func:`read_knowledge`); the viewer's own hand for the
      viewer, 0 for a seat not in the deal.
    """

    viewer: int
    order: tuple[int, ...]
    plays: tuple[Card, ...]
    hand: int
    played: tuple[int, ...]
    cards_left: tuple[int, ...]
    unseen: int
    possible: tuple[int, ...]

    def hidden_seats(self) -> tuple[int, ...]:
        """The other seats that still hold cards, in deal order."""
        return tuple(seat for seat in self.order if seat != self.viewer and self.cards_left[seat])


def read_knowledge(view: MatchView) -> DealKnowledge:
    """Read what the player of ``view`` knows about the deal being played.

    The play order is rebuilt from the rules: the first active seat left of
    the dealer leads the first trick, each trick's winner leads the next, and
    play goes clockwise among active seats (docs/rules.md §2.3, §2.5; a led ace
    under §3 ``ace_lead`` wins its trick). What a follower's card reveals
    about the cards they hold from then on:

    - a card below the trick's highest rank so far was their lowest card, so
      they hold nothing of a lower rank (§2.4);
    - under ``follow = "must_match"`` such a card also means they held
      nothing of the trick's highest rank or above (§3 ``follow``);
    - under a forcing ace every follower played their lowest card, so they
      hold nothing lower (§3 ``ace_lead``).

    Raises ``ValueError`` for a spectator's view, a view with no deal in
    progress, or a view whose tricks do not fit the rules.
    """
    if view.you is None:
        raise ValueError("a spectator's view has no hand to reason from")
    if view.phase != MatchPhase.PLAYING or view.dealer is None:
        raise ValueError("no deal is being played")
    rules = view.rules
    count = len(view.seats)
    order = tuple(seat for seat in ((view.dealer + step) % count for step in range(1, count + 1))
                  if not view.seats[seat].eliminated)
    following = {seat: order[(index + 1) % len(order)] for index, seat in enumerate(order)}
    finished = view.trick_number - 1
    for seat in order:
        if len(view.seats[seat].played) != finished:
            raise ValueError(f"seat {seat} shows {len(view.seats[seat].played)} played cards, "
                             f"expected {finished}")
    lowest = [LOWEST_RANK] * count
    below = [ABOVE_ACE] * count
    plays: list[Card] = []
    leader = order[0]
    for index in range(finished):
        trick = []
        seat = leader
        for _ in order:
            trick.append(TrickCard(seat, view.seats[seat].played[index]))
            seat = following[seat]
        leader = _read_trick(rules, trick, index, lowest, below)
        plays.extend(played.card for played in trick)
    if view.leader != leader:
        raise ValueError(f"seat {view.leader} leads, but the tricks say seat {leader}")
    seat = leader
    for played in view.trick:
        if played.seat != seat:
            raise ValueError(f"seat {played.seat} played out of turn")
        seat = following[seat]
    if view.turn != seat:
        raise ValueError(f"it is seat {view.turn}'s turn, but the trick says seat {seat}")
    _read_trick(rules, view.trick, finished, lowest, below)
    plays.extend(played.card for played in view.trick)

    played_by = [mask_of(view.seats[seat].played) for seat in range(count)]
    for played in view.trick:
        played_by[played.seat] |= 1 << played.card
    hand = mask_of(view.you.hand)
    unseen = ((1 << 52) - 1) & ~hand & ~mask_of(plays)
    possible = []
    for seat in range(count):
        if seat == view.you.seat:
            possible.append(hand)
        elif seat in following:
            possible.append(unseen & rank_mask_from(lowest[seat]) & ~rank_mask_from(below[seat]))
        else:
            possible.append(0)
    return DealKnowledge(
        viewer=view.you.seat,
        order=order,
        plays=tuple(plays),
        hand=hand,
        played=tuple(played_by),
        cards_left=tuple(seat_view.cards_left for seat_view in view.seats),
        unseen=unseen,
        possible=tuple(possible),
    )


def _read_trick(rules: Rules, trick: tuple[TrickCard, ...] | list[TrickCard], index: int,
                lowest: list[int], below: list[int]) -> int:
    """Note what each follower's card reveals; return the seat winning the trick so far.

    ``index`` is the trick's index in the deal (from 0). ``lowest[s]`` is
    raised to the lowest rank seat s may still hold and ``below[s]``
    lowered to the rank from which it holds nothing.
    """
    if not trick:
        return -1
    leader = trick[0]
    winner, top = leader.seat, leader.card.rank
    forced = top == ACE and (rules.ace_lead == "forces_lowest" or (
        rules.ace_lead == "forces_lowest_last_trick" and index == rules.hand_size - 1))
    must_match = rules.follow == "must_match"
    for played in trick[1:]:
        rank = played.card.rank
        if forced:
            lowest[played.seat] = max(lowest[played.seat], rank)
        elif rank >= top:  # ties go to the later card (§2.5)
            winner, top = played.seat, rank
        else:
            lowest[played.seat] = max(lowest[played.seat], rank)
            if must_match:
                below[played.seat] = min(below[played.seat], top)
    return winner
