"""Which rooms the server forgets: pure decisions from a room's facts, like autoplay's.

A room nobody has been connected to for a long while is idle: it leaves memory
(and is restored after a restart if it had a match). A room that never started a
match and that nobody has been connected to for a short while holds nothing worth
keeping (a table opened and left, or opened by a script): it is deleted, so it
neither holds a place in memory nor comes back after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rooms.pace import IDLE_MATCH_DAYS, LOBBY_DAYS
from app.rooms.phases import RoomPhase


@dataclass(frozen=True, slots=True)
class RoomFacts:
    """What decides whether a room is unused, at one moment.

    ``started``: a match was started in the room (in progress, finished or
    restored); ``connected``: someone is connected now; ``quiet_for``: seconds
    since the room last changed (someone joined, connected or left).
    """

    started: bool
    connected: bool
    quiet_for: float


def is_unused(facts: RoomFacts, unused_seconds: float) -> bool:
    """Whether a room with ``facts`` is unused: no match ever started, nobody connected,
    and no change for at least ``unused_seconds`` (``CUCUMBER_UNUSED_ROOM_SECONDS``)."""
    return not facts.started and not facts.connected and facts.quiet_for >= unused_seconds


def is_idle(facts: RoomFacts, idle_seconds: float) -> bool:
    """Whether a room with ``facts`` is idle: nobody connected and no change for at least
    ``idle_seconds`` (``CUCUMBER_ROOM_IDLE_SECONDS``)."""
    return not facts.connected and facts.quiet_for >= idle_seconds


def slow_verdict(*, phase: RoomPhase, quiet_for: float, since_acted: float, hour_seconds: float) -> str | None:
    """What becomes of a slow room (``hour_seconds``: a slow hour's length) in ``phase``: ``"keep"`` it
    whatever the idle rules say, ``"abandon"`` its match, or ``None``: the live rules apply.

    While its match lasts it is kept, until no person has acted for
    :data:`~app.rooms.pace.IDLE_MATCH_DAYS` (``since_acted`` seconds ago): then
    abandoned. An unstarted lobby is kept for :data:`~app.rooms.pace.LOBBY_DAYS`
    since it last changed (``quiet_for`` seconds ago). A finished match: the live rules.
    """
    day = 24 * hour_seconds
    if phase == RoomPhase.PLAYING:
        return "abandon" if since_acted >= IDLE_MATCH_DAYS * day else "keep"
    if phase == RoomPhase.LOBBY:
        return "keep" if quiet_for < LOBBY_DAYS * day else None
    return None
