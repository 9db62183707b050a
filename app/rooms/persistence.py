"""The rooms' way to storage: each call runs in a worker thread, off the event loop.

Rooms hand over engine values (a match, its seats); this module turns them
into what storage keeps. Storage errors become :class:`StorageUnavailable`,
a refusal like any other; nothing else about the database reaches the rooms.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from app.game import record as records
from app.game.match import Match
from app.game.standings import placings
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby
from app.storage import SeatRecord, Storage, StorageError

log = logging.getLogger(__name__)
T = TypeVar("T")


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class StorageUnavailable(RoomError):
    """A write the room needed did not happen; the action is refused (503) and nothing changed."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.STORAGE_UNAVAILABLE, "the game could not be saved (database unavailable); "
                         "nothing changed, try again in a moment", status=503)


class RoomStore:
    """Asynchronous front of :class:`app.storage.Storage` for the rooms.

    Every method raises :class:`StorageUnavailable` when storage fails.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def _run(self, call: Callable[..., T], **kwargs: Any) -> T:
        try:
            return await asyncio.to_thread(call, **kwargs)
        except StorageError as error:
            log.warning("storage %s failed: %s", call.__name__, error)
            raise StorageUnavailable() from error

    async def save_room(self, *, code: str, lobby: Lobby, created_at: datetime) -> None:
        """Store room ``code`` with its lobby: rules, host, clock and seats (player ids, token hashes, never tokens)."""
        seats = [SeatRecord(seat=index, name=seat.name, token_hash=seat.token_hash, bot=seat.bot, player=seat.player)
                 for index, seat in enumerate(lobby.seats)]
        await self._run(self.storage.save_room, code=code, rules=lobby.rules.to_dict(), host_token_hash=lobby.host,
                        seats=seats, created_at=created_at, turn_seconds=lobby.turn_seconds)

    async def close_room(self, *, code: str) -> None:
        """Mark the room closed now: it is not restored at the next start."""
        await self._run(self.storage.close_room, code=code, closed_at=now())

    async def start_match(self, *, match_id: str, room_code: str, match: Match) -> None:
        """Store a new match in progress with its first deal as dealt."""
        await self._run(self.storage.start_match, match_id=match_id, room_code=room_code,
                        rules=match.rules.to_dict(), players=list(match.players), started_at=now())
        await self.record_deal(match_id=match_id, match=match)

    async def record_deal(self, *, match_id: str, match: Match) -> None:
        """Store the deal ``match`` is at, as dealt (dealer and hands), before anyone sees it."""
        deal = match.deal
        if deal is None:
            raise ValueError("the match has no deal to store")
        hands = [[card.code for card in deal.dealt_hand(seat)] for seat in range(match.seat_count)]
        await self._run(self.storage.record_deal, match_id=match_id, deal=match.deals_completed,
                        dealer=deal.dealer, hands=hands)

    async def delete_unused_room(self, *, code: str) -> bool:
        """Delete a room no match was ever started in (else close it) now; whether it was deleted."""
        return await self._run(self.storage.delete_unused_room, code=code, closed_at=now())

    async def record_play(self, *, match_id: str, before: Match, card: str) -> None:
        """Store the play of ``card`` (a card code) made in ``before``, before it is shown to anyone."""
        plays = len(before.deal.plays) if before.deal is not None else 0
        await self._run(self.storage.record_play, match_id=match_id, deal=before.deals_completed,
                        play=plays, card=card, played_at=now())

    async def finish_match(self, *, match_id: str, match: Match) -> None:
        """Store the finished ``match`` with its record, placings and winners."""
        await self._run(self.storage.finish_match, match_id=match_id, record=records.to_record(match),
                        placings=placings(match), winners=list(match.winners), ended_at=now())

    async def abandon_match(self, *, match_id: str) -> None:
        """Mark a match in progress as never to be finished."""
        await self._run(self.storage.abandon_match, match_id=match_id, ended_at=now())
