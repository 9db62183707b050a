"""The rooms' way to storage: each call runs in a worker thread, off the event loop.

Storage errors become :class:`StorageUnavailable`, which the room turns into
a refused action; nothing else about the database reaches the rooms.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.rooms.room import Seat
    from app.storage import Storage

log = logging.getLogger(__name__)


class StorageUnavailable(Exception):
    """A write the room needed did not happen; the action must be refused."""


class RoomStore:
    """Asynchronous front of :class:`app.storage.Storage` for the rooms.

    Every method has the same keyword arguments as the storage method of the
    same name and raises :class:`StorageUnavailable` when it fails.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def _run(self, method: str, **kwargs: Any) -> Any:
        from app.storage import StorageError

        try:
            return await asyncio.to_thread(getattr(self.storage, method), **kwargs)
        except StorageError as error:
            log.warning("storage %s failed: %s", method, error)
            raise StorageUnavailable("the game could not be saved (database unavailable); "
                                     "nothing changed, try again in a moment") from error

    async def save_room(self, *, code: str, rules: dict[str, Any], host_token_hash: str | None, seats: list[Seat],
                        created_at: datetime, turn_seconds: int | None) -> None:
        """Store the room, its rules, clock and seats (bots and token hashes, never tokens)."""
        from app.storage import SeatRecord

        records = [SeatRecord(seat=index, name=seat.name, token_hash=seat.token_hash, bot=seat.bot)
                   for index, seat in enumerate(seats)]
        await self._run("save_room", code=code, rules=rules, host_token_hash=host_token_hash, seats=records,
                        created_at=created_at, turn_seconds=turn_seconds)

    async def close_room(self, *, code: str, closed_at: datetime) -> None:
        """Mark the room closed: it is not restored at the next start."""
        await self._run("close_room", code=code, closed_at=closed_at)

    async def delete_unused_room(self, *, code: str, closed_at: datetime) -> bool:
        """Delete a room no match was started in (else close it); whether it was deleted."""
        return await self._run("delete_unused_room", code=code, closed_at=closed_at)

    async def start_match(self, **kwargs: Any) -> None:
        """Store a new match in progress."""
        await self._run("start_match", **kwargs)

    async def record_deal(self, **kwargs: Any) -> None:
        """Store a deal's dealer and hands as dealt, before anyone sees it."""
        await self._run("record_deal", **kwargs)

    async def record_play(self, **kwargs: Any) -> None:
        """Store one play, before it is shown to anyone."""
        await self._run("record_play", **kwargs)

    async def finish_match(self, **kwargs: Any) -> None:
        """Store the finished match with its record, placings and winners."""
        await self._run("finish_match", **kwargs)

    async def abandon_match(self, **kwargs: Any) -> None:
        """Mark a match in progress as never to be finished."""
        await self._run("abandon_match", **kwargs)
