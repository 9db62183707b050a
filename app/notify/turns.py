"""A turn the outbound side is told about: whose it is, at which table, until when."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class TurnNotice:
    """A turn to tell a player about: at table ``room_code``, it is ``player``'s turn (their name) until
    ``deadline`` (aware, UTC); ``reminder`` when it is the reminder at 80 % of the time, not the turn's
    first push. Holds no card and no hand."""

    room_code: str
    player: str
    deadline: datetime
    reminder: bool

    def seconds_left(self, now: datetime | None = None) -> float:
        """Seconds from ``now`` (default: the clock) to the deadline; negative once it has passed."""
        return (self.deadline - (now or datetime.now(UTC))).total_seconds()
