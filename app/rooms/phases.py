"""Where a room stands: before its first match, playing one, or showing the one that ended."""

from __future__ import annotations

from enum import StrEnum

from app.game.match import Match


class RoomPhase(StrEnum):
    """A room's phase; its value is the ``phase`` of the JSON protocol's ``state`` (docs/protocol.md)."""

    LOBBY = "lobby"
    """No match yet."""
    PLAYING = "playing"
    """A match is being played."""
    FINISHED = "finished"
    """The last match is over (until the next one starts, or the seats change)."""


def room_phase(match: Match | None) -> RoomPhase:
    """The phase of a room whose current match is ``match`` (``None``: no match yet)."""
    if match is None:
        return RoomPhase.LOBBY
    return RoomPhase.FINISHED if match.finished else RoomPhase.PLAYING
