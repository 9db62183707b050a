"""What a slow room keeps besides its lobby: each player's quiet hours and vacation, the turn's deadline,
the seats a bot played for at their deadline, the host's chat webhook and when a person last acted.

:class:`SlowTable` is an immutable value, like the lobby: each change is a
method returning the table it would make (or raising
:class:`~app.rooms.errors.RoomError`), and the room adopts it. It is stored
whole as JSON (:meth:`SlowTable.to_json`) with the room, so a restart keeps
every deadline. Players are known by their public player id: a seat moved
to another browser keeps its settings, a new occupant starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from app.game.match import Match
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby, Seat
from app.rooms.pace import (
    Pace,
    QuietHours,
    on_vacation,
    quiet_hours_from,
    reminder_time,
    turn_deadline,
    vacation_end,
)
from app.rooms.presence import Presence
from app.rooms.schedule import Due, Timing, slow_turn_due
from app.wording.errors import problem

TurnKey = tuple[int, int, int]
"""A turn: the deals completed, the cards played in the deal being played, and the seat to play."""


def turn_key(match: Match | None) -> TurnKey | None:
    """The turn ``match`` is at, ``None`` when nobody is to play (no match, between deals, over)."""
    if match is None or match.finished or match.deal is None or match.turn is None:
        return None
    return match.deals_completed, len(match.deal.plays), match.turn


@dataclass(frozen=True, slots=True)
class Turn:
    """The turn being waited for: its ``key``, the ``player`` id to play, when it ``started``, its ``reminder``
    time and its ``deadline`` (aware UTC)."""

    key: TurnKey
    player: str
    started: datetime
    reminder: datetime
    deadline: datetime


@dataclass(frozen=True, slots=True)
class SlowTable:
    """A slow room's settings and times beside its lobby (all by player id).

    ``quiet``: quiet hours; ``vacations``: when each vacation ends;
    ``missed``: the players whose last turn the bot played at the deadline
    (until they act again); ``webhook``: the host's chat webhook URL and the
    language to post in; ``turn``: the turn being waited for; ``last_acted``:
    when a person last acted in the match (``None``: not yet).
    """

    quiet: dict[str, QuietHours] = field(default_factory=dict)
    vacations: dict[str, datetime] = field(default_factory=dict)
    missed: frozenset[str] = frozenset()
    webhook: tuple[str, str] | None = None
    turn: Turn | None = None
    last_acted: datetime | None = None

    # ------------------------------------------------------------------ changes

    def with_quiet_hours(self, player: str, quiet: QuietHours | None) -> SlowTable:
        """``player``'s quiet hours set (``None``: cleared), from their next turn on."""
        hours = {**self.quiet, player: quiet} if quiet is not None else {
            who: kept for who, kept in self.quiet.items() if who != player}
        return replace(self, quiet=hours)

    def with_vacation(self, player: str, until: datetime | None) -> SlowTable:
        """``player`` on vacation until ``until`` (``None``: back now)."""
        vacations = {who: ends for who, ends in self.vacations.items() if who != player}
        if until is not None:
            vacations[player] = until
        return replace(self, vacations=vacations)

    def with_webhook(self, url: str | None, language: str) -> SlowTable:
        """The chat webhook set to ``url`` (already checked; ``None``: removed), posted to in ``language``."""
        return replace(self, webhook=None if url is None else (url, language))

    def acted(self, player: str, now: datetime, *, slow: bool = True) -> SlowTable:
        """``player`` acted at ``now`` (played a card): back from vacation, no longer marked.

        In a live room (``slow`` false) the moment is not kept: only a slow room's sweep reads
        ``last_acted``, and a live room that becomes slow sets it when its next match starts. So a live
        room's table is unchanged by a card, and nothing is stored for it.
        """
        moment = now if slow else self.last_acted
        if player not in self.vacations and player not in self.missed and self.last_acted == moment:
            return self
        return replace(self, vacations={who: ends for who, ends in self.vacations.items() if who != player},
                       missed=self.missed - {player}, last_acted=moment)

    def played_for(self, player: str, reason: str) -> SlowTable:
        """The bot played ``player``'s card for ``reason`` (a ``Due``'s): marked when it was their deadline."""
        return replace(self, missed=self.missed | {player}) if reason == "deadline" else self

    def following(self, match: Match | None, seats: tuple[Seat, ...], pace: Pace | None, now: datetime,
                  hour_seconds: float) -> SlowTable:
        """The table at a new state of the room: a new turn (``match``'s) begins at ``now`` with its deadline and
        reminder; between deals and outside a match no turn waits. Unchanged when the turn is the same."""
        key = turn_key(match)
        if key is None or pace is None:
            return self if self.turn is None else replace(self, turn=None)
        if self.turn is not None and self.turn.key == key and self.turn.player == seats[key[2]].player:
            return self
        player = seats[key[2]].player
        quiet = self.quiet.get(player)
        return replace(self, turn=Turn(key, player, now, reminder_time(now, pace, hour_seconds, quiet),
                                       turn_deadline(now, pace, hour_seconds, quiet)))

    def for_seats(self, seats: tuple[Seat, ...]) -> SlowTable:
        """Only the settings of the players still seated."""
        players = {seat.player for seat in seats}
        return replace(self, quiet={k: v for k, v in self.quiet.items() if k in players},
                       vacations={k: v for k, v in self.vacations.items() if k in players},
                       missed=self.missed & players)

    # ------------------------------------------------------------------ questions

    def on_vacation(self, player: str, now: datetime) -> bool:
        """Whether ``player`` is on vacation at ``now``."""
        return on_vacation(self.vacations.get(player), now)

    def vacation_seats(self, seats: tuple[Seat, ...], now: datetime) -> frozenset[int]:
        """The seats whose person is on vacation at ``now``."""
        return frozenset(index for index, seat in enumerate(seats) if self.on_vacation(seat.player, now))

    def missed_seats(self, seats: tuple[Seat, ...]) -> frozenset[int]:
        """The seats whose last card the bot played at their deadline."""
        return frozenset(index for index, seat in enumerate(seats) if seat.player in self.missed)

    def shown(self, seats: tuple[Seat, ...], now: datetime) -> tuple[datetime | None, tuple[str | None, ...]]:
        """What the state shows: the deadline of the turn waited for (``None``: none), and for each seat why a bot
        plays for its person: ``"vacation"``, ``"deadline"`` (it played their last card at the deadline) or ``None``."""
        marks = tuple("vacation" if self.on_vacation(seat.player, now) else "deadline" if seat.player in self.missed
                      else None for seat in seats)
        return (None if self.turn is None else self.turn.deadline), marks

    # ------------------------------------------------------------------ storage

    def to_json(self) -> dict[str, Any]:
        """Everything as JSON-ready values (times in ISO 8601), as stored with the room."""
        turn = self.turn
        return {
            "quiet": {player: hours.to_json() for player, hours in self.quiet.items()},
            "vacations": {player: ends.isoformat() for player, ends in self.vacations.items()},
            "missed": sorted(self.missed),
            "webhook": list(self.webhook) if self.webhook else None,
            "turn": None if turn is None else {"key": list(turn.key), "player": turn.player,
                                               "started": turn.started.isoformat(),
                                               "reminder": turn.reminder.isoformat(),
                                               "deadline": turn.deadline.isoformat()},
            "last_acted": None if self.last_acted is None else self.last_acted.isoformat(),
        }

    @classmethod
    def from_json(cls, data: Any) -> SlowTable:
        """The table :meth:`to_json` wrote (``None`` or something else unreadable: an empty table)."""
        if not isinstance(data, dict):
            return cls()
        try:
            turn = data.get("turn")
            return cls(
                quiet={player: quiet_hours_from(hours["from"], hours["to"], hours["time_zone"])
                       for player, hours in (data.get("quiet") or {}).items()},
                vacations={player: datetime.fromisoformat(ends)
                           for player, ends in (data.get("vacations") or {}).items()},
                missed=frozenset(data.get("missed") or ()),
                webhook=tuple(data["webhook"]) if data.get("webhook") else None,
                turn=None if not turn else Turn(tuple(turn["key"]), turn["player"],
                                                datetime.fromisoformat(turn["started"]),
                                                datetime.fromisoformat(turn["reminder"]),
                                                datetime.fromisoformat(turn["deadline"])),
                last_acted=datetime.fromisoformat(data["last_acted"]) if data.get("last_acted") else None)
        except (KeyError, TypeError, ValueError, RoomError):
            return cls()


def require_slow(lobby: Lobby) -> Pace:
    """The room's pace; ``bad_request`` (422) when the room is live (the setting is a slow room's)."""
    if lobby.pace is None:
        raise RoomError(ErrorCode.BAD_REQUEST, problem("slow_only"), status=422)
    return lobby.pace


def slow_due(match: Match | None, seats: tuple[Seat, ...], presence: Presence, slow: SlowTable, turn_for: float,
             now: datetime, timing: Timing) -> Due | None:
    """When and how the seat to play in a slow room's ``match`` is played for, at ``now`` (``None``: not at all);
    ``turn_for`` is how long the turn has lasted, in seconds (:func:`~app.rooms.schedule.slow_turn_due`)."""
    key = turn_key(match)
    if key is None:
        return None
    seat = seats[key[2]]
    turn = slow.turn
    deadline = turn.deadline if turn is not None and turn.key == key else None
    return slow_turn_due(bot=seat.bot, stepped=presence.stepped_away(seat.token_hash),
                         vacation=slow.on_vacation(seat.player, now), turn_for=turn_for,
                         deadline_in=None if deadline is None else (deadline - now).total_seconds(), timing=timing)


SlowChange = Callable[[Lobby, SlowTable, datetime], SlowTable]
"""A change asked of a slow room: from its lobby, its slow table and the time (aware UTC), the new slow table;
raises :class:`~app.rooms.errors.RoomError` (nothing changes) when refused."""


def _seated_player(lobby: Lobby, token_hash: str | None) -> str:
    require_slow(lobby)
    return lobby.seats[lobby.require_seat(token_hash)].player


def quiet_hours_change(token_hash: str | None, quiet: QuietHours | None) -> SlowChange:
    """The seated person of ``token_hash`` sets their quiet hours (``None``: none). Refused with ``not_seated``
    (403) for someone without a seat, ``bad_request`` (422) in a live room."""
    return lambda lobby, slow, now: slow.with_quiet_hours(_seated_player(lobby, token_hash), quiet)


def vacation_change(token_hash: str | None, days: Any, hour_seconds: float) -> SlowChange:
    """The seated person of ``token_hash`` goes on vacation for ``days`` (slow) days, 0 ending it
    (:func:`~app.rooms.pace.vacation_end`). Refused as :func:`quiet_hours_change` is, and for a bad ``days``."""
    def change(lobby: Lobby, slow: SlowTable, now: datetime) -> SlowTable:
        player = _seated_player(lobby, token_hash)
        return slow.with_vacation(player, vacation_end(now, days, hour_seconds))
    return change


def webhook_change(token_hash: str | None, url: str | None, language: str) -> SlowChange:
    """The host sets the table's chat webhook to ``url`` (checked already; ``None``: none), posted to in
    ``language``. Refused with ``not_host`` (403), and ``webhook_refused`` (422) in a live room."""
    def change(lobby: Lobby, slow: SlowTable, now: datetime) -> SlowTable:
        lobby.require_host(token_hash)
        if lobby.pace is None:
            raise RoomError(ErrorCode.WEBHOOK_REFUSED, problem("webhook_slow_only"), status=422)
        return slow.with_webhook(url, language)
    return change
