"""A match of Cucumber as immutable states and the transitions between them.

``new_match`` → ``deal_cards``/``deal_hands`` → ``play`` … → ``deal_cards`` …
Every transition returns ``(new_state, events)`` and leaves its input alone;
an illegal action raises a :class:`~app.game.errors.GameError` instead.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import NamedTuple, NoReturn

from app.game.cards import DECK, RANK_BITS, Card, cards_of, lowest_rank_of
from app.game.errors import InvalidCard, InvalidDeal, InvalidMatch, card_given, shown
from app.game.events import (
    CardPlayed,
    DealEnded,
    DealStarted,
    Event,
    LifeLost,
    MatchWon,
    PenaltyScored,
    PlayerEliminated,
    PlayerReinstated,
    TrickWon,
)
from app.game.refusals import (
    CardNotInHand,
    DealInProgress,
    DealNotStarted,
    IllegalMove,
    IllegalPlay,
    MatchOver,
    NotYourTurn,
    Refusal,
)
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

_new = tuple.__new__


class Deal(NamedTuple):
    """The state of one deal (docs/rules.md §2.2–2.7). Immutable.

    - ``dealer``: the dealer's seat; ``dealt[s]``: seat s's hand as dealt, as
      a bit set (bit ``card`` set for each card; 0 for a seat not in the deal).
    - ``order``: seats in the deal, clockwise from the dealer's left.
    - ``next_seat[s]``: the seat after ``s`` in ``order`` (wrapping; -1 for
      a seat not in the deal).
    - ``hands[s]``: the cards seat s still holds, as a bit set.
    - ``plays``: every card played so far, in order.
    - ``leaders``: the leader of each trick so far, the current one last.
    - ``turn``: the seat to play, or ``None`` once the deal is complete.
    - ``winner``/``winning``: the seat winning the current trick so far and
      its card (-1 and ``None`` while the trick is empty). A complete deal
      keeps those of its last trick.
    - ``forced``: in the current trick a led ace forces every follower's
      lowest card (§3 ``ace_lead``).
    """

    dealer: int
    dealt: tuple[int, ...]
    order: tuple[int, ...]
    next_seat: tuple[int, ...]
    hands: tuple[int, ...]
    plays: tuple[Card, ...]
    leaders: tuple[int, ...]
    turn: int | None
    winner: int
    winning: Card | None
    forced: bool

    @property
    def is_complete(self) -> bool:
        """Whether every trick of the deal has been played."""
        return self.turn is None

    @property
    def trick_number(self) -> int:
        """Index of the current trick (the last one once complete), from 0."""
        return len(self.leaders) - 1

    @property
    def trick_start(self) -> int:
        """Index in ``plays`` of the current trick's first card."""
        return (len(self.leaders) - 1) * len(self.order)

    @property
    def leader(self) -> int:
        """The seat that led (or is to lead) the current trick."""
        return self.leaders[-1]

    def play_seats(self) -> tuple[int, ...]:
        """The seat that played each card of ``plays``, in the same order."""
        seats = []
        for leader in self.leaders:
            seat = leader
            for _ in self.order:
                seats.append(seat)
                seat = self.next_seat[seat]
        return tuple(seats[:len(self.plays)])

    def current_trick(self) -> tuple[tuple[int, Card], ...]:
        """The current trick (the last one once complete) as ``((seat, card), …)``."""
        trick = []
        seat = self.leaders[-1]
        for card in self.plays[self.trick_start:]:
            trick.append((seat, card))
            seat = self.next_seat[seat]
        return tuple(trick)

    def dealt_hand(self, seat: int) -> tuple[Card, ...]:
        """The hand ``seat`` was dealt, lowest rank first (empty if not in the deal)."""
        return cards_of(self.dealt[seat])


class Match(NamedTuple):
    """The whole state of a match (docs/rules.md §2). Immutable.

    - ``rules``, ``players`` (names, in seat order).
    - ``scores[s]``: seat s's total in points; ``lives[s]``: lives left (0 = eliminated).
    - ``dealer``: dealer of the current (or last) deal; ``None`` before the first.
    - ``history``: the completed deals, oldest first.
    - ``deal``: the current deal, or the last one once it is complete, or ``None``.
    - ``winners``: seats sharing the win, empty until the match is over.
    - ``finished``: whether the match is over.
    """

    rules: Rules
    players: tuple[str, ...]
    scores: tuple[int, ...]
    lives: tuple[int, ...]
    dealer: int | None
    history: tuple[Deal, ...]
    deal: Deal | None
    winners: tuple[int, ...]
    finished: bool

    @property
    def seat_count(self) -> int:
        """Number of seats (players) in the match, 2–7."""
        return len(self.players)

    @property
    def deals_completed(self) -> int:
        """Number of completed deals."""
        return len(self.history)

    @property
    def turn(self) -> int | None:
        """The seat whose turn it is, or ``None`` when nobody is to play."""
        return None if self.deal is None else self.deal.turn

    @property
    def needs_deal(self) -> bool:
        """Whether the next deal is due (the match goes on and no deal is in progress)."""
        return not self.finished and (self.deal is None or self.deal.turn is None)

    def is_active(self, seat: int) -> bool:
        """Whether ``seat`` is still in the match (not eliminated)."""
        return self.lives[seat] > 0

    def active_seats(self) -> tuple[int, ...]:
        """The seats still in the match, in seat order."""
        return tuple(s for s, left in enumerate(self.lives) if left > 0)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now, lowest rank first (empty between deals)."""
        if self.deal is None:
            return ()
        return cards_of(self.deal.hands[seat])

    def legal_cards(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` may play now (docs/rules.md §2.4, §3), lowest first.

        Empty unless it is that seat's turn in a deal in progress.
        """
        deal = self.deal
        if self.finished or deal is None or deal.turn != seat:
            return ()
        return cards_of(legal_mask(self.rules, deal))

    def is_legal(self, seat: int, card: Card | str) -> bool:
        """Whether ``seat`` may play ``card`` (a card or its code) now; ``False`` for a bad code."""
        try:
            return Card.parse(card) in self.legal_cards(seat)
        except InvalidCard:
            return False

    def waiting(self, seat: int | None) -> str | None:
        """The code of the refusal every card of ``seat`` meets now whatever the card, or ``None`` when the
        seat is to play: ``match_over`` (§2.10), ``deal_not_started`` (between deals) or ``not_your_turn``
        (another seat's turn, §2.3). For ``None`` (no seat), only the first two.
        """
        return _waiting(self, seat)

    def refusal(self, seat: int, card: Card | str) -> Refusal | None:
        """Why ``seat`` may not play ``card`` (a card or its code) now; ``None`` when it may.

        The refusal :func:`play` would raise with (docs/rules.md §2.3–2.4,
        §2.10, §3): its code and facts, such as the card to reach and the
        player's lowest cards. Raises :class:`InvalidCard` for a bad code.
        """
        return _refusal(self, seat, Card.parse(card))

    def next_dealer(self) -> int | None:
        """The dealer of the next deal (docs/rules.md §2.9), or ``None`` before the lot is drawn."""
        if self.dealer is None or self.deal is None:
            return self.dealer
        return _seating(tuple(map(bool, self.lives)), self.dealer)[0][0]


def new_match(players: Sequence[str], rules: Rules | None = None) -> Match:
    """A match before its first deal: every player on 0 points with full lives (§2.1).

    ``players`` are the names in seat order (2–7). Raises :class:`InvalidMatch`
    for a wrong number of players.
    """
    names = tuple(str(name) for name in players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise InvalidMatch(f"a match needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}")
    rules = rules or Rules()
    return Match(rules, names, (0,) * len(names), (rules.lives,) * len(names), None, (), None, (), False)


def deal_cards(match: Match, rng: random.Random) -> tuple[Match, list[Event]]:
    """Shuffle a full pack with ``rng`` and deal the next deal (docs/rules.md §2.2).

    Before the first deal the dealer is drawn by lot among the players in
    the match with ``rng`` (§2.1); later the deal passes to the next active
    player on the left (§2.9). Cards go one at a time, clockwise from the
    dealer's left. Raises :class:`MatchOver` or :class:`DealInProgress` when
    no deal is due.
    """
    _check_deal_due(match)
    if match.dealer is not None and match.deal is not None:
        dealer, order, next_seat = _next_deal_seating(match.lives, match.dealer)
    else:
        # Before the first deal of a match from new_match everyone is still in,
        # and then the lot draws exactly as rng.randrange(seat_count) would.
        dealer = rng.choice(match.active_seats()) if match.dealer is None else match.dealer
        order, next_seat = _seating(tuple(map(bool, match.lives)), dealer)
    count = len(order)
    needed = match.rules.hand_size * count
    # Sorting by random keys shuffles uniformly. The pack is sorted as the
    # cards' bits (in card order, so the same keys give the same deal as
    # sorting the cards would), which makes each hand a plain sum. One card
    # at a time clockwise from the dealer's left gives order[i] every
    # count-th card from i.
    rand = rng.random
    deck = sorted(_BITS, key=lambda _: rand())
    hands = [0] * match.seat_count
    for index, seat in enumerate(order):
        hands[seat] = sum(deck[index:needed:count])
    return _start_deal(match, dealer, order, next_seat, tuple(hands))


def deal_hands(match: Match, hands: Sequence[Sequence[str | Card]], *,
               dealer: int | None = None) -> tuple[Match, list[Event]]:
    """Start the next deal from given hands (replays, records and tests).

    ``hands[s]`` is seat s's hand (card codes or cards): ``hand_size`` cards
    for every active seat, none for an eliminated one, no card twice.
    ``dealer`` is required before the first deal (any active seat) and, when
    given later, must be the dealer §2.9 requires. Raises
    :class:`InvalidDeal` (with ``seat``/``card`` of the fault), or
    :class:`MatchOver`/:class:`DealInProgress` when no deal is due.
    """
    _check_deal_due(match)
    required = match.next_dealer()
    if required is None:
        if dealer is None:
            raise InvalidDeal("the first deal needs a dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < match.seat_count:
            raise InvalidDeal(f"dealer must be a seat from 0 to {match.seat_count - 1}, not {shown(dealer)}")
        if not match.is_active(dealer):
            raise InvalidDeal(f"seat {dealer} is eliminated and cannot deal", seat=dealer)
    elif dealer is not None and dealer != required:
        raise InvalidDeal(f"wrong dealer, expected seat {required}", seat=dealer)
    else:
        dealer = required
    if not isinstance(hands, Sequence) or isinstance(hands, str) or len(hands) != match.seat_count:
        raise InvalidDeal(f"hands must list one hand per seat ({match.seat_count})")
    seen: set[Card] = set()
    parsed = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, Sequence) or isinstance(hand, str):
            raise InvalidDeal(f"the hand of seat {seat} must be a list of cards", seat=seat)
        cards = []
        for code in hand:
            try:
                card = Card.parse(code)
            except InvalidCard as error:
                raise InvalidDeal(error.message, seat=seat, card=card_given(code)) from None
            if card in seen:
                raise InvalidDeal("card dealt twice", seat=seat, card=card.code)
            seen.add(card)
            cards.append(card)
        expected = match.rules.hand_size if match.is_active(seat) else 0
        if len(cards) != expected:
            raise InvalidDeal(f"hand has {len(cards)} cards, expected {expected}", seat=seat)
        parsed.append(sum(map(_BITS.__getitem__, cards)))
    return _start_deal(match, dealer, *_seating(tuple(map(bool, match.lives)), dealer), tuple(parsed))


def play(match: Match, card: Card | str, seat: int | None = None) -> tuple[Match, list[Event]]:
    """Play ``card`` for the seat whose turn it is (docs/rules.md §2.3–2.8, §3).

    ``seat``, when given, must be the seat whose turn it is. Returns the new
    match and the events (the card played, a trick won, and at the end of a
    deal the penalty, lives lost, eliminations and the match's end).

    Raises, changing nothing: :class:`InvalidCard` for a malformed code,
    :class:`MatchOver`, :class:`DealNotStarted`, :class:`NotYourTurn`,
    :class:`CardNotInHand` or :class:`IllegalPlay`.
    """
    if type(card) is not Card:
        card = Card.parse(card)
    deal = match.deal
    if (deal is None or match.finished or deal.turn is None or (seat is not None and seat != deal.turn)
            or not legal_mask(match.rules, deal) >> card & 1):
        _refuse_play(match, seat, card)
    new_deal, won = _play_cards(match.rules, deal, 1, lambda seat, legal: card)
    events: list[Event] = [_new(CardPlayed, (deal.turn, card, len(deal.leaders) - 1)), *won]
    if new_deal.turn is None:
        return _end_deal(match, new_deal, events)
    return _new(Match, (match.rules, match.players, match.scores, match.lives, match.dealer,
                        match.history, new_deal, match.winners, False)), events


Chooser = Callable[[int, int], Card]
"""Picks the card for the seat to play: ``choose(seat, legal) -> card``, where
``legal`` is the bit set of that seat's legal cards."""


def play_out_deal(match: Match, choose: Chooser | None = None, *,
                  rng: random.Random | None = None) -> tuple[Match, list[Event]]:
    """Play the rest of the current deal, each card picked by ``choose``.

    Without ``choose`` every card is chosen uniformly at random among the
    legal ones, using ``rng``. The fast path for simulations and searches:
    the same transitions as :func:`play`, without building a state per card.
    Returns the match after the deal (scored, maybe finished) and the events
    of the tricks won and of the deal's end. Raises :class:`DealNotStarted`
    when no deal is in progress, :class:`IllegalPlay` if ``choose`` returns
    a card outside ``legal``, and ``ValueError`` with neither ``choose`` nor
    ``rng``.
    """
    deal = match.deal
    if match.finished or deal is None or deal.turn is None:
        raise DealNotStarted()
    if choose is not None:
        deal, events = _play_cards(match.rules, deal, -1, choose)
        return _end_deal(match, deal, events)
    if rng is None:
        raise ValueError("play_out_deal needs a chooser or a random generator")
    events = []
    if deal.winning is not None:
        # A trick is under way: finish it card by card; whole tricks go faster below.
        width = len(deal.order)
        deal, events = _play_cards(match.rules, deal, width - len(deal.plays) % width, None, rng.random)
    if deal.turn is not None:
        deal, won = _play_random_tricks(match.rules, deal, rng.random)
        events += won
    return _end_deal(match, deal, events)


def legal_mask(rules: Rules, deal: Deal) -> int:
    """The legal cards of the seat to play, as a bit set (0 when the deal is complete)."""
    if deal.turn is None:
        return 0
    return _legal(deal.hands[deal.turn], _bar(deal.winning, deal.forced), rules.follow == "must_match")


# ---------------------------------------------------------------------------
# internals


def _check_deal_due(match: Match) -> None:
    if match.finished:
        raise MatchOver()
    if match.deal is not None and match.deal.turn is not None:
        raise DealInProgress()


def _refusal(match: Match, seat: int | None, card: Card) -> Refusal | None:
    """Why ``seat`` may not play ``card`` now (``None``: it may), without raising: a hand's view asks this
    of most of its cards for every state shown (docs/rules.md §2.3–2.4, §2.10, §3)."""
    waiting = _waiting(match, seat)
    if waiting == MatchOver.code:
        return _MATCH_OVER
    if waiting == DealNotStarted.code:
        return _DEAL_NOT_STARTED
    deal = match.deal
    assert deal is not None and deal.turn is not None  # a deal in progress, or _waiting would have said
    if waiting is not None:
        return Refusal(NotYourTurn.code, seat=deal.turn, player=match.players[deal.turn])
    hand = deal.hands[deal.turn]
    if not hand >> card & 1:
        return Refusal("card_not_in_hand", card=card)
    if not legal_mask(match.rules, deal) >> card & 1:
        # The follow rule that forbids it (§2.4, §3 follow and ace_lead), and what it allows.
        code = "lowest_after_ace" if deal.forced else match.rules.follow
        lowest = cards_of(hand & RANK_BITS[lowest_rank_of(hand)])
        return Refusal(code, card=card, highest=deal.winning, lowest=lowest)
    return None


def _waiting(match: Match, seat: int | None) -> str | None:
    """The refusal code of every card ``seat`` might play now, whatever the card, or ``None`` when the seat
    is to play (for no seat: when a deal is in progress): the checks :func:`_refusal` makes first."""
    deal = match.deal
    if match.finished:
        return MatchOver.code
    if deal is None or deal.turn is None:
        return DealNotStarted.code
    if seat is not None and seat != deal.turn:
        return NotYourTurn.code
    return None


_MATCH_OVER = Refusal(MatchOver.code)
_DEAL_NOT_STARTED = Refusal(DealNotStarted.code)
_ERRORS: dict[str, type[IllegalMove]] = {error.code: error for error in (MatchOver, DealNotStarted, NotYourTurn,
                                                                        CardNotInHand)}
"""The error raised for each refusal code; any other code is a follow rule's (:class:`IllegalPlay`)."""


def _check_play(match: Match, seat: int | None, card: Card) -> None:
    """Raise the error that explains why ``seat`` may not play ``card`` now."""
    refusal = _refusal(match, seat, card)
    if refusal is not None:
        raise _ERRORS.get(refusal.code, IllegalPlay)(refusal)


def _refuse_play(match: Match, seat: int | None, card: Card) -> NoReturn:
    """Raise the error that explains why ``seat`` may not play ``card``, for a play known to be refused."""
    _check_play(match, seat, card)
    raise AssertionError(f"{card} by seat {seat} looked refused, yet _check_play found nothing against it")


_ALL = (1 << 52) - 1
_RANK_OF_BIT_LENGTH = (0, *(0xF << ((length - 1) & ~3) for length in range(1, 53)))
"""``hand & _RANK_OF_BIT_LENGTH[(hand & -hand).bit_length()]``: the lowest-ranked cards of ``hand``."""
_AT_LEAST = tuple(_ALL >> (card & ~3) << (card & ~3) for card in range(52))
"""``_AT_LEAST[card]``: the bit set of every card of ``card``'s rank or higher."""


def _bar(winning: Card | None, forced: bool) -> int:
    """The cards that may follow on rank in the current trick, as a bit set.

    Everything when leading, nothing under a forcing ace (only the lowest
    card may be played), otherwise the winning card's rank and higher.
    """
    if winning is None:
        return _ALL
    return 0 if forced else _AT_LEAST[winning]


def _legal(hand: int, bar: int, must_match: bool) -> int:
    """The cards of ``hand`` that may be played, as a bit set (§2.4, §3 ``follow``).

    ``bar`` comes from :func:`_bar`. The lowest card (any of the lowest rank)
    is always legal under ``match_or_lowest``, and only when nothing reaches
    the bar under ``must_match``.
    """
    lowest = hand & _RANK_OF_BIT_LENGTH[(hand & -hand).bit_length()]
    if must_match:
        return hand & bar or lowest
    return hand & bar | lowest


@functools.cache
def _seating(active: tuple[bool, ...], dealer: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats in a deal clockwise from the dealer's left, and each one's successor.

    Returns ``(order, next_seat)`` with ``next_seat[s] == -1`` for a seat
    not in the deal (§2.2–2.3). Cached: there are few distinct seatings.
    """
    count = len(active)
    order = tuple(s for s in ((dealer + step) % count for step in range(1, count + 1)) if active[s])
    next_seat = [-1] * count
    for index, seat in enumerate(order):
        next_seat[seat] = order[(index + 1) % len(order)]
    return order, tuple(next_seat)


@functools.lru_cache(maxsize=4096)
def _next_deal_seating(lives: tuple[int, ...], previous: int) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """The next dealer after ``previous`` (§2.9) and that deal's ``(order, next_seat)``.

    Keyed by the lives themselves, which saves turning them into the active
    seats before every deal; bounded, as lives take many more values.
    """
    active = tuple(map(bool, lives))
    dealer = _seating(active, previous)[0][0]
    return (dealer, *_seating(active, dealer))


def _start_deal(match: Match, dealer: int, order: tuple[int, ...], next_seat: tuple[int, ...],
                hands: tuple[int, ...]) -> tuple[Match, list[Event]]:
    leader = order[0]
    deal = _new(Deal, (dealer, hands, order, next_seat, hands, (), (leader,), leader, -1, None, False))
    new = _new(Match, (match.rules, match.players, match.scores, match.lives, dealer, match.history, deal,
                       match.winners, match.finished))
    return new, [_new(DealStarted, (len(match.history), dealer, leader))]


def _no_random() -> float:
    raise ValueError("a card chosen at random needs a random generator")


def _play_cards(rules: Rules, deal: Deal, limit: int, choose: Chooser | None,
                rand: Callable[[], float] = _no_random) -> tuple[Deal, list[Event]]:
    """Play up to ``limit`` cards (all, if negative) of ``deal`` (§2.3–2.5).

    ``deal`` must be in progress. Each card comes from ``choose(seat, legal)``
    or, when ``choose`` is ``None``, uniformly at random among the legal cards
    using ``rand()`` (a float in [0, 1)). Returns the new deal and the tricks
    won on the way. Raises :class:`IllegalPlay` if ``choose`` returns a card
    outside ``legal``, and ``ValueError`` for a random card without ``rand``.

    The hot path of every simulation: it works on local lists and builds one
    new state at the end.
    """
    dealer, dealt, order, next_seat, held, played, led, turn, winner, winning_card, forced = deal
    assert turn is not None, "_play_cards plays a deal in progress only"
    seat = turn
    remaining = len(order) * rules.hand_size - len(played)
    count = remaining if limit < 0 else min(limit, remaining)
    hands, leaders = list(held), list(led)
    plays: list[int] = list(played)
    must_match = rules.follow == "must_match"
    ace_lead, hand_size = rules.ace_lead, rules.hand_size
    leader = leaders[-1]
    bar = _bar(winning_card, forced)
    # Plain ints in the loop (faster than Card), turned back into cards below.
    winning = -1 if winning_card is None else int(winning_card)
    won: list[Event] = []
    for _ in range(count):
        hand = hands[seat]
        # _legal(hand, bar, must_match), inlined: this line runs for every card of every simulation
        lowest = hand & _RANK_OF_BIT_LENGTH[(hand & -hand).bit_length()]
        legal = (hand & bar or lowest) if must_match else (hand & bar | lowest)
        if choose is not None:
            card = int(choose(seat, legal))
            if not legal >> card & 1:
                raise IllegalPlay(Refusal("not_legal", card=DECK[card]))
        else:
            if legal & (legal - 1):  # more than one legal card: drop a random number of the lowest
                skip = int(rand() * legal.bit_count())
                while skip:
                    legal &= legal - 1
                    skip -= 1
            card = (legal & -legal).bit_length() - 1
        hands[seat] = hand ^ (1 << card)
        plays.append(card)
        if winning < 0:
            winner, winning = seat, card
            forced = card >= _ACES and (ace_lead == "forces_lowest" or (
                ace_lead == "forces_lowest_last_trick" and len(leaders) == hand_size))
            bar = 0 if forced else _AT_LEAST[card]
        elif bar >> card & 1:
            winner, winning = seat, card
            bar = _AT_LEAST[card]
        seat = next_seat[seat]
        if seat == leader:
            won.append(_new(TrickWon, (winner, DECK[winning], len(leaders) - 1)))
            # After the last trick the deal is over (the loop ends with it); it keeps that trick for scoring.
            if len(leaders) < hand_size:
                leaders.append(winner)
                seat = leader = winner
                winner, winning, forced, bar = -1, -1, False, _ALL
    return _new(Deal, (dealer, dealt, order, next_seat, tuple(hands), tuple(map(DECK.__getitem__, plays)),
                       tuple(leaders), None if count == remaining else seat, winner,
                       None if winning < 0 else DECK[winning], forced)), won


def _play_random_tricks(rules: Rules, deal: Deal, rand: Callable[[], float]) -> tuple[Deal, list[Event]]:
    """Play the remaining tricks of ``deal``, every card uniformly random among the legal ones.

    ``deal`` must be in progress with its current trick still empty. Picks
    exactly as :func:`_play_cards` does with ``choose=None`` (the same calls
    to ``rand()``, the same card for each value), so both paths give the
    same deal for the same generator. Returns the complete deal and the
    tricks won (§2.3–2.5, §3 ``follow`` and ``ace_lead``).

    The hot path of simulations and benchmarks, faster than the general loop
    because it goes trick by trick over a cached tuple of the followers of
    each leader (no per-card "whose turn, is the trick over" bookkeeping),
    picks the lead from the whole hand (its size is known), plays the last
    trick without choosing (everyone holds one card), keeps hands as bits
    and turns card numbers into :class:`Card` once, at the end.
    """
    dealer, dealt, order, next_seat, held, plays, led, turn, _, _, _ = deal
    assert turn is not None, "_play_random_tricks plays a deal in progress only"
    leader = turn
    hands, leaders = list(held), list(led)
    hand_size = rules.hand_size
    must_match = rules.follow == "must_match"
    # The first trick (from 0) in which a led ace forces every follower's lowest card.
    forcing_from = {"forces_lowest": 0, "forces_lowest_last_trick": hand_size - 1}.get(rules.ace_lead, hand_size)
    followers_of = _followers(order)
    # Tables and builtins as locals: the loop below runs for every card of every simulation.
    low_of, at_least, to_int = _RANK_OF_BIT_LENGTH, _AT_LEAST, int
    played: list[int] = []  # plain card numbers, turned into cards once at the end
    add = played.append
    won: list[Event] = []
    for trick in range(len(leaders) - 1, hand_size - 1):
        hand = hands[leader]
        # The leader may play any card; every hand holds hand_size - trick (>= 2)
        # cards now. Drop a random number of the lowest, as the general loop does.
        bit = hand
        skip = to_int(rand() * (hand_size - trick))
        while skip:
            bit &= bit - 1
            skip -= 1
        bit &= -bit
        hands[leader] = hand ^ bit
        winning = bit.bit_length() - 1
        add(winning)
        winner = leader
        bar = 0 if winning >= _ACES and trick >= forcing_from else at_least[winning]
        for seat in followers_of[leader]:
            hand = hands[seat]
            # The legal cards (_legal, inlined): reaching the bar, or the lowest rank.
            if must_match:
                legal = hand & bar or hand & low_of[(hand & -hand).bit_length()]
            else:
                legal = hand & (bar | low_of[(hand & -hand).bit_length()])
            if legal & (legal - 1):
                skip = to_int(rand() * legal.bit_count())
                while skip:
                    legal &= legal - 1
                    skip -= 1
            bit = legal & -legal
            hands[seat] = hand ^ bit
            card = bit.bit_length() - 1
            add(card)
            if bar & bit:  # at least the highest so far: the later card wins ties (§2.5)
                winner = seat
                winning = card
                bar = at_least[card]
        won.append(_new(TrickWon, (winner, DECK[winning], trick)))
        leaders.append(winner)
        leader = winner
    # The last trick: everyone holds one card, which is legal, so no choice is drawn.
    bit = hands[leader]
    winning = bit.bit_length() - 1
    add(winning)
    winner = leader
    forced = winning >= _ACES and hand_size - 1 >= forcing_from
    bar = 0 if forced else at_least[winning]
    for seat in followers_of[leader]:
        bit = hands[seat]
        if bar & bit:
            winner = seat
            winning = bit.bit_length() - 1
            bar = at_least[winning]
        add(bit.bit_length() - 1)
    won.append(_new(TrickWon, (winner, DECK[winning], hand_size - 1)))
    # Whole tricks were played, so there are at least two cards and the getter returns a tuple.
    plays += itemgetter(*played)(DECK)
    return _new(Deal, (dealer, dealt, order, next_seat, (0,) * len(hands), plays, tuple(leaders), None, winner,
                       DECK[winning], forced)), won


@functools.cache
def _followers(order: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each seat of ``order``, the seats after it in a trick it leads, clockwise.

    Indexed by seat (an empty tuple for a seat not in the deal). Cached:
    there are few distinct orders.
    """
    result: list[tuple[int, ...]] = [()] * (max(order) + 1)
    for index, seat in enumerate(order):
        result[seat] = order[index + 1:] + order[:index]
    return tuple(result)


_ACES = 48  # the first ace's card number: (14 - 2) * 4
_BITS = tuple(1 << card for card in range(52))


def last_trick_payers(rules: Rules, deal: Deal) -> tuple[tuple[int, ...], int, Card]:
    """Who pays for the last trick of a complete deal, how much, and for which card.

    Returns ``(seats, points, card)``: the seats receiving the penalty (in play
    order), the points each adds, and the card whose value it is (docs/rules.md
    §2.7; §3 ``last_trick_tie`` and ``penalty_to``).

    - ``penalty_to = "highest"``: the winner of the trick pays the value of
      the card they won it with; with ``all_tied`` so does everyone who
      played that rank (the leader's card included).
    - ``penalty_to = "lowest"``: the player of the lowest rank pays the
      value of the trick's highest card; among equal lowest ranks
      ``last_trick_tie`` decides: ``last_played`` the later card pays,
      ``all_tied`` every one of them pays.
    """
    trick = deal.current_trick()
    if rules.penalty_to == "highest":
        top_card = deal.winning
        assert top_card is not None, "a complete deal keeps the winning card of its last trick"
        pay_rank = top_card >> 2
    else:
        # The value paid is the highest card's (the later of equal ones names it).
        top_card = max(reversed([card for _, card in trick]), key=lambda card: card >> 2)
        pay_rank = min(card >> 2 for _, card in trick)
    if rules.last_trick_tie == "all_tied":
        payers = tuple(seat for seat, card in trick if card >> 2 == pay_rank)
    elif rules.penalty_to == "highest":
        payers = (deal.winner,)
    else:
        payers = ([seat for seat, card in trick if card >> 2 == pay_rank][-1],)
    return payers, top_card.value, top_card


def score_deal(rules: Rules, deal: Deal, scores: tuple[int, ...], lives: tuple[int, ...],
               events: list[Event]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Score the last trick of the complete ``deal`` on ``scores`` and ``lives`` (docs/rules.md §2.7, §2.8, §3).

    ``scores`` and ``lives`` are every seat's totals and lives when the deal
    began. Returns the totals and lives after it, and adds to ``events`` the
    penalties, lives lost, eliminations and reinstatements it caused, in that
    order. ``lives`` comes back unchanged (the same tuple) when nobody
    reached the threshold.
    """
    new_scores = list(scores)
    payers, points, card = last_trick_payers(rules, deal)
    crossed = []
    for seat in payers:
        total = new_scores[seat] = new_scores[seat] + points
        events.append(_new(PenaltyScored, (seat, points, card, total)))
        if total >= rules.threshold:
            crossed.append(seat)
    if crossed:
        lives = _cross_threshold(rules, deal, scores, new_scores, list(lives), crossed, events)
    return tuple(new_scores), lives


def _end_deal(match: Match, deal: Deal, events: list[Event]) -> tuple[Match, list[Event]]:
    """Score the last trick, apply lives and eliminations, and maybe end the match (§2.7–2.10).

    ``deal`` is the complete current deal; the events of scoring are added to
    ``events``, which is returned with the new match.
    """
    rules = match.rules
    scores, lives = score_deal(rules, deal, match.scores, match.lives, events)
    crossed = lives is not match.lives
    deals = len(match.history) + 1
    events.append(_new(DealEnded, (deals - 1,)))
    winners: tuple[int, ...] = ()
    # match_length is a number of deals or "elimination" (Rules checks it).
    last_deal = isinstance(rules.match_length, int) and deals >= rules.match_length
    # Lives change only when someone crosses the threshold: otherwise at least
    # two players are still in, and only a fixed length can end the match.
    if crossed or last_deal:
        active = [seat for seat, left in enumerate(lives) if left > 0]
        if len(active) == 1:
            winners = (active[0],)
        elif last_deal:
            best = min(scores[seat] for seat in active)
            winners = tuple(seat for seat in active if scores[seat] == best)
        if winners:
            events.append(MatchWon(winners))
    new = _new(Match, (rules, match.players, scores, lives, match.dealer, (*match.history, deal), deal,
                       winners, bool(winners)))
    return new, events


def _cross_threshold(rules: Rules, deal: Deal, before: tuple[int, ...], scores: list[int], lives: list[int],
                     crossed: list[int], events: list[Event]) -> tuple[int, ...]:
    """Apply §2.8 and the settled cases of §3 to the seats that crossed the threshold.

    ``before`` holds the totals at the start of the deal, ``scores`` and
    ``lives`` (updated in place) the state after the penalty, ``crossed``
    the seats now at or above the threshold, in play order. Returns the new
    lives; adds the events of lives lost, eliminations and reinstatements.
    """
    others_at_start = len(deal.order) - 1
    eliminated_now = []
    for seat in crossed:
        if lives[seat] > 1 and others_at_start >= rules.second_life_min_opponents:
            lives[seat] -= 1
            # The highest total before this deal's penalties among the others
            # in the deal: always below the threshold, even when several cross.
            scores[seat] = max(map(before.__getitem__, _followers(deal.order)[seat]))
            events.append(_new(LifeLost, (seat, lives[seat], scores[seat])))
        else:
            lives[seat] = 0
            eliminated_now.append(seat)
            events.append(PlayerEliminated(seat, scores[seat]))
    if not any(lives):
        # Nobody would be left: the lowest of those just eliminated stay in, with one life.
        lowest = min(scores[seat] for seat in eliminated_now)
        for seat in eliminated_now:
            if scores[seat] == lowest:
                lives[seat] = 1
                events.append(PlayerReinstated(seat, scores[seat]))
    return tuple(lives)
