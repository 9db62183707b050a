"""What a room must do next, and when: pure decisions from timing facts.

The room gathers the facts of one moment (:class:`TurnFacts`,
:class:`TableFacts`), asks :func:`next_due` for the one timed action to arm,
and carries it out itself. Nothing here touches a room, a clock or a task.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import NamedTuple

from app.bots.strength import BotStrength
from app.game.match import Match
from app.rooms.lobby import Seat
from app.rooms.presence import Presence

STAND_IN = BotStrength.NORMAL
"""The bot that plays for an absent player or when the turn clock runs out."""

RETRY_SECONDS = 2.0
"""Pause before a timed action that failed (storage down) is tried again."""

CLOCK_RANGE = (5, 600)
"""Smallest and largest turn clock, in seconds per turn."""


@dataclass(frozen=True, slots=True)
class Timing:
    """A room's timings, in seconds.

    ``bot_delay``: a bot's pause before playing; ``away_grace``: how long a
    player may have no connection before a bot plays for them (and a host
    before hosting passes on); ``hard_budget``: thinking time of a ``hard``
    or ``expert`` bot; ``deal_pause``: the pause after a deal before the next one;
    ``seat_link``: how long a link that moves a seat to another browser works.
    """

    deal_pause: float = 0.0
    bot_delay: float = 0.0
    away_grace: float = 60.0
    hard_budget: float = 0.15
    seat_link: float = 600.0


@functools.lru_cache(maxsize=64)
def slow_timing(timing: Timing) -> Timing:
    """A slow room's timings from a live room's ``timing``: no away grace (the deadline replaces it, and
    hosting does not pass on for being away) and no pause between deals."""
    return replace(timing, away_grace=math.inf, deal_pause=0.0)


def moment_of(match: Match) -> tuple[int, int]:
    """The moment a match is at: the deal being played (from 1) and how many cards have been played in it.

    Between deals: the last deal completed, and 0.
    """
    deal = match.deal
    if deal is None or deal.turn is None:
        return match.deals_completed, 0
    return match.deals_completed + 1, len(deal.plays)


class TurnClock:
    """When the current turn began (between deals: when the last deal ended), in clock seconds."""

    def __init__(self, now: float) -> None:
        self.started = now
        self._turn: tuple[int, int] | None = None

    def note(self, match: Match | None, now: float) -> None:
        """A new state of ``match``: if it is a new turn (or no turn), it begins at ``now``."""
        turn = None
        if match is not None and match.deal is not None and match.turn is not None:
            turn = (match.deals_completed, len(match.deal.plays))
        if turn != self._turn:
            self._turn, self.started = turn, now

    def remaining(self, seconds: int | None, now: float) -> float | None:
        """Seconds left at ``now`` of a clock of ``seconds`` per turn (``None`` when there is no clock)."""
        return None if seconds is None else max(0.0, seconds - (now - self.started))


def clock_left(match: Match | None, seats: Sequence[Seat], clock: TurnClock, seconds: int | None,
               now: float) -> float | None:
    """Seconds left at ``now`` on a turn clock of ``seconds`` per turn (``clock`` knows when the turn began) for the
    seat to play in ``match``; ``None`` when no clock runs: none set, no turn, the match over, or a bot to play."""
    if match is None or match.turn is None or match.finished or seats[match.turn].is_bot:
        return None
    return clock.remaining(seconds, now)


class TurnFacts(NamedTuple):
    """What decides whether the seat to play is played for, at one moment.

    ``bot``: the seat's bot strength, ``None`` for a person; ``absent_for``:
    seconds since the person's last connection closed (``None`` while
    connected; infinite once they stepped away by choice); ``turn_for``: seconds since the turn began; ``clock``: the
    room's seconds per turn (``None`` when off); ``anyone_here``: whether
    anybody at all is connected to the room.
    """

    bot: str | None
    absent_for: float | None
    turn_for: float
    clock: float | None
    anyone_here: bool = True


class Due(NamedTuple):
    """A seat's card is due from a bot in ``delay`` seconds, played as ``strength``.

    ``reason`` is ``"bot"``, ``"away"``, ``"clock"`` or ``"none"`` (never).
    """

    delay: float
    strength: str
    reason: str


def turn_due(facts: TurnFacts, timing: Timing) -> Due | None:
    """When and how the seat to play will be played for if nothing else happens.

    A bot seat plays after ``bot_delay``. A person is played for by the
    stand-in bot once absent for ``away_grace`` seconds, or when the turn
    clock runs out, whichever comes first (rules of the room, not of the
    game). A person's turn is only played for while someone is there to wait
    for it: when everyone has gone, the table waits for them to come back
    (after a restart, say) instead of finishing the match without them; then
    ``None``. A ``Due`` with an infinite delay means it cannot happen yet.
    """
    if facts.bot is None and not facts.anyone_here:
        return None
    if facts.bot is not None:
        return Due(max(0.0, timing.bot_delay - facts.turn_for), facts.bot, "bot")
    candidates = [Due(float("inf"), STAND_IN, "none")]
    if facts.absent_for is not None:
        wait = max(0.0, timing.away_grace - facts.absent_for)
        # Once away, keep a natural pace, as a bot seat would.
        candidates.append(Due(max(wait, timing.bot_delay - facts.turn_for, 0.0), STAND_IN, "away"))
    if facts.clock is not None:
        candidates.append(Due(max(0.0, facts.clock - facts.turn_for), STAND_IN, "clock"))
    return min(candidates, key=lambda due: due.delay)


def slow_turn_due(*, bot: str | None, stepped: bool, vacation: bool, turn_for: float, deadline_in: float | None,
                  timing: Timing) -> Due | None:
    """When and how the seat to play in a slow room is played for (``None``: not at all).

    A bot seat plays after ``bot_delay`` (``turn_for``: seconds since the
    turn began); a person who stepped away or is on ``vacation`` is played
    for by the stand-in at that same pace; anyone else at their deadline,
    ``deadline_in`` seconds from now (``None``: no deadline known), whoever is
    connected: a slow table never waits for its players to come back.
    """
    pause = max(0.0, timing.bot_delay - turn_for)
    if bot is not None:
        return Due(pause, bot, "bot")
    if stepped:
        return Due(pause, STAND_IN, "away")
    if vacation:
        return Due(pause, STAND_IN, "vacation")
    if deadline_in is None:
        return None
    return Due(max(0.0, deadline_in), STAND_IN, "deadline")


def away_seats(absent_for: Sequence[float | None], timing: Timing) -> frozenset[int]:
    """The seats whose person has been gone at least the grace period.

    ``absent_for[s]`` is how long seat s's person has had no connection, in
    seconds (``None`` for a bot seat or a person who is connected).
    """
    return frozenset(seat for seat, gone in enumerate(absent_for)
                     if gone is not None and gone >= timing.away_grace)


def away_now(presence: Presence, seats: Sequence[Seat], now: float, timing: Timing, *,
             playing: bool) -> frozenset[int]:
    """The seats shown as away at ``now``: while a match is being played (``playing``), those whose person has
    been gone the grace period or stepped away (:func:`away_seats` of :meth:`Presence.absences`); else none."""
    return away_seats(presence.absences(seats, now), timing) if playing else frozenset()


class Action(StrEnum):
    """A timed action of a room."""

    RETRY_FINISH = "retry_finish"
    """Store the end of a finished match again (the last try failed)."""
    DEAL = "deal"
    """Deal the next deal, after the pause that follows a deal."""
    AUTO_PLAY = "auto_play"
    """Play for the seat to play (a bot, an absent person, a clock run out), or mark someone away."""
    HAND_OVER_HOST = "hand_over_host"
    """Make a present player host in place of a host who has been gone the grace period."""


class TableFacts(NamedTuple):
    """A room's timing facts at one moment, in seconds.

    ``finish_pending``: a finished match is not stored yet; ``playing``: a
    match is being played; ``needs_deal``: it is between two deals;
    ``since_turn``: time since the turn began (between deals: since the deal
    ended); ``turn``: when the seat to play will be played for (``None``:
    nobody plays for it); ``absences``: how long each absent person not yet
    shown as away has been gone; ``host_absent``: how long the host has been
    gone while a seated person is there to take over (``None``: nobody
    could take over, or the host is here).
    """

    finish_pending: bool
    playing: bool
    needs_deal: bool
    since_turn: float
    turn: Due | None
    absences: tuple[float, ...]
    host_absent: float | None


def next_due(facts: TableFacts, timing: Timing) -> tuple[float, Action] | None:
    """The one timed action to arm next, as ``(delay in seconds, action)``; ``None``: nothing is due.

    A pending finish is retried before anything else. Otherwise the earliest
    of: the next deal (the pause runs from the end of the deal, whatever
    happens meanwhile), a card played for the seat to play or an absent
    person passing the grace period, and hosting passing on.
    """
    if facts.finish_pending:
        return RETRY_SECONDS, Action.RETRY_FINISH
    candidates: list[tuple[float, Action]] = []
    if facts.playing and facts.needs_deal:
        candidates.append((max(0.0, timing.deal_pause - facts.since_turn), Action.DEAL))
    elif facts.playing:
        away_mark = min((timing.away_grace - gone for gone in facts.absences), default=float("inf"))
        play = facts.turn.delay if facts.turn is not None else float("inf")
        candidates.append((max(0.0, min(play, away_mark)), Action.AUTO_PLAY))
    if facts.host_absent is not None:
        candidates.append((max(0.0, timing.away_grace - facts.host_absent), Action.HAND_OVER_HOST))
    if not candidates:
        return None
    delay, action = min(candidates, key=lambda candidate: candidate[0])
    return None if delay == float("inf") else (delay, action)


def seat_due(match: Match | None, seats: Sequence[Seat], presence: Presence, turn_started: float,
             clock: float | None, now: float, timing: Timing) -> Due | None:
    """When and how the seat to play in ``match`` will be played for, at ``now`` (``None``: not at all).

    ``turn_started`` is when the turn began and ``clock`` the room's seconds
    per turn (``None`` when off), in the room's clock; see :func:`turn_due`.
    """
    if match is None or match.finished or match.turn is None:
        return None
    seat = seats[match.turn]
    return turn_due(TurnFacts(bot=seat.bot, absent_for=presence.seat_absent_for(seat.token_hash, now),
                              turn_for=now - turn_started, clock=clock, anyone_here=presence.anyone()), timing)


def table_facts(presence: Presence, seats: Sequence[Seat], host: str | None, away: frozenset[int], now: float, *,
                finish_pending: bool, playing: bool, needs_deal: bool, since_turn: float,
                turn: Due | None) -> TableFacts:
    """A room's :class:`TableFacts` at ``now``: the match's facts as given, and who is gone from ``presence``.

    ``away`` are the seats already shown as away (their absence is not a mark to come).
    """
    absences = presence.absences(seats, now)
    return TableFacts(
        finish_pending=finish_pending, playing=playing, needs_deal=needs_deal, since_turn=since_turn, turn=turn,
        absences=tuple(gone for seat, gone in enumerate(absences) if gone is not None and seat not in away),
        host_absent=presence.host_absent(host, seats, now),
    )
