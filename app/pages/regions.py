"""The table page's live regions as typed values: for each region of ``room.html``, exactly what its block
shows one viewer, projected from a version of the room and that viewer's own part.

A :class:`~app.rooms.views.Viewer` is the projection's input: the version's
public view (built once for every viewer) and the viewer's own part beside it
(their seat, whether they host, their hand). Each function here gives one
region's value, a named tuple of public facts and of what is the viewer's own
("you", their turn, their controls). The region's block in ``room.html`` reads
that value alone, so its HTML is a pure function of it (and of the language
and the page's constants): equal values render alike, and the renderer keeps a
rendering under the value itself (:class:`~app.pages.table.PageRenderer`).

Hidden cards: only :func:`hand` reads the viewer's hand, and only the hand
region shows it. Every other value is built from the public view and from
the viewer's seat and host role, so no edit of another block can show a card
that is not public.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, Literal, NamedTuple

from app.game.cards import Card
from app.game.refusals import Refusal
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from app.game.score_sheet import DealScore
from app.game.summary import DealSummary
from app.game.views import MatchPhase
from app.rooms.chat import ChatStatus
from app.rooms.phases import RoomPhase
from app.rooms.views import RoomView, SeatInfo, Viewer, host_controls
from app.wording.refusals import unplayable_said

Role = Literal["host", "player", "spectator"]
"""Who a viewer is at the table, where a region says it: the host (seated or not), another seated player, or
someone watching."""


def _role(viewer: Viewer) -> Role:
    if viewer.host:
        return "host"
    return "spectator" if viewer.seat is None else "player"


def _stage(public: RoomView) -> str:
    """The room's phase, or while a match is played the match's (``playing``, ``deal_over``)."""
    match = public.match
    return str(match.phase) if match is not None and public.phase == RoomPhase.PLAYING else str(public.phase)


class StatusDetail(NamedTuple):
    """While a deal is played, the status's details: the deal and trick, how many watch, a slow table's
    ``deadline`` and the turn clock (``turn_seconds`` a turn, ``turn_remaining`` left)."""

    deal_number: int
    trick_number: int
    tricks_per_deal: int
    spectators: int
    deadline: datetime | None
    turn_seconds: int | None
    turn_remaining: float | None


class StatusShown(NamedTuple):
    """The ``status`` region: the headline of the room's state and its detail.

    ``stage`` is :func:`_stage`; ``turn`` the seat to play; ``your_turn`` whether it is the viewer's;
    ``waiting_for`` the name of the seat to play when it is someone else's; ``role`` what the lobby and the
    end say to the viewer (``None`` while a match is played: nothing there is said to one viewer alone);
    ``winners`` the names of the match's winners; ``turn_remaining`` the seconds left on the turn clock.
    """

    version: int
    phase: RoomPhase
    stage: str
    turn: int | None
    your_turn: bool
    waiting_for: str | None
    role: Role | None
    seated: int
    spectators: int
    turn_hours: int | None
    turn_seconds: int | None
    winners: tuple[str, ...]
    deal_number: int
    trick_number: int
    tricks_per_deal: int
    deadline: datetime | None
    turn_remaining: float | None

    @property
    def detail(self) -> StatusDetail:
        """The details shown while a deal is played."""
        return StatusDetail(self.deal_number, self.trick_number, self.tricks_per_deal, self.spectators, self.deadline,
                            self.turn_seconds, self.turn_remaining)


def status(public: RoomView) -> StatusShown:
    """The ``status`` region's value as everyone sees it: a spectator who does not host."""
    match, turn = public.match, public.turn
    return StatusShown(
        version=public.version, phase=public.phase, stage=_stage(public), turn=turn, your_turn=False,
        waiting_for=public.seats[turn].name if turn is not None else None,
        role=None if public.phase == RoomPhase.PLAYING else "spectator",
        seated=len(public.seats), spectators=public.spectators,
        turn_hours=public.pace.turn_hours if public.pace is not None else None, turn_seconds=public.turn_seconds,
        winners=tuple(public.winner_names) if public.phase == RoomPhase.FINISHED else (),
        deal_number=match.deal_number if match is not None else 0,
        trick_number=match.trick_number if match is not None else 0,
        tricks_per_deal=match.tricks_per_deal if match is not None else 0,
        deadline=public.deadline, turn_remaining=public.turn_remaining)


def your_status(viewer: Viewer, everyone: StatusShown) -> StatusShown:
    """The ``status`` region's value for ``viewer``, from ``everyone``'s (:func:`status`): whether it is their
    turn, and out of a match what the lobby and the end say to them."""
    your_turn = everyone.turn is not None and everyone.turn == viewer.seat
    role = None if everyone.role is None else _role(viewer)
    if not your_turn and role == everyone.role:
        return everyone
    return everyone._replace(your_turn=your_turn, waiting_for=None if your_turn else everyone.waiting_for, role=role)


class JoinShown(NamedTuple):
    """The ``join`` region: the form that takes a seat, for a viewer ``watching`` (without a seat) while one
    is ``free`` out of a match. ``typed_name`` is what a refused form had in its name field (the first page
    only)."""

    code: str
    watching: bool
    phase: RoomPhase
    free: bool
    typed_name: str = ""


def join(public: RoomView) -> JoinShown:
    """The ``join`` region's value as everyone sees it: a viewer without a seat."""
    return JoinShown(public.code, True, public.phase, len(public.seats) < MAX_PLAYERS)


def your_join(viewer: Viewer, everyone: JoinShown) -> JoinShown:
    """The ``join`` region's value for ``viewer``, from ``everyone``'s (:func:`join`): hidden from a seated
    player."""
    return everyone if viewer.seat is None else everyone._replace(watching=False)


class StandingShown(NamedTuple):
    """A line of the final standings: place (from 1), seat, name, total points and lives left."""

    place: int
    seat: int
    name: str
    score: int
    lives: int


class SummaryShown(NamedTuple):
    """The ``summary`` region: the last deal's story (``last_deal``, told with the seats' ``names``), and at a
    match's end the final standings and the match's id (its replay and record). ``last_deal`` is the last
    finished deal's summary (``None``: none yet)."""

    phase: RoomPhase
    stage: str
    last_deal: DealSummary | None
    names: tuple[str, ...]
    standings: tuple[StandingShown, ...]
    match_id: str | None


def summary(public: RoomView) -> SummaryShown:
    """The ``summary`` region's value: the same for every viewer."""
    finished = public.phase == RoomPhase.FINISHED
    standings = tuple(StandingShown(line.place, line.seat, line.name, line.score, public.seats[line.seat].lives)
                      for line in public.standings) if finished else ()
    return SummaryShown(public.phase, _stage(public), public.summary,
                        public.seat_names if public.summary is not None else (), standings,
                        public.match_id if finished else None)


class ControlsShown(NamedTuple):
    """The ``controls`` region: out of a match, the host's (start, the turn clock, bots, leaving their seat) and
    a seated player's (leaving the seat). ``host`` says whether the viewer hosts, ``sitting`` whether they
    have a seat, ``seated`` how many have one. While a match is played the region is hidden from everyone,
    and says nothing of the viewer."""

    phase: RoomPhase
    host: bool
    sitting: bool
    seated: int
    turn_seconds: int | None

    @property
    def can_start(self) -> bool:
        """Whether the viewer may start a match (host, 2–7 seated, no match running; docs/rules.md §1)."""
        return self.host and self.phase != RoomPhase.PLAYING and MIN_PLAYERS <= self.seated <= MAX_PLAYERS

    @property
    def free_seat(self) -> bool:
        """Whether a seat is still free (at most 7 play; docs/rules.md §1)."""
        return self.seated < MAX_PLAYERS


_PLAYING_CONTROLS = ControlsShown(RoomPhase.PLAYING, False, False, 0, None)


def controls(public: RoomView) -> ControlsShown:
    """The ``controls`` region's value as everyone sees it: a spectator who does not host."""
    if public.phase == RoomPhase.PLAYING:
        return _PLAYING_CONTROLS
    return ControlsShown(public.phase, False, False, len(public.seats), public.turn_seconds)


def your_controls(viewer: Viewer, everyone: ControlsShown) -> ControlsShown:
    """The ``controls`` region's value for ``viewer``, from ``everyone``'s (:func:`controls`): the host's and a
    seated player's, out of a match."""
    if everyone.phase == RoomPhase.PLAYING or (not viewer.host and viewer.seat is None):
        return everyone
    return everyone._replace(host=viewer.host, sitting=viewer.seat is not None)


class SeatHead(NamedTuple):
    """A seat's header (the piece ``seat_head``): its player's name, presence and tags."""

    name: str
    connected: bool
    is_you: bool
    is_host: bool
    bot: str | None
    away: bool
    played_for: str | None
    is_dealer: bool


class SeatPoints(NamedTuple):
    """A seat's points and lives, of the rules' ``threshold`` and ``rules_lives`` (the piece ``seat_points``)."""

    score: int
    threshold: int
    lives: int
    rules_lives: int


class SeatPile(NamedTuple):
    """A seat's meter of points towards the ``threshold`` and the cards it ``played`` in the deal's earlier
    tricks (the piece ``seat_pile``)."""

    score: int
    threshold: int
    name: str
    played: tuple[Card, ...]


class SeatOwn(NamedTuple):
    """The controls under the viewer's own seat (the piece ``seat_own``): whether a match is ``playing``, and
    whether the seat has ``stepped_away`` or is ``eliminated``."""

    playing: bool
    stepped_away: bool
    eliminated: bool


class SeatShown(NamedTuple):
    """One seat's region (``seat-N``): the seat as everyone sees it (``info``, a public seat of the room,
    whose ``is_you`` says whether it is the viewer's own), the room's ``phase``, the rules' ``threshold``
    and lives (``rules_lives``), whether the seat plays the match shown (``in_match``) and the host's controls
    the viewer gets on it (``actions``: :func:`~app.rooms.views.host_controls`)."""

    info: SeatInfo
    phase: RoomPhase
    threshold: int
    rules_lives: int
    in_match: bool
    actions: str | None

    @property
    def head(self) -> SeatHead:
        """The seat's header."""
        info = self.info
        return SeatHead(info.name, info.connected, info.is_you, info.is_host, info.bot, info.away, info.played_for,
                        info.is_dealer)

    @property
    def points(self) -> SeatPoints:
        """The seat's points and lives."""
        info = self.info
        return SeatPoints(info.score, self.threshold, info.lives, self.rules_lives)

    @property
    def own(self) -> SeatOwn:
        """The controls under the seat, for its own player."""
        info = self.info
        return SeatOwn(self.phase == RoomPhase.PLAYING, info.stepped_away, info.eliminated)

    @property
    def pile(self) -> SeatPile:
        """The seat's meter and the cards it played."""
        info = self.info
        return SeatPile(info.score, self.threshold, info.name, info.played)


class SeatsShown(NamedTuple):
    """The ``seats`` region, which holds the seats: whether the match's table is shown (``at_table``: out of
    the lobby) and each seat's value. Its own text says only ``at_table`` and how many are seated."""

    at_table: bool
    seats: tuple[SeatShown, ...]

    @property
    def holder(self) -> tuple[bool, int]:
        """What the region shows besides its seats: whether at the table, and how many seats it holds."""
        return self.at_table, len(self.seats)


def seats(public: RoomView) -> SeatsShown:
    """The ``seats`` region's value as everyone sees it: each seat as a viewer who neither sits there nor hosts
    sees it."""
    threshold, lives = public.rules.threshold, public.rules.lives
    return SeatsShown(public.phase != RoomPhase.LOBBY,
                      tuple(SeatShown(seat, public.phase, threshold, lives, public.in_match(seat.seat), None)
                            for seat in public.seats))


def _hosts_seat(seat: SeatShown, phase: RoomPhase, own: int | None) -> SeatShown:
    """``seat`` (everyone's value) as the host, in seat ``own``, sees it: theirs, or with their controls on it
    (:func:`~app.rooms.views.host_controls`); everyone's very value where neither changes it."""
    if seat.info.seat == own:
        return seat._replace(info=seat.info._replace(is_you=True))
    actions = host_controls(phase, seat.info, host=True, own=False)
    return seat if actions is None else seat._replace(actions=actions)


def your_seats(viewer: Viewer, everyone: SeatsShown) -> SeatsShown:
    """The ``seats`` region's value for ``viewer``, from ``everyone``'s (:func:`seats`): the viewer's own seat
    marked theirs (``is_you``) and, for the host, their controls on each; every other seat is everyone's,
    the very value."""
    own, shown = viewer.seat, everyone.seats
    if viewer.host:
        phase = viewer.public.phase
        return everyone._replace(seats=tuple(_hosts_seat(seat, phase, own) for seat in shown))
    if own is not None and own < len(shown):
        seat = shown[own]
        return everyone._replace(seats=(*shown[:own], seat._replace(info=seat.info._replace(is_you=True)),
                                        *shown[own + 1:]))
    return everyone


class PlayShown(NamedTuple):
    """A card on the table: ``card``, played by ``seat`` (called ``name``, or "You" where ``you``), whether it
    ``led`` the trick and whether it ``took`` it (at a deal's end)."""

    seat: int
    card: Card
    name: str
    you: bool
    led: bool
    took: bool


class WaitingShown(NamedTuple):
    """The seat the trick waits for: its number and name, and whether it is the viewer's (``you``)."""

    seat: int
    name: str
    you: bool


class TrickHeading(NamedTuple):
    """The trick's heading (the piece ``trick_heading``): which trick of the deal, or at its end, which deal's
    last trick."""

    match_phase: MatchPhase | None
    deal_number: int
    trick_number: int
    tricks_per_deal: int


class TrickShown(NamedTuple):
    """The ``trick`` region: the cards on the table (hidden when ``showing`` is false), the seat they wait
    for, and during a deal the trick before as (card, name) pairs."""

    showing: bool
    match_phase: MatchPhase | None
    deal_number: int
    trick_number: int
    tricks_per_deal: int
    plays: tuple[PlayShown, ...]
    waiting: WaitingShown | None
    previous: tuple[tuple[Card, str], ...]

    @property
    def heading(self) -> TrickHeading:
        """The trick's heading."""
        return TrickHeading(self.match_phase, self.deal_number, self.trick_number, self.tricks_per_deal)


_NO_TRICK = TrickShown(False, None, 0, 0, 0, (), None, ())


def trick(public: RoomView) -> TrickShown:
    """The ``trick`` region's value as everyone sees it: each card with the name of who played it."""
    match = public.match
    if match is None or not (public.phase == RoomPhase.PLAYING
                             or (public.phase == RoomPhase.FINISHED and match.trick)):
        return _NO_TRICK
    seats = public.seats
    over = match.phase in (MatchPhase.DEAL_OVER, MatchPhase.FINISHED)
    taker = public.summary.trick_winner if public.summary is not None and over else None
    plays = tuple(PlayShown(play.seat, play.card, seats[play.seat].name, False, index == 0, play.seat == taker)
                  for index, play in enumerate(match.trick))
    turn = public.turn
    waiting = None if turn is None else WaitingShown(turn, seats[turn].name, False)
    previous = (tuple((play.card, seats[play.seat].name) for play in match.previous_trick)
                if match.previous_trick and match.phase == MatchPhase.PLAYING else ())
    return TrickShown(True, match.phase, match.deal_number, match.trick_number, match.tricks_per_deal, plays,
                      waiting, previous)


def your_trick(viewer: Viewer, everyone: TrickShown) -> TrickShown:
    """The ``trick`` region's value for ``viewer``, from ``everyone``'s (:func:`trick`): "You" on the card the
    viewer's own seat played and on their turn; everyone's, the very value, where it names neither."""
    own = viewer.seat
    waiting = everyone.waiting
    waits = waiting is not None and waiting.seat == own
    if own is None or not (waits or any(play.seat == own for play in everyone.plays)):
        return everyone
    return everyone._replace(
        plays=tuple(play._replace(you=True) if play.seat == own else play for play in everyone.plays),
        waiting=waiting._replace(you=True) if waits and waiting is not None else waiting)


class HandShown(NamedTuple):
    """The ``hand`` region, the viewer's own hand: each card with why it cannot be played now (``None``:
    it can; said as :func:`~app.wording.refusals.unplayable_said` keeps it), and on the viewer's turn
    (``your_turn``) the match, deal and count of cards played that a play names (``aimed``)."""

    cards: tuple[tuple[Card, Refusal | None], ...]
    your_turn: bool
    aimed: tuple[str | None, int, int] | None


_NO_HAND = HandShown((), False, None)


def hand(public: RoomView) -> HandShown:
    """The ``hand`` region's value as everyone sees it: no hand."""
    return _NO_HAND


def your_hand(viewer: Viewer, everyone: HandShown) -> HandShown:
    """The ``hand`` region's value for ``viewer``: their own hand (``everyone``'s, no hand, for a spectator and
    outside a deal). The only value built from a viewer's hand.

    A hand waiting for its turn or the next deal (:attr:`~app.rooms.views.Viewer.at_rest`) is told without
    building the hand's view: each card is refused for the same reason, which names nobody.
    """
    public = viewer.public
    if public.match is None or viewer.seat is None:
        return everyone
    rest = viewer.at_rest
    if rest is not None:
        resting, code = rest
        reason = Refusal(code)
        return HandShown(tuple((card, reason) for card in resting), False, None)
    held = viewer.hand
    if not held:
        return everyone
    cards = tuple((card.card, None if card.legal or card.reason is None else unplayable_said(card.reason))
                  for card in held)
    if viewer.your_turn:
        match = public.match
        return HandShown(cards, True, (public.match_id, match.deal_number, public.cards_played))
    return HandShown(cards, False, None)


class SheetShown(NamedTuple):
    """The ``scoresheet`` region: the match's completed deals (``sheet``), with the names of every seat
    (``names``) and how many of them play the match (``players``, the sheet's columns)."""

    sheet: tuple[DealScore, ...]
    names: tuple[str, ...]
    players: int


_NO_SHEET = SheetShown((), (), 0)


def scoresheet(public: RoomView) -> SheetShown:
    """The ``scoresheet`` region's value: the same for every viewer (empty before a deal ends)."""
    if not public.score_sheet:
        return _NO_SHEET
    players = sum(1 for seat in public.seats if public.in_match(seat.seat))
    return SheetShown(public.score_sheet, public.seat_names, players)


class RulesShown(NamedTuple):
    """The ``rules`` region: the room's rules and preset, a slow table's hours a turn, and whether the viewer
    may change them (``can_change``: the host, out of a match)."""

    rules: Rules
    preset: str | None
    turn_hours: int | None
    can_change: bool


def rules(public: RoomView) -> RulesShown:
    """The ``rules`` region's value as everyone sees it: a viewer who does not host."""
    return RulesShown(public.rules, public.preset, public.pace.turn_hours if public.pace is not None else None,
                      False)


def your_rules(viewer: Viewer, everyone: RulesShown) -> RulesShown:
    """The ``rules`` region's value for ``viewer``, from ``everyone``'s (:func:`rules`): the host may change the
    rules out of a match."""
    if viewer.host and viewer.public.phase != RoomPhase.PLAYING:
        return everyone._replace(can_change=True)
    return everyone


class SlowShown(NamedTuple):
    """The ``slow`` region, a slow table's settings (hidden at a live table: ``turn_hours`` is ``None``): a
    seated player's (notifications, quiet hours, vacation) and the host's (the chat ``webhook``, theirs
    alone to see)."""

    code: str
    turn_hours: int | None
    seated: bool
    host: bool
    webhook: str | None


def slow(public: RoomView) -> SlowShown:
    """The ``slow`` region's value as everyone sees it: a spectator who does not host."""
    return SlowShown(public.code, public.pace.turn_hours if public.pace is not None else None, False, False, None)


def your_slow(viewer: Viewer, everyone: SlowShown) -> SlowShown:
    """The ``slow`` region's value for ``viewer``, from ``everyone``'s (:func:`slow`): at a slow table, a seated
    player's controls, and the host's with the chat webhook's URL (theirs alone to see)."""
    if everyone.turn_hours is None or (viewer.seat is None and not viewer.host):
        return everyone
    hook = viewer.table.webhook
    return everyone._replace(seated=viewer.seat is not None, host=viewer.host,
                             webhook=hook[0] if viewer.host and hook is not None else None)


class Region(NamedTuple):
    """A live region's value, in two steps: ``everyone``'s, from the version's public view (what a spectator
    who does not host sees), worked out once a version, and from it ``yours``, a viewer's (``None``: every
    viewer sees everyone's). ``yours`` gives everyone's very value where the region shows nothing of that
    viewer, so that it is rendered once for all of them."""

    everyone: Callable[[RoomView], Hashable]
    yours: Callable[[Viewer, Any], Hashable] | None = None


REGIONS: dict[str, Region] = {
    "status": Region(status, your_status),
    "seats": Region(seats, your_seats),
    "trick": Region(trick, your_trick),
    "hand": Region(hand, your_hand),
    "scoresheet": Region(scoresheet),
    "summary": Region(summary),
    "controls": Region(controls, your_controls),
    "join": Region(join, your_join),
    "rules": Region(rules, your_rules),
    "slow": Region(slow, your_slow),
}
"""The table page's live regions, by element id in page order, each with its value's functions. A region's
block in ``room.html`` has its name and reads its value, under its name, alone. A new region adds its block,
its value's functions and a line here.

``seats`` holds the seats, each a region of its own (``seat-N``, the block of ``_seat.html``, its value a
:class:`SeatShown`): a play changes a seat or two, not the set of seats, so the seats are sent alone unless
the region that holds them changed."""


def values_for(viewer: Viewer) -> dict[str, Hashable]:
    """Every live region's value for ``viewer``, by element id (:data:`REGIONS`), worked out afresh."""
    values = {}
    for name, region in REGIONS.items():
        everyone = region.everyone(viewer.public)
        values[name] = everyone if region.yours is None else region.yours(viewer, everyone)
    return values


class ChatStatusShown(NamedTuple):
    """The ``chat-status`` region: who may write in the room's chat, with the host's controls for the host."""

    status: ChatStatus
    host: bool
