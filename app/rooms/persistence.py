"""The rooms' way to storage: each call runs in a worker thread, off the event loop.

Deals and plays go to storage's group commit instead (``Storage.submit_…``): the
plays of all rooms waiting at a time share one transaction, and each is awaited
until it is committed.

Rooms hand over engine values (a match, its seats); this module turns them
into what storage keeps. Storage errors become :class:`StorageUnavailable`,
a refusal like any other; nothing else about the database reaches the rooms.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from app.game import record as records
from app.game.match import Match
from app.game.record import PLAYER
from app.game.standings import placings
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby
from app.storage import Fence, OwnershipLost, RoomCodeTaken, RoomSnapshot, SeatRecord, Storage, StorageError
from app.wording.errors import problem

log = logging.getLogger(__name__)
T = TypeVar("T")


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


class StorageUnavailable(RoomError):
    """A write the room needed did not happen; the action is refused (503) and nothing changed."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.STORAGE_UNAVAILABLE, problem("storage_unavailable"), status=503)


class StorageObserver(Protocol):
    """Told about every storage call the rooms make (the server's metrics listen here)."""

    def storage_call(self, call: str, seconds: float, *, failed: bool) -> None:
        """Storage method ``call`` took ``seconds`` (wall time, waiting for a thread included);
        ``failed``: it raised."""


class RoomStore:
    """Asynchronous front of :class:`app.storage.Storage` for the rooms.

    Every method raises :class:`StorageUnavailable` when storage fails. An
    ``observer``, if given, hears how long each call took. A store made for
    one room by :meth:`fenced` carries that room's :class:`~app.storage.Fence`
    in every write; a write storage refuses because another process has taken
    the room since calls ``on_lost`` (once the refusal is known) and is refused.
    """

    def __init__(self, storage: Storage, observer: StorageObserver | None = None, *, fence: Fence | None = None,
                 on_lost: Callable[[], None] | None = None) -> None:
        self.storage = storage
        self.observer = observer
        self.fence = fence
        self.on_lost = on_lost

    def fenced(self, fence: Fence, on_lost: Callable[[], None] | None = None) -> RoomStore:
        """A store for the room of ``fence`` alone, whose writes carry it; ``on_lost`` is called when one
        is refused because the room has another owner now."""
        return RoomStore(self.storage, self.observer, fence=fence, on_lost=on_lost)

    async def _run(self, call: Callable[..., T], **kwargs: Any) -> T:
        """Run a storage call in a worker thread."""
        return await self._observed(call.__name__, asyncio.to_thread(call, **kwargs))

    async def _observed(self, what: str, call: Awaitable[T]) -> T:
        """Await storage call ``what``, telling the observer how long it took; storage errors become refusals."""
        started, failed = time.perf_counter(), True
        try:
            result = await call
            failed = False
            return result
        except RoomCodeTaken:
            raise
        except OwnershipLost as error:
            log.warning("room %s: %s; the room leaves this process", error.room, error.message)
            if self.on_lost is not None:
                self.on_lost()
            raise StorageUnavailable() from error
        except StorageError as error:
            log.warning("storage %s failed: %s", what, error)
            raise StorageUnavailable() from error
        finally:
            if self.observer is not None:
                self.observer.storage_call(what, time.perf_counter() - started, failed=failed)

    async def save_room(self, *, code: str, lobby: Lobby, created_at: datetime, new: bool = False,
                        stepped: Collection[str] = frozenset()) -> None:
        """Store room ``code`` with its lobby: rules, host, clock, pace, seats (player ids, token hashes, never tokens).

        ``stepped``: the token hashes of the people who stepped away from their seat (a seat of the
        lobby held by one of them is stored as stepped away; other hashes are ignored). ``new``: the
        room is being opened; raises :class:`~app.storage.errors.RoomCodeTaken` (not a refusal: the
        caller picks another code) if a stored room has its code.
        """
        seats = [SeatRecord(seat=index, name=seat.name, token_hash=seat.token_hash, bot=seat.bot, player=seat.player,
                            stepped_away=not seat.is_bot and seat.token_hash in stepped)
                 for index, seat in enumerate(lobby.seats)]
        await self._run(self.storage.save_room, code=code, rules=lobby.rules.to_dict(), host_token_hash=lobby.host,
                        seats=seats, created_at=created_at, turn_seconds=lobby.turn_seconds, new=new, fence=self.fence,
                        turn_hours=None if lobby.pace is None else lobby.pace.turn_hours)

    async def save_slow(self, *, code: str, slow: dict[str, Any] | None, wake_at: datetime | None = None) -> None:
        """Store what slow room ``code`` keeps besides its lobby (JSON-ready), and ``wake_at``, when it is next
        due while asleep in the database (``None``: awake)."""
        await self._observed("save_slow", self.storage.commit_slow(code=code, slow=slow, wake_at=wake_at,
                                                                   fence=self.fence))

    async def due_rooms(self) -> list[str]:
        """The codes of the rooms asleep in the database that are due now, soonest first."""
        return await self._run(self.storage.due_rooms, now=now())

    async def close_room(self, *, code: str) -> None:
        """Mark the room closed now: it is not restored at the next start."""
        await self._run(self.storage.close_room, code=code, closed_at=now(), fence=self.fence)

    async def start_match(self, *, match_id: str, room_code: str, match: Match) -> None:
        """Store a new match in progress with its first deal as dealt."""
        await self._observed("start_match", self.storage.commit_start_match(
            match_id=match_id, room_code=room_code, rules=match.rules.to_dict(), players=list(match.players),
            started_at=now(), fence=self.fence))
        await self.record_deal(match_id=match_id, match=match)

    async def record_deal(self, *, match_id: str, match: Match) -> None:
        """Store the deal ``match`` is at, as dealt (dealer and hands), before anyone sees it."""
        deal = match.deal
        if deal is None:
            raise ValueError("the match has no deal to store")
        hands = [[card.code for card in deal.dealt_hand(seat)] for seat in range(match.seat_count)]
        await self._observed("record_deal", self.storage.commit_deal(match_id=match_id, deal=match.deals_completed,
                                                                     dealer=deal.dealer, hands=hands,
                                                                     fence=self.fence))

    async def delete_unused_room(self, *, code: str) -> bool:
        """Delete a room no match was ever started in (else close it) now; whether it was deleted."""
        return await self._run(self.storage.delete_unused_room, code=code, closed_at=now(), fence=self.fence)

    async def record_play(self, *, match_id: str, before: Match, card: str, decided_by: str = PLAYER) -> None:
        """Store the play of ``card`` (a card code) made in ``before``, before it is shown to anyone, with who
        decided it (``decided_by``: docs/rules.md §4)."""
        plays = len(before.deal.plays) if before.deal is not None else 0
        await self._observed("record_play", self.storage.commit_play(match_id=match_id, deal=before.deals_completed,
                                                                     play=plays, card=card, played_at=now(),
                                                                     fence=self.fence, decided_by=decided_by))

    async def finish_match(self, *, match_id: str, match: Match) -> None:
        """Store the finished ``match`` with its record, placings and winners."""
        await self._observed("finish_match", self.storage.commit_finish_match(
            match_id=match_id, record=records.to_record(match), placings=placings(match),
            winners=list(match.winners), ended_at=now(), fence=self.fence))

    async def abandon_match(self, *, match_id: str, match: Match | None = None) -> None:
        """Mark a match in progress as never to be finished; given the ``match``, with the standings it is at."""
        await self._run(self.storage.abandon_match, match_id=match_id, ended_at=now(), fence=self.fence,
                        placings=None if match is None else placings(match))

    async def take_room(self, *, code: str, owner: str) -> RoomSnapshot | None:
        """Take open room ``code`` for process ``owner`` (:meth:`Storage.take_room`): the room with its new epoch,
        or ``None`` when no open room has that code."""
        return await self._run(self.storage.take_room, code=code, owner=owner, taken_at=now())

    async def take_open_rooms(self, *, owner: str) -> list[RoomSnapshot]:
        """Take every open room for process ``owner`` (:meth:`Storage.take_open_rooms`), oldest first."""
        return await self._run(self.storage.take_open_rooms, owner=owner, taken_at=now())
