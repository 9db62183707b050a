"""The slow-table part of a room: its pace's timings, its slow table, and its herald.

:class:`SlowRoom` is a base of :class:`~app.rooms.room.Room`, kept here so
that the room core stays small; what to do and when is decided in
:mod:`.pace`, :mod:`.slow` and :mod:`.schedule`, and told by :mod:`.herald`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from app.game.match import Match
from app.notify.notices import Notifier
from app.rooms.herald import Herald, herald_facts
from app.rooms.lobby import Lobby, Seat
from app.rooms.persistence import RoomStore
from app.rooms.presence import Presence
from app.rooms.schedule import Due, Timing, slow_timing
from app.rooms.slow import SlowChange, SlowTable, slow_due


class SlowRoom:
    """What a room has as a slow table (all of it idle in a live room, whose ``lobby.pace`` is ``None``).

    ``slow`` is the room's :class:`~app.rooms.slow.SlowTable`; ``herald``
    tells its players their turn; ``hour_seconds`` is how long a slow hour
    lasts (``CUCUMBER_SLOW_HOUR_SECONDS``); ``wall`` reads the time (aware UTC).
    """

    if TYPE_CHECKING:
        code: str
        lobby: Lobby
        lock: asyncio.Lock
        presence: Presence
        _clock: Callable[[], float]

        @property
        def seats(self) -> tuple[Seat, ...]: ...

        @property
        def match(self) -> Match | None: ...

        def _changed(self) -> None: ...

    def _start_slow(self, store: RoomStore, timing: Timing, notifier: Notifier | None, hour_seconds: float,
                    wall: Callable[[], datetime]) -> None:
        self._timing = timing
        self.slow, self.hour_seconds, self._wall = SlowTable(), hour_seconds, wall
        self.herald = Herald(self.code, store, notifier, stored=lambda: self.slow.to_json(),  # noqa: PLW0108 (the table of the moment)
                             look=lambda: herald_facts(self.slow, self.seats, self.presence, self._wall()))

    @property
    def timing(self) -> Timing:
        """The room's timings; a slow room's have no away grace and no pause between deals (:func:`slow_timing`)."""
        return self._timing if self.lobby.pace is None else slow_timing(self._timing)

    async def change_slow(self, change: SlowChange) -> None:
        """Apply a change of the slow table (:mod:`.slow`: quiet hours, a vacation, the webhook), refused as it says."""
        async with self.lock:
            self._set_slow(change(self.lobby, self.slow, self._wall()))
            self._changed()

    def _set_slow(self, slow: SlowTable) -> None:
        """Make ``slow`` the room's slow table, stored soon after if it differs (:meth:`Herald.changed`)."""
        if slow != self.slow:
            self.slow = slow
            self.herald.changed()

    def _note_slow(self) -> None:
        """A new state of a slow room: a new turn begins with its deadline, and the herald settles its notices."""
        if self.lobby.pace is not None or self.slow.turn is not None:
            self._set_slow(self.slow.following(self.match, self.seats, self.lobby.pace, self._wall(),
                                               self.hour_seconds))
            self.herald.update(herald_facts(self.slow, self.seats, self.presence, self._wall()))

    def due_at(self) -> datetime | None:
        """When this slow room next has something to do by itself while nobody is connected, if it may sleep
        until then (aware UTC): the turn's deadline, or an earlier notice. ``None``: it may not sleep (a live
        room, no match being played, or a card the bot plays soon)."""
        turn, facts = self.slow.turn, herald_facts(self.slow, self.seats, self.presence, self._wall())
        if self.lobby.pace is None or turn is None or facts is None or facts.token_hash is None or facts.played_for:
            return None
        return min(turn.deadline, self.herald.wake_at or turn.deadline)

    def _slow_due(self, turn_started: float) -> Due | None:
        """When and how a slow room's seat to play is played for (``turn_started``: in the room's clock)."""
        return slow_due(self.match, self.seats, self.presence, self.slow, self._clock() - turn_started,
                        self._wall(), self.timing)
