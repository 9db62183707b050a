"""A slow table's pace: deadlines, quiet hours, reminders and vacations, as pure decisions from facts.

Times are aware UTC ``datetime`` values; a slow hour lasts ``hour_seconds``
seconds (``CUCUMBER_SLOW_HOUR_SECONDS``), while quiet hours keep real clock
times in the player's own time zone. Nothing here touches a room, a clock or a task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.rooms.errors import ErrorCode, RoomError
from app.wording.errors import problem

TURN_HOURS = (1, 4, 12, 24, 72)
"""The deadlines a slow room may give each turn, in (slow) hours."""
REMINDER_SHARE = 0.8
"""A reminder is due once this share of a turn's time has run."""
VACATION_DAYS = 14
"""The longest vacation, in (slow) days."""
LOBBY_DAYS = 7
"""How long an unstarted slow lobby is kept, in (slow) days."""
IDLE_MATCH_DAYS = 30
"""A slow match in which no person has acted for this many (slow) days ends, abandoned."""
_CLOCK_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")


@dataclass(frozen=True, slots=True)
class Pace:
    """A slow room's pace: ``turn_hours``, the (slow) hours each turn may take, one of :data:`TURN_HOURS`."""

    turn_hours: int

    def to_json(self) -> dict[str, int]:
        """The pace as the protocol writes it: ``{"turn_hours": H}``."""
        return {"turn_hours": self.turn_hours}

    def turn_seconds(self, hour_seconds: float) -> float:
        """How many seconds of a player's own (not quiet) time a turn takes, a slow hour lasting ``hour_seconds``."""
        return self.turn_hours * hour_seconds


def pace_from(value: Any) -> Pace | None:
    """The pace a client asks for: ``None`` (a live room) or ``{"turn_hours": H}`` with H in :data:`TURN_HOURS`.

    Raises :class:`RoomError` ``bad_request`` (422) for anything else.
    """
    if value is None:
        return None
    hours = value.get("turn_hours") if isinstance(value, dict) and set(value) == {"turn_hours"} else None
    if isinstance(hours, float) and hours.is_integer():
        hours = int(hours)
    if isinstance(hours, bool) or not isinstance(hours, int) or hours not in TURN_HOURS:
        raise RoomError(ErrorCode.BAD_REQUEST, problem("pace_hours", hours=", ".join(map(str, TURN_HOURS))),
                        status=422)
    return Pace(hours)


@dataclass(frozen=True, slots=True)
class QuietHours:
    """A player's quiet hours: from ``start`` to ``end`` (wall clock, ``end`` the next day when not after
    ``start``) every day in time zone ``zone`` (an IANA name such as ``Europe/Copenhagen``)."""

    start: time
    end: time
    zone: str

    def to_json(self) -> dict[str, str]:
        """As the protocol writes them: ``{"from": "23:00", "to": "08:00", "time_zone": …}``."""
        return {"from": self.start.strftime("%H:%M"), "to": self.end.strftime("%H:%M"), "time_zone": self.zone}


def quiet_hours_from(start: Any, end: Any, zone: Any) -> QuietHours:
    """Quiet hours from ``"HH:MM"`` texts ``start`` and ``end`` and an IANA time zone name ``zone``.

    Raises :class:`RoomError` ``bad_request`` (422) for a time that is not
    ``HH:MM`` (00:00 to 23:59), an unknown time zone, or equal times.
    """
    times = []
    for given in (start, end):
        found = _CLOCK_TIME.fullmatch(given) if isinstance(given, str) else None
        if found is None:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("quiet_hours"), status=422)
        times.append(time(int(found[1]), int(found[2])))
    if times[0] == times[1] or not _known_zone(zone):
        raise RoomError(ErrorCode.BAD_REQUEST, problem("quiet_hours"), status=422)
    return QuietHours(times[0], times[1], zone)


def _known_zone(zone: Any) -> bool:
    if not isinstance(zone, str) or not 0 < len(zone) <= 64 or ".." in zone or zone.startswith("/"):
        return False
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def quiet_spans(quiet: QuietHours, around: datetime) -> list[tuple[datetime, datetime]]:
    """The quiet spans (UTC start, UTC end) that begin on the local days from the one before ``around`` to two
    days after, in order. A wall time a clock change skips or repeats is taken as ``zoneinfo`` takes it."""
    zone = ZoneInfo(quiet.zone)
    day = around.astimezone(zone).date()
    spans = []
    for offset in range(-1, 3):
        local: date = day + timedelta(days=offset)
        begins = datetime.combine(local, quiet.start, zone)
        ends = datetime.combine(local + timedelta(days=1) if quiet.end <= quiet.start else local, quiet.end, zone)
        spans.append((begins.astimezone(UTC), ends.astimezone(UTC)))
    return spans


def quiet_until(quiet: QuietHours | None, at: datetime) -> datetime:
    """When the quiet hours that hold at ``at`` end; ``at`` itself when they do not hold then (or none are set)."""
    if quiet is None:
        return at
    for begins, ends in quiet_spans(quiet, at):
        if begins <= at < ends:
            return ends
    return at


def is_quiet(quiet: QuietHours | None, at: datetime) -> bool:
    """Whether ``at`` falls in the quiet hours ``quiet``."""
    return quiet_until(quiet, at) != at


def time_run_out(start: datetime, seconds: float, quiet: QuietHours | None) -> datetime:
    """The moment by which ``seconds`` of a player's time have run from ``start``, their clock stopped
    through their quiet hours (issue 40: "their deadline does not run then")."""
    moment, left = start, timedelta(seconds=seconds)
    if quiet is None:
        return moment + left
    while True:
        moment = quiet_until(quiet, moment)
        following = min((begins for begins, _ in quiet_spans(quiet, moment) if begins > moment),
                        default=moment + timedelta(days=1))
        if moment + left <= following:
            return moment + left
        left -= following - moment
        moment = following


def turn_deadline(started: datetime, pace: Pace, hour_seconds: float, quiet: QuietHours | None) -> datetime:
    """When a turn that began at ``started`` runs out: the pace's hours of the player's time."""
    return time_run_out(started, pace.turn_seconds(hour_seconds), quiet)


def reminder_time(started: datetime, pace: Pace, hour_seconds: float, quiet: QuietHours | None) -> datetime:
    """When a turn that began at ``started`` earns its reminder: :data:`REMINDER_SHARE` of its time run."""
    return time_run_out(started, REMINDER_SHARE * pace.turn_seconds(hour_seconds), quiet)


def vacation_end(now: datetime, days: Any, hour_seconds: float) -> datetime | None:
    """When a vacation of ``days`` (a whole number, 0 to :data:`VACATION_DAYS`) asked for at ``now`` ends;
    ``None`` for 0 (it ends now). Raises :class:`RoomError` ``bad_request`` (422) for another value."""
    if isinstance(days, float) and days.is_integer():
        days = int(days)
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= VACATION_DAYS:
        raise RoomError(ErrorCode.BAD_REQUEST, problem("vacation_days", high=VACATION_DAYS), status=422)
    return None if days == 0 else now + timedelta(seconds=days * 24 * hour_seconds)


def on_vacation(until: datetime | None, now: datetime) -> bool:
    """Whether a vacation lasting ``until`` holds at ``now``."""
    return until is not None and now < until


@dataclass(frozen=True, slots=True)
class NoticeFacts:
    """What decides the notices of one turn at one moment.

    ``started``, ``reminder`` and ``deadline``: the turn's times;
    ``told``: which notices (``"turn"``, ``"reminder"``) were already sent or
    passed over for it; ``connected``: the player to play has a connection to the
    room open; ``played_for``: a bot plays the turn (a bot seat, a vacation,
    a seat stepped away), so nobody is to be told; ``quiet``: the player's quiet hours.
    """

    started: datetime
    reminder: datetime
    deadline: datetime
    told: frozenset[str]
    connected: bool
    played_for: bool
    quiet: QuietHours | None


def notices_due(facts: NoticeFacts, now: datetime) -> tuple[dict[str, bool], datetime | None]:
    """Which notices of a turn are settled at ``now``, each with whether it is sent (``True``) or passed
    over (``False``), and when to look again (``None``: nothing more to come).

    The turn notice is due when the turn begins, the reminder at
    :func:`reminder_time`; each is sent only if the player has no connection
    open then, and a notice due in their quiet hours waits for their end.
    Each is settled once: never two pushes for one turn. A reminder that
    came due while nobody looked (the server was down) is sent as soon as
    possible, while the turn still waits; past the deadline none is.
    """
    if facts.played_for or now >= facts.deadline:
        return {kind: False for kind in ("turn", "reminder") if kind not in facts.told}, None
    settled: dict[str, bool] = {}
    later: list[datetime] = []
    for kind, due in (("turn", facts.started), ("reminder", facts.reminder)):
        if kind in facts.told:
            continue
        if kind == "turn" and now >= facts.reminder:
            settled[kind] = False  # the reminder says it now
            continue
        when = quiet_until(facts.quiet, max(due, now)) if now >= due else due
        if when > now:
            later.append(when)
        else:
            settled[kind] = not facts.connected
    return settled, min(later, default=None)
