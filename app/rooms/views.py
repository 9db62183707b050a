"""What one viewer sees of a room: the engine's view plus seats, host and lobby.

:func:`room_view` is the only way pages and messages learn about a room; it
asks the engine for the viewer's :class:`~app.game.views.MatchView`, so a
hand reaches nobody but its owner. :func:`state_json` is the JSON protocol's
``state`` object.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, preset_name
from app.game.standings import placings
from app.game.summary import DealSummary
from app.game.views import HandCard, MatchView, SeatView, TrickCard, view_for
from app.wording import deal_sentences, describe_rules, unplayable

if TYPE_CHECKING:
    from app.rooms.room import Room


@dataclass(frozen=True, slots=True)
class SeatInfo(SeatView):
    """One seat as everyone sees it: the engine's public seat, and who sits there.

    ``bot`` is a bot's strength (``None`` for a person); ``away`` whether a
    bot plays for a person who has been gone past the grace period.
    """

    bot: str | None
    is_host: bool
    is_you: bool
    connected: bool
    away: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """A line of the final standings: place (from 1), seat, name and total points."""

    place: int
    seat: int
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class RoomView:
    """Everything one viewer may see of a room at one version.

    ``you_seat`` is ``None`` for a spectator (the host may watch without a
    seat); ``hand`` is the viewer's own hand (empty for spectators and
    outside deals). ``match`` is the engine's view once a match exists.
    ``summary`` describes the last finished deal. ``turn_seconds`` is the
    room's turn clock (``None`` when off) and ``turn_remaining`` the seconds
    left for the seat to play.
    """

    code: str
    version: int
    phase: str
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

    @property
    def rules_text(self) -> list[str]:
        """The rules in plain words, a sentence per option."""
        return describe_rules(self.rules)

    @property
    def summary_text(self) -> list[str]:
        """The last deal's summary in plain words (empty when there is none)."""
        if self.summary is None:
            return []
        return deal_sentences(self.summary, [seat.name for seat in self.seats])

    @property
    def turn(self) -> int | None:
        """The seat to play, or ``None``."""
        return self.match.turn if self.match is not None and self.phase == "playing" else None

    @property
    def cards_played(self) -> int:
        """How many cards have been played in the deal being played (0 between deals)."""
        if self.match is None or self.match.phase != "playing":
            return 0
        return sum(len(seat.played) for seat in self.seats) + len(self.match.trick)

    @property
    def your_turn(self) -> bool:
        """Whether the viewer is the seat to play."""
        return self.you_seat is not None and self.turn == self.you_seat

    @property
    def can_start(self) -> bool:
        """Whether the viewer may start a match now (host, 2–7 seated, no match running; docs/rules.md §1)."""
        return self.you_are_host and self.phase != "playing" and MIN_PLAYERS <= len(self.seats) <= MAX_PLAYERS

    @property
    def has_free_seat(self) -> bool:
        """Whether a seat is still free for a person or a bot (at most 7 play; docs/rules.md §1)."""
        return len(self.seats) < MAX_PLAYERS


def room_view(room: Room, seat: int | None, *, host: bool = False) -> RoomView:
    """The view of ``room`` for the player in ``seat`` (``None``: a spectator).

    ``host`` says whether the viewer is the host (seated or not).
    """
    match = room.match
    engine_view = view_for(match, seat) if match is not None else None
    connected = room.connected_seats()
    away = room.away_seats()
    host_seat = room.seat_of(room.host)
    seats = []
    for index, seat_state in enumerate(room.seats):
        public = engine_view.seats[index] if engine_view is not None and index < len(engine_view.seats) else None
        if public is None:  # the lobby: nobody has played yet
            public = SeatView(index, seat_state.name, 0, room.rules.lives, False, False, False, 0, ())
        seats.append(SeatInfo(
            *(getattr(public, field.name) for field in fields(SeatView)),
            bot=seat_state.bot,
            is_host=index == host_seat,
            is_you=index == seat,
            connected=seat_state.is_bot or index in connected,
            away=index in away,
        ))
    standings: tuple[Standing, ...] = ()
    if match is not None and match.finished:
        places = placings(match)
        standings = tuple(sorted(
            (Standing(places[s], s, match.players[s], match.scores[s]) for s in range(match.seat_count)),
            key=lambda line: (line.place, line.seat)))
    rules = match.rules if match is not None and room.phase == "playing" else room.rules
    return RoomView(
        code=room.code,
        version=room.version,
        phase=room.phase,
        rules=rules,
        preset=preset_name(rules),
        seats=tuple(seats),
        spectators=room.spectator_count(),
        host_seat=host_seat,
        you_seat=seat,
        you_are_host=host,
        hand=engine_view.you.cards if engine_view is not None and engine_view.you is not None else (),
        match=engine_view,
        summary=room.last_summary,
        match_id=room.match_id if match is not None and match.finished else None,
        standings=standings,
        turn_seconds=room.turn_seconds,
        turn_remaining=room.turn_remaining(),
    )


def _trick_json(trick: tuple[TrickCard, ...]) -> list[dict[str, Any]]:
    return [{"seat": play.seat, "card": play.card.code} for play in trick]


def state_json(view: RoomView) -> dict[str, Any]:
    """The JSON protocol's ``state`` object for a view (see docs/protocol.md)."""
    match = view.match
    summary = view.summary
    return {
        "code": view.code,
        "phase": view.phase,
        "rules": view.rules.to_dict(),
        "rules_text": view.rules_text,
        "preset": view.preset,
        "host": view.host_seat,
        "spectators": view.spectators,
        "seats": [
            {"seat": seat.seat, "name": seat.name, "bot": seat.bot, "connected": seat.connected,
             "away": seat.away, "score": seat.score, "lives": seat.lives, "eliminated": seat.eliminated,
             "dealer": seat.is_dealer, "turn": seat.is_turn, "cards_left": seat.cards_left,
             "played": [card.code for card in seat.played]}
            for seat in view.seats
        ],
        "deal": match.deal_number if match else 0,
        "trick_number": match.trick_number if match else 0,
        "tricks_per_deal": view.rules.hand_size,
        "dealer": match.dealer if match else None,
        "turn": view.turn,
        "turn_seconds": view.turn_seconds,
        "turn_remaining": None if view.turn_remaining is None else round(view.turn_remaining, 1),
        "leader": match.leader if match else None,
        "trick": _trick_json(match.trick) if match else [],
        "previous_trick": _trick_json(match.previous_trick) if match else [],
        "last_deal": None if summary is None else {
            "deal": summary.deal,
            "trick_winner": summary.trick_winner,
            "card": summary.card.code,
            "penalties": [{"seat": s, "points": p, "card": c.code, "total": t} for s, p, c, t in summary.penalties],
            "lives_lost": [{"seat": s, "lives": left, "total": t} for s, left, t in summary.lives_lost],
            "eliminated": [{"seat": s, "total": t} for s, t in summary.eliminated],
            "reinstated": [{"seat": s, "total": t} for s, t in summary.reinstated],
            "winners": list(summary.winners),
            "text": view.summary_text,
        },
        "winners": list(match.winners) if match else [],
        "match_id": view.match_id,
        "standings": [{"place": line.place, "seat": line.seat, "name": line.name, "score": line.score}
                      for line in view.standings],
        "you": None if view.you_seat is None and not view.you_are_host else {
            "seat": view.you_seat,
            "host": view.you_are_host,
            "hand": [held.card.code for held in view.hand],
            "legal": [held.card.code for held in view.hand if held.legal],
            "reasons": {held.card.code: unplayable(held.reason) for held in view.hand if held.reason is not None},
        },
    }
