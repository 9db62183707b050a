"""What one viewer sees of a room: the engine's view plus seats, host and lobby.

:func:`room_view` is the only way pages and messages learn about a room; it
takes the room's :class:`Table` (its facts at one version) and asks the
engine for the viewer's :class:`~app.game.views.MatchView`, so a hand
reaches nobody but its owner.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import NamedTuple

from app.game.cards import Card
from app.game.match import Deal, Match
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, preset_name
from app.game.score_sheet import DealScore, score_sheet
from app.game.standings import placings
from app.game.summary import DealSummary
from app.game.views import HandCard, HandView, MatchPhase, MatchView, SeatView, hand_at_rest, hand_view, view_for
from app.rooms.lobby import Seat, seat_of
from app.rooms.pace import Pace
from app.rooms.phases import RoomPhase, room_phase
from app.wording.refusals import WAITING

KnownSheet = tuple[tuple[Deal, ...], tuple[DealScore, ...]]
"""A match's completed deals and the score sheet worked out from them."""


class SeatInfo(NamedTuple):
    """One seat as everyone sees it: the engine's public seat (:class:`~app.game.views.SeatView`, whose
    fields come first), and who sits there.

    ``player`` is the occupant's public id (actions aimed at this seat name
    it); ``bot`` is a bot's strength (``None`` for a person); ``away``
    whether a bot plays for a person who has been gone past the grace period,
    or who stepped away (``stepped_away``: handed the seat to the bot by choice).

    The views of a room are named tuples, as the engine's: every version builds them again for each seat.
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
    player: str
    bot: str | None
    is_host: bool
    is_you: bool
    connected: bool
    away: bool
    stepped_away: bool = False
    played_for: str | None = None
    """In a slow room, why the bot plays for the person: ``"vacation"``, or ``"deadline"`` (it played their last
    turn at its deadline); ``None`` otherwise."""


class Standing(NamedTuple):
    """A line of the final standings: place (from 1), seat, name and total points."""

    place: int
    seat: int
    name: str
    score: int


class RoomView(NamedTuple):
    """Everything one viewer may see of a room at one version.

    ``you_seat`` is ``None`` for a spectator (the host may watch without a
    seat); ``hand`` is the viewer's own hand (empty for spectators and
    outside deals). ``match`` is the engine's view once a match exists.
    ``summary`` describes the last finished deal. ``turn_seconds`` is the
    room's turn clock (``None`` when off) and ``turn_remaining`` the seconds
    left for the seat to play. ``score_sheet`` holds the completed deals of
    the match (public, from the engine's :func:`~app.game.score_sheet.score_sheet`).
    """

    code: str
    version: int
    phase: RoomPhase
    rules: Rules
    preset: str | None
    seats: tuple[SeatInfo, ...]
    spectators: int
    host_seat: int | None
    you_seat: int | None
    you_are_host: bool
    hand: tuple[HandCard, ...]
    match: MatchView | None
    summary: DealSummary | None
    match_id: str | None
    standings: tuple[Standing, ...]
    turn_seconds: int | None
    turn_remaining: float | None
    score_sheet: tuple[DealScore, ...] = ()
    pace: Pace | None = None
    """A slow room's pace (``None``: a live room)."""
    deadline: datetime | None = None
    """When the turn waited for in a slow room runs out (``None``: nobody is to play)."""
    webhook: str | None = None
    """The slow room's chat webhook URL, in the host's own view only."""

    @property
    def seat_names(self) -> tuple[str, ...]:
        """The players' names, in seat order."""
        return tuple(seat.name for seat in self.seats)

    def in_match(self, seat: int) -> bool:
        """Whether seat ``seat`` plays (or played) the match shown: every seat but those taken by people who sat
        down after it finished (nobody has played before the first match either: ``phase`` says so)."""
        return self.match is None or seat < len(self.match.seats)

    @property
    def winner_names(self) -> list[str]:
        """The names of the players who won the match, in seat order (empty until it is over)."""
        if self.match is None:
            return []
        return [self.seats[seat].name for seat in self.match.winners]

    @property
    def turn(self) -> int | None:
        """The seat to play, or ``None``."""
        return self.match.turn if self.match is not None and self.phase == RoomPhase.PLAYING else None

    @property
    def cards_played(self) -> int:
        """How many cards have been played in the deal being played (0 between deals)."""
        if self.match is None or self.match.phase != MatchPhase.PLAYING:
            return 0
        return sum(len(seat.played) for seat in self.seats) + len(self.match.trick)

    @property
    def your_turn(self) -> bool:
        """Whether the viewer is the seat to play."""
        return self.you_seat is not None and self.turn == self.you_seat

    @property
    def can_start(self) -> bool:
        """Whether the viewer may start a match now (host, 2–7 seated, no match running; docs/rules.md §1)."""
        return self.you_are_host and self.phase != RoomPhase.PLAYING and MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS

    def host_controls(self, seat: SeatInfo) -> str | None:
        """Which of the host's controls this viewer gets on ``seat`` (one of this view's seats), as
        :func:`host_controls` says."""
        return host_controls(self.phase, seat, host=self.you_are_host, own=seat.is_you)

    @property
    def has_free_seat(self) -> bool:
        """Whether a seat is still free for a person or a bot (at most 7 play; docs/rules.md §1)."""
        return len(self.seats) < MAX_PLAYERS


def host_controls(phase: RoomPhase, seat: SeatInfo, *, host: bool, own: bool) -> str | None:
    """Which of the host's controls a viewer gets on ``seat`` in a room in ``phase``: ``"remove"`` out of a
    match; ``"hand"`` during a match, on a person's seat that is still in and ``away`` (gone past the grace
    period, or stepped away: as :meth:`~app.rooms.lobby.Lobby.require_away_seat` asks to hand it to a bot,
    or give it to someone else); ``None`` otherwise, and always on the viewer's ``own`` seat and for a
    viewer who does not ``host``."""
    if not host or own:
        return None
    if phase != RoomPhase.PLAYING:
        return "remove"
    return "hand" if not seat.bot and seat.away and not seat.eliminated else None


class Table(NamedTuple):
    """A room's facts at one version, everything any view of it is built from.

    ``host`` is the host's token hash; ``connected`` the seats with a live
    connection; ``away`` the seats a bot plays for while their person is
    gone; ``turn_remaining`` the seconds left on the turn clock (``None``: no
    clock running); ``last_summary`` the last finished deal's summary;
    ``stepped`` the seats whose person handed them to the bot by choice
    (they are in ``away`` too while a match is played).
    """

    code: str
    version: int
    rules: Rules
    seats: tuple[Seat, ...]
    host: str | None
    match: Match | None
    match_id: str | None
    last_summary: DealSummary | None
    connected: frozenset[int]
    away: frozenset[int]
    spectators: int
    turn_seconds: int | None
    turn_remaining: float | None
    stepped: frozenset[int] = frozenset()
    pace: Pace | None = None
    slow: tuple[datetime | None, tuple[str | None, ...]] = (None, ())
    """A slow room's deadline and why the bot plays for each seat (:meth:`~app.rooms.slow.SlowTable.shown`)."""
    webhook: tuple[str, str] | None = None
    """A slow room's chat webhook and the language posted in (shown to the host only)."""

    @property
    def phase(self) -> RoomPhase:
        """The room's phase: :func:`~app.rooms.phases.room_phase` of its match."""
        return room_phase(self.match)


def public_view(table: Table, earlier_sheet: KnownSheet | None = None) -> RoomView:
    """What everyone may see of the room in ``table``: the view of a spectator who does not host.

    ``earlier_sheet`` is a score sheet worked out before, with the completed deals it was worked out from
    (:func:`known_sheet`): where those are this match's very deals, it is not worked out again.
    """
    match = table.match
    phase = table.phase
    engine_view = view_for(match, None) if match is not None else None
    host_seat = seat_of(table.seats, table.host)
    seats = []
    for index, seat_state in enumerate(table.seats):
        public = engine_view.seats[index] if engine_view is not None and index < len(engine_view.seats) else None
        if public is None:  # the lobby: nobody has played yet
            public = SeatView(index, seat_state.name, 0, table.rules.lives, False, False, False, 0, ())
        seats.append(SeatInfo(*public, seat_state.player, seat_state.bot, index == host_seat, False,
                              seat_state.is_bot or index in table.connected, index in table.away,
                              index in table.stepped and index in table.away,
                              table.slow[1][index] if index < len(table.slow[1]) else None))
    standings: tuple[Standing, ...] = ()
    if match is not None and match.finished:
        places = placings(match)
        standings = tuple(sorted(
            (Standing(places[s], s, match.players[s], match.scores[s]) for s in range(match.seat_count)),
            key=lambda line: (line.place, line.seat)))
    rules = match.rules if match is not None and phase == RoomPhase.PLAYING else table.rules
    return RoomView(
        code=table.code,
        version=table.version,
        phase=phase,
        rules=rules,
        preset=_preset_name(rules),
        seats=tuple(seats),
        spectators=table.spectators,
        host_seat=host_seat,
        you_seat=None,
        you_are_host=False,
        hand=(),
        match=engine_view,
        summary=table.last_summary,
        match_id=table.match_id if match is not None else None,
        standings=standings,
        turn_seconds=table.turn_seconds,
        turn_remaining=table.turn_remaining,
        score_sheet=_sheet(match, earlier_sheet),
        pace=table.pace,
        deadline=table.slow[0] if phase == RoomPhase.PLAYING else None,
    )


_preset_name = functools.lru_cache(maxsize=256)(preset_name)
"""The engine's :func:`~app.game.rules.preset_name`, once per rules: every version of a room asks it again."""


def _sheet(match: Match | None, known: KnownSheet | None) -> tuple[DealScore, ...]:
    """The score sheet of ``match`` (empty before one exists): ``known``'s where it was worked out from the
    same deals (the engine keeps a match's completed deals in one tuple until the next is completed)."""
    if match is None:
        return ()
    if known is not None and known[0] is match.history:
        return known[1]
    return score_sheet(match)


def known_sheet(table: Table, view: RoomView) -> KnownSheet | None:
    """The score sheet of ``view`` (a view of ``table``) with the completed deals it was worked out from,
    for :func:`public_view` to reuse in later versions (``None``: no match)."""
    return None if table.match is None else (table.match.history, view.score_sheet)


def viewer_view(public: RoomView, table: Table, seat: int | None, *, host: bool = False,
                hand: HandView | None = None) -> RoomView:
    """The view for the player in ``seat`` (``None``: a spectator), from the room's :func:`public_view`.

    Only the viewer's own part is added: their hand (from the engine's
    :func:`~app.game.views.hand_view`, so it reaches nobody else; ``hand`` when
    the caller has it already, as :func:`own_hand` gives it), which seat is
    theirs, and whether they host.
    """
    if seat is None and not host:
        return public
    engine_view = public.match
    if hand is None:
        hand = own_hand(table, seat)
    if hand is not None and engine_view is not None:
        engine_view = engine_view._replace(you=hand)
    seats = public.seats
    if seat is not None and seat < len(seats):  # the public seats are nobody's: only the viewer's own changes
        seats = (*seats[:seat], seats[seat]._replace(is_you=True), *seats[seat + 1:])
    return public._replace(you_seat=seat, you_are_host=host, hand=hand.cards if hand is not None else (),
                           match=engine_view, seats=seats,
                           webhook=table.webhook[0] if host and table.webhook is not None else None)


def own_hand(table: Table, seat: int | None) -> HandView | None:
    """The hand of the player in ``seat`` at ``table``'s version, with what they may play (the engine's
    :func:`~app.game.views.hand_view`); ``None`` for a spectator, and for a seat outside the match."""
    match = table.match
    if seat is None or match is None or seat >= match.seat_count:
        return None
    return hand_view(match, seat)


class Viewer:
    """One kind of viewer of one version of a room: ``seat`` (``None``: a spectator) and ``host``, with
    what they see built only as far as a renderer asks.

    ``public`` is the version's :func:`public_view`; :attr:`hand` the viewer's
    own cards (empty for a spectator); :meth:`view` their whole
    :class:`RoomView` (:func:`viewer_view`). Each is built once.
    """

    __slots__ = ("_hand", "_looked", "_rest", "_rest_looked", "_view", "host", "public", "seat", "table")

    def __init__(self, public: RoomView, table: Table, seat: int | None, host: bool) -> None:
        self.public, self.table, self.seat, self.host = public, table, seat, host
        self._hand: HandView | None = None
        self._looked = False  # whether _hand has been worked out
        self._rest: tuple[tuple[Card, ...], str] | None = None
        self._rest_looked = False  # whether _rest has been worked out
        self._view: RoomView | None = None

    @property
    def hand(self) -> tuple[HandCard, ...]:
        """The viewer's own hand, each card with whether it may be played and why not (empty: none)."""
        hand = self._own()
        return () if hand is None else hand.cards

    @property
    def at_rest(self) -> tuple[tuple[Card, ...], str] | None:
        """The viewer's hand while it waits for their turn or the next deal: its cards and the refusal's code
        (:func:`~app.game.views.hand_at_rest`), whose words name nobody
        (:data:`~app.wording.refusals.WAITING`); ``None`` for a spectator, while they are to play, for an
        empty hand and for any other refusal. A waiting hand equal here is shown as it was (its cards, and
        why, alike), so renderers tell that without :attr:`hand`."""
        if not self._rest_looked:
            match, seat = self.table.match, self.seat
            if seat is not None and match is not None and seat < match.seat_count:
                rest = hand_at_rest(match, seat)
                self._rest = rest if rest is not None and rest[1] in WAITING else None
            self._rest_looked = True
        return self._rest

    @property
    def player(self) -> str | None:
        """The public id of the viewer's seat (``None`` for a spectator)."""
        seats = self.public.seats
        return seats[self.seat].player if self.seat is not None and self.seat < len(seats) else None

    @property
    def version(self) -> int:
        """The version of the room seen."""
        return self.public.version

    @property
    def your_turn(self) -> bool:
        """Whether the viewer is the seat to play."""
        return self.seat is not None and self.public.turn == self.seat

    def view(self) -> RoomView:
        """Everything this viewer sees (:func:`viewer_view`)."""
        if self._view is None:
            self._view = viewer_view(self.public, self.table, self.seat, host=self.host, hand=self._own())
        return self._view

    def _own(self) -> HandView | None:
        if not self._looked:
            self._hand, self._looked = own_hand(self.table, self.seat), True
        return self._hand


def room_view(table: Table, seat: int | None, *, host: bool = False) -> RoomView:
    """The view of the room in ``table`` for the player in ``seat`` (``None``: a spectator).

    ``host`` says whether the viewer is the host (seated or not).
    """
    return viewer_view(public_view(table), table, seat, host=host)
