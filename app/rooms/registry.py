"""The rooms alive in this server process, by code: the only mutable global state.

It creates rooms with fresh codes, finds them, rebuilds those that had a
match in progress when the server stopped, and forgets rooms nobody uses.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import datetime
from typing import Any

from app.game import record as records
from app.game.errors import GameError, InvalidRules
from app.game.history import deal_by_deal
from app.game.rules import Rules
from app.game.summary import DealSummary
from app.identity import new_room_code, normalise_code
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby, Seat
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.rooms.retention import RoomFacts, is_idle, is_unused
from app.rooms.room import Room
from app.rooms.schedule import Timing
from app.settings import Settings
from app.storage import RoomCodeTaken
from app.wording.errors import problem

log = logging.getLogger(__name__)

CODE_ATTEMPTS = 20
"""New codes tried for a new room before giving up (each taken one is a stored room's)."""


class RoomRegistry:
    """All live rooms of the process, keyed by their code.

    Built once in the app's lifespan from the settings and the storage.
    """

    def __init__(self, settings: Settings, store: RoomStore) -> None:
        self.settings = settings
        self.store = store
        self.rooms: dict[str, Room] = {}
        self._sweeper: asyncio.Task[None] | None = None

    def _new_room(self, code: str, rules: Rules, created_at: datetime | None = None) -> Room:
        settings = self.settings
        timing = Timing(deal_pause=settings.deal_pause_seconds, bot_delay=settings.bot_delay_seconds,
                        away_grace=settings.away_grace_seconds, hard_budget=settings.hard_bot_budget_seconds,
                        seat_link=settings.seat_link_seconds)
        return Room(code=code, rules=rules, store=self.store, timing=timing, created_at=created_at)

    async def create(self, name: str, rules: Rules) -> tuple[Room, int, str]:
        """Open a room with ``rules`` and seat its creator as host.

        Returns ``(room, seat, token)``. Raises :class:`RoomError` for a bad
        name or when the room cannot be stored (nothing is kept then).
        """
        if len(self.rooms) >= self.settings.max_rooms:
            raise RoomError(ErrorCode.SERVER_FULL, problem("server_full"), status=503)
        for _ in range(CODE_ATTEMPTS):
            room = self._new_room(new_room_code(set(self.rooms)), rules)
            self.rooms[room.code] = room
            try:
                seat, token = await room.join(name)
            except RoomCodeTaken:
                del self.rooms[room.code]  # a stored room, closed or another process's, has the code
                continue
            except RoomError:
                del self.rooms[room.code]
                raise
            return room, seat, token
        raise RoomError(ErrorCode.STORAGE_UNAVAILABLE, problem("storage_unavailable"), status=503)

    def get(self, code: str) -> Room | None:
        """The live room with this code (any case), or ``None``."""
        return self.rooms.get(normalise_code(code))

    def require(self, code: str) -> Room:
        """The live room with this code; :class:`RoomError` (404) when there is none."""
        room = self.get(code)
        if room is None:
            raise RoomError(ErrorCode.NO_SUCH_ROOM, problem("no_such_room"), status=404)
        return room

    async def restore(self) -> int:
        """Rebuild every room storage still has open, replaying its match in progress.

        Returns how many rooms were restored. A room whose stored match does
        not replay is restored without it (the match is marked abandoned).
        """
        snapshots = await asyncio.to_thread(self.store.storage.active_rooms)
        for snap in snapshots:
            try:
                rules = Rules.from_dict(snap.rules)
            except (InvalidRules, TypeError):
                log.error("room %s: stored rules are not valid; skipped", snap.code)
                continue
            room = self._new_room(snap.code, rules, snap.created_at)
            stored = sorted(snap.seats, key=lambda s: s.seat)
            seats = tuple(Seat(seat.name, seat.token_hash, seat.bot, player=seat.player) for seat in stored)
            room.lobby = Lobby(rules, seats, snap.host_token_hash, snap.turn_seconds)
            current = room.current
            if snap.match is not None:
                try:
                    current.match = records.replay(snap.match.record)
                    current.match_id = snap.match.match_id
                    current.last_summary = _last_summary(snap.match.record)
                except GameError as error:
                    log.error("room %s: match %s does not replay (%s); abandoned", snap.code,
                              snap.match.match_id, error)
                    with contextlib.suppress(StorageUnavailable):
                        await self.store.abandon_match(match_id=snap.match.match_id)
            elif snap.finished is not None and snap.finished.record["players"] == [seat.name for seat in seats]:
                # The final standings stay on show, as before the restart, while the seats are unchanged.
                current.match = records.replay(snap.finished.record)
                current.match_id = snap.finished.match_id
                current.last_summary = _last_summary(snap.finished.record)
            self.rooms[room.code] = room
            room.restored()
        return len(snapshots)

    def start_sweeping(self) -> None:
        """Start the background task that removes idle rooms."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        shortest = min(self.settings.room_idle_seconds, self.settings.unused_room_seconds)
        interval = min(60.0, max(0.05, shortest / 4))
        while True:
            await asyncio.sleep(interval)
            await self.sweep()

    async def sweep(self) -> list[str]:
        """Remove the rooms idle for ``room_idle_seconds`` (closed in storage) and the unused
        ones (:func:`~app.rooms.retention.is_unused`, deleted from storage); returns their codes."""
        removed = []
        moment = time.monotonic()
        for code, room in list(self.rooms.items()):
            facts = RoomFacts(started=room.match is not None or room.current.match_id is not None,
                              connected=bool(room.connections), quiet_for=moment - room.last_active)
            unused = is_unused(facts, self.settings.unused_room_seconds)
            if not unused and not is_idle(facts, self.settings.room_idle_seconds):
                continue
            try:
                if unused:
                    await self.store.delete_unused_room(code=code)
                else:
                    if room.match is not None and not room.match.finished and room.current.match_id:
                        await self.store.abandon_match(match_id=room.current.match_id)
                    await self.store.close_room(code=code)
            except StorageUnavailable:
                continue  # try again at the next sweep
            room.close()
            del self.rooms[code]
            removed.append(code)
        return removed

    async def shutdown(self) -> None:
        """Stop the sweeper and every room's timer (the rooms stay stored)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for room in self.rooms.values():
            room.close()


def _last_summary(record: dict[str, Any]) -> DealSummary | None:
    """The summary of the last completed deal of a record, as shown after that deal."""
    return next((step.summary for step in reversed(deal_by_deal(record)) if step.summary is not None), None)
