"""What one viewer may see of a match: the single guard of hidden cards.

``view_for(match, seat)`` is a player's view (their own hand and legal cards
plus everything public); ``view_for(match, None)`` a spectator's (the public
part only). Every page, fragment and message is built from these views.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from app.game.cards import Card, cards_of
from app.game.match import Match
from app.game.refusals import Refusal
from app.game.rules import Rules


class TrickCard(NamedTuple):
    """One card of a trick and the seat that played it.

    A named tuple, as :class:`HandCard`: every state shown builds one for each card of two tricks.
    """

    seat: int
    card: Card


class SeatView(NamedTuple):
    """The public state of one seat (docs/rules.md §2.6, §2.8).

    ``played`` holds the cards this seat played in the finished tricks of
    the current deal, in order, face up; ``cards_left`` how many it holds.
    """

    seat: int
    name: str
    score: int
    lives: int
    eliminated: bool
    is_dealer: bool
    is_turn: bool
    cards_left: int
    played: tuple[Card, ...]


class HandCard(NamedTuple):
    """A card of the viewer's own hand: whether it may be played now, and if not, why.

    ``reason`` is ``None`` for a legal card, otherwise the :class:`Refusal`
    playing it would meet (not this seat's turn, no deal, or the follow
    rules, with the facts that explain it). A named tuple (immutable, like
    the engine's states): every state shown builds one for each card of
    each hand, and a named tuple is made faster than a frozen dataclass.
    """

    card: Card
    legal: bool
    reason: Refusal | None


class HandView(NamedTuple):
    """The viewer's own hand, lowest rank first, with the legal cards marked."""

    seat: int
    cards: tuple[HandCard, ...]

    @property
    def hand(self) -> tuple[Card, ...]:
        """The cards held, lowest rank first."""
        return tuple(held.card for held in self.cards)

    @property
    def legal(self) -> tuple[Card, ...]:
        """The cards that may be played now (empty when it is not this seat's turn)."""
        return tuple(held.card for held in self.cards if held.legal)


class MatchPhase(StrEnum):
    """Where a match stands, for a viewer: its value is the word the views and frames carry."""

    WAITING = "waiting"
    """No deal yet."""
    PLAYING = "playing"
    """A deal is being played."""
    DEAL_OVER = "deal_over"
    """The last deal is complete and the next not dealt."""
    FINISHED = "finished"
    """The match is over."""


class MatchView(NamedTuple):
    """Everything one viewer may see of a match at one moment.

    - ``phase``: a :class:`MatchPhase`.
    - ``deal_number``: the current or last deal, from 1 (0 before the first);
      ``trick_number``: the current trick, from 1 (0 when there is none).
    - ``trick``: the current trick; once a deal is complete, its last trick.
    - ``previous_trick``: the trick finished just before the current one.
    - ``you``: the viewer's own hand, or ``None`` for a spectator.
    """

    rules: Rules
    seats: tuple[SeatView, ...]
    phase: MatchPhase
    deal_number: int
    trick_number: int
    tricks_per_deal: int
    dealer: int | None
    turn: int | None
    leader: int | None
    trick: tuple[TrickCard, ...]
    previous_trick: tuple[TrickCard, ...]
    winners: tuple[int, ...]
    you: HandView | None

    @property
    def finished(self) -> bool:
        """Whether the match is over."""
        return self.phase == MatchPhase.FINISHED


def view_for(match: Match, seat: int | None) -> MatchView:
    """The view of ``match`` for the player in ``seat``, or for a spectator (``None``).

    A player's view holds their own hand with each card's legality and the
    reason an illegal card may not be played; nobody's view holds any other
    hidden card (the hands of other seats, the cards dealt). Raises
    ``IndexError`` for a seat that is not in the match.
    """
    if seat is not None and not 0 <= seat < match.seat_count:
        raise IndexError(f"no seat {seat} in this match")
    deal = match.deal
    played: list[list[Card]] = [[] for _ in match.players]
    trick: tuple[TrickCard, ...] = ()
    previous: tuple[TrickCard, ...] = ()
    cards_left = [0] * match.seat_count
    trick_number = 0
    if deal is not None:
        width = len(deal.order)
        start = deal.trick_start
        seats = deal.play_seats()
        for index in range(start):
            played[seats[index]].append(deal.plays[index])
        trick = tuple(TrickCard(s, c) for s, c in zip(seats[start:], deal.plays[start:], strict=False))
        if start:
            before = slice(start - width, start)
            previous = tuple(TrickCard(s, c) for s, c in zip(seats[before], deal.plays[before], strict=False))
        cards_left = [hand.bit_count() for hand in deal.hands]
        trick_number = deal.trick_number + 1
    if match.finished:
        phase = MatchPhase.FINISHED
    elif deal is None:
        phase = MatchPhase.WAITING
    elif deal.turn is None:
        phase = MatchPhase.DEAL_OVER
    else:
        phase = MatchPhase.PLAYING
    turn = match.turn if not match.finished else None
    seats_view = tuple(
        SeatView(
            seat=s,
            name=name,
            score=match.scores[s],
            lives=match.lives[s],
            eliminated=match.lives[s] == 0,
            is_dealer=deal is not None and deal.dealer == s,
            is_turn=turn == s,
            cards_left=cards_left[s],
            played=tuple(played[s]),
        )
        for s, name in enumerate(match.players)
    )
    you = hand_view(match, seat) if seat is not None else None
    return MatchView(
        rules=match.rules,
        seats=seats_view,
        phase=phase,
        deal_number=match.deals_completed + (phase == MatchPhase.PLAYING),
        trick_number=trick_number if phase == MatchPhase.PLAYING else 0,
        tricks_per_deal=match.rules.hand_size,
        dealer=deal.dealer if deal is not None else None,
        turn=turn,
        leader=deal.leader if deal is not None and deal.turn is not None else None,
        trick=trick,
        previous_trick=previous,
        winners=match.winners,
        you=you,
    )


def hand_at_rest(match: Match, seat: int) -> tuple[tuple[Card, ...], str] | None:
    """``seat``'s hand while the seat may play none of it: its cards, lowest rank first, and the code of the
    refusal each of them meets (:meth:`~app.game.match.Match.waiting`: ``not_your_turn``,
    ``deal_not_started`` or ``match_over``); ``None`` while the seat is to play, and for an empty hand.

    :func:`hand_view` then refuses every card alike, for one reason with that code. So two states equal
    here show the seat the same hand, refused the same way but for the facts of the reason (whose turn
    it is): a server can tell, without building the hand's view, that a waiting hand is as it was. Raises
    ``IndexError`` for a seat that is not in the match.
    """
    if not 0 <= seat < match.seat_count:
        raise IndexError(f"no seat {seat} in this match")
    held = match.deal.hands[seat] if match.deal is not None else 0
    waiting = match.waiting(seat) if held else None
    return None if waiting is None else (cards_of(held), waiting)


def hand_view(match: Match, seat: int) -> HandView:
    """The private part of ``seat``'s view: their own hand, each card's legality and why not.

    ``view_for(match, seat)`` is ``view_for(match, None)`` with this as ``you``,
    so a server can build the public part once for every viewer. Raises
    ``IndexError`` for a seat that is not in the match.
    """
    if not 0 <= seat < match.seat_count:
        raise IndexError(f"no seat {seat} in this match")
    hand = match.hand(seat)
    if hand and match.waiting(seat) is not None:
        # Not this seat's turn (or no deal, or the match is over): every card is refused alike.
        refused = match.refusal(seat, hand[0])
        return HandView(seat, tuple(HandCard(card, False, refused) for card in hand))
    legal = set(match.legal_cards(seat))
    return HandView(seat, tuple(
        HandCard(card, card in legal, None if card in legal else match.refusal(seat, card))
        for card in hand
    ))
