"""Who is at a room: its live connections, and since when each absent person has been gone.

The room owns one :class:`Presence` and is the only one to change it (under
its lock); times are the room's monotonic clock readings, in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from app.game.record import PLAYER
from app.rooms.connection import Connection
from app.rooms.lobby import Seat


class Presence:
    """A room's connections and the moments people left.

    A person counts as present while at least one of their connections is
    live (not dropped). ``absent_for`` tells how long someone has been gone:
    since their last connection closed, since they took a seat without
    connecting, or since the room was restored after a restart.

    A seated person may also step away by choice (:meth:`step`): the table
    then counts them gone for good (:meth:`seat_absent_for`) until they come
    back, while they stay connected and may watch, host and come back.
    """

    def __init__(self) -> None:
        self.connections: set[Connection] = set()
        self._gone_since: dict[str, float] = {}
        self._stepped: set[str] = set()

    def live(self) -> list[Connection]:
        """The connections still open."""
        return [conn for conn in self.connections if not conn.dropped]

    def anyone(self) -> bool:
        """Whether anybody at all (player or spectator) is connected."""
        return any(not conn.dropped for conn in self.connections)

    def present(self) -> set[str]:
        """Token hashes of the people with a live connection."""
        return {conn.token_hash for conn in self.connections if not conn.dropped and conn.token_hash is not None}

    def absent_for(self, token_hash: str | None, now: float) -> float | None:
        """Seconds ``token_hash``'s person has been gone at ``now``; ``None`` while present (or for no one)."""
        if token_hash is None or token_hash in self.present():
            return None
        return now - self._gone_since.get(token_hash, now)

    def seat_absent_for(self, token_hash: str | None, now: float) -> float | None:
        """How long the table counts ``token_hash``'s seat as without its person at ``now``: as
        :meth:`absent_for`, but infinite once they stepped away (the stand-in plays at once)."""
        return math.inf if token_hash in self._stepped else self.absent_for(token_hash, now)

    def stepped_away(self, token_hash: str | None) -> bool:
        """Whether ``token_hash``'s person has handed their seat to the stand-in bot by choice."""
        return token_hash in self._stepped

    def decider(self, seat: Seat, reason: str) -> str:
        """Who decided a card a bot played for ``reason`` (a ``Due``'s: ``"bot"``, ``"away"`` or ``"clock"``) in
        ``seat``, as the match record says it (docs/rules.md §4 ``decided_by``): the seat's own
        player for a bot seat, else why the stand-in played for the person: ``"turn_clock"``,
        ``"deadline"`` and ``"vacation"`` (a slow room), ``"stepped_away"`` or ``"away"``."""
        if reason == "bot":
            return PLAYER
        if reason == "clock":
            return "turn_clock"
        if reason in ("deadline", "vacation"):
            return reason
        return "stepped_away" if seat.token_hash in self._stepped else "away"

    def steps(self) -> frozenset[str]:
        """The token hashes of the people who stepped away (what the room stores with its seats)."""
        return frozenset(self._stepped)

    def after_step(self, token_hash: str, away: bool) -> frozenset[str]:
        """:meth:`steps` as they would be once ``token_hash``'s person steps away (``away``) or comes back;
        nothing changes here (the room stores them before :meth:`step`)."""
        return self.steps() | {token_hash} if away else self.steps() - {token_hash}

    def step(self, token_hash: str, away: bool) -> None:
        """``token_hash``'s person steps away from their seat (``away``) or comes back to it."""
        if away:
            self._stepped.add(token_hash)
        else:
            self._stepped.discard(token_hash)

    def stepped_again(self, token_hashes: Iterable[str]) -> None:
        """A room rebuilt from storage: these people had stepped away from the match still being played."""
        self._stepped.update(token_hashes)

    def end_steps(self) -> None:
        """A new match: everyone who stepped away from the last one is back (if connected)."""
        self._stepped.clear()

    def stepped_seats(self, seats: Sequence[Seat]) -> frozenset[int]:
        """The seats whose person stepped away."""
        return frozenset(index for index, seat in enumerate(seats) if seat.token_hash in self._stepped)

    def attach(self, conn: Connection) -> None:
        """A connection opened: its person is here."""
        self.connections.add(conn)
        if conn.token_hash is not None:
            self._gone_since.pop(conn.token_hash, None)

    def detach(self, conn: Connection, now: float) -> bool:
        """A connection closed; if it was its person's last, they are gone from ``now``.

        Returns whether the connection was attached.
        """
        if conn not in self.connections:
            return False
        self.connections.discard(conn)
        token = conn.token_hash
        if token is not None and not any(other.token_hash == token for other in self.connections):
            self._gone_since[token] = now
        return True

    def gone_from(self, token_hashes: Iterable[str | None], now: float) -> None:
        """These people are not here from ``now`` (a new seat, a restored room) unless connected."""
        present = self.present()
        for token in token_hashes:
            if token is not None and token not in present:
                self._gone_since[token] = now

    def moved(self, old: str | None, new: str, now: float, notice: object) -> None:
        """A seat passed from the person with token hash ``old`` to the one with ``new``, at ``now``.

        ``old``'s connections watch from now on, told why by ``notice``.
        ``new`` counts as gone since ``old`` went (a bot playing for an away
        player goes on until the new browser connects), or from ``now`` if
        ``old`` was still here.
        """
        theirs = [conn for conn in self.connections if old is not None and conn.token_hash == old]
        here = any(not conn.dropped for conn in theirs)
        for conn in theirs:
            conn.watch_only(notice)
        gone = now if here or old is None else self._gone_since.get(old, now)
        self.forget(old)
        self._gone_since[new] = gone

    def forget(self, token_hash: str | None) -> None:
        """Stop tracking a person who no longer has a seat."""
        if token_hash is not None:
            self._gone_since.pop(token_hash, None)
            self._stepped.discard(token_hash)

    def absences(self, seats: Sequence[Seat], now: float) -> list[float | None]:
        """Per seat, how long the table counts its person gone at ``now`` (``None``: a bot, or connected and
        not stepped away; infinite: stepped away, :meth:`seat_absent_for`)."""
        present = self.present()  # once, not once a seat: every change of a room asks
        return [None if seat.is_bot or seat.token_hash is None
                else math.inf if seat.token_hash in self._stepped
                else None if seat.token_hash in present
                else now - self._gone_since.get(seat.token_hash, now) for seat in seats]

    def connected_seats(self, seats: Sequence[Seat]) -> frozenset[int]:
        """The seats whose person has a live connection."""
        present = self.present()
        return frozenset(index for index, seat in enumerate(seats) if seat.token_hash in present)

    def spectators(self, seats: Sequence[Seat]) -> int:
        """Live connections of people without a seat (the host watching counts too)."""
        seated = {seat.token_hash for seat in seats if seat.token_hash is not None}
        return sum(1 for conn in self.live() if conn.token_hash not in seated)

    def host_absent(self, host: str | None, seats: Sequence[Seat], now: float) -> float | None:
        """How long ``host`` has been gone at ``now`` while a seated person is here to take over.

        ``None`` when the host is here, there is no host, or nobody seated is here.
        """
        present = self.present()
        if host is None or host in present or not any(seat.token_hash in present for seat in seats):
            return None
        return self.absent_for(host, now)

    def heir(self, seats: Sequence[Seat]) -> str | None:
        """The token hash of the first seated person who is here (to take over hosting), or ``None``."""
        present = self.present()
        return next((seat.token_hash for seat in seats if seat.token_hash in present), None)
