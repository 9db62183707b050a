"""The rooms alive in this server process, by code: the only mutable global state.

It creates rooms with fresh codes, finds them, rebuilds those that had a
match in progress when the server stopped (or, in a cluster, one room another
process held), and forgets rooms nobody uses. Every room it holds writes under
the epoch it was taken with (:class:`~app.storage.Fence`): a room another
process has taken since is dropped at its first refused write.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from dataclasses import replace
from datetime import datetime
from typing import Any

from app.common.identity import new_room_code, normalise_code
from app.common.waits import pause, wait_ended
from app.config.settings import Settings
from app.game import record as records
from app.game.errors import GameError, InvalidRules
from app.game.history import deal_by_deal
from app.game.rules import Rules
from app.game.summary import DealSummary
from app.notify.notices import Notifier
from app.rooms.errors import STOPPING_RETRY_SECONDS, ErrorCode, RoomError
from app.rooms.lobby import Lobby, Seat
from app.rooms.ownership import Ownership, SoleOwnership
from app.rooms.pace import Pace
from app.rooms.persistence import RoomStore, StorageUnavailable, now
from app.rooms.phases import RoomPhase
from app.rooms.retention import RoomFacts, is_idle, is_unused, slow_verdict
from app.rooms.room import Room
from app.rooms.schedule import Timing
from app.rooms.slow import SlowTable
from app.rooms.versions import MAX_EPOCH
from app.storage import Fence, RoomCodeTaken, RoomSnapshot
from app.wording.errors import problem

log = logging.getLogger(__name__)

CODE_ATTEMPTS = 20
"""New codes tried for a new room before giving up (each taken one is a stored room's)."""
FIRST_EPOCH = 1
"""The epoch of a room when it is opened (its row is inserted with it)."""
HANDOVER_WAIT_SECONDS = 10.0
"""How long a handover waits for a room's action in progress (a write being committed) before closing it."""


def new_process_id(name: str | None = None) -> str:
    """A name for this server process that no other process ever had: ``name`` (default: the host
    name), the process id and a random part, e.g. ``cards1-4242-k3j9``."""
    return f"{name or socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


class RoomRegistry:
    """All live rooms of the process, keyed by their code.

    Built once in the app's lifespan from the settings and the storage.
    ``process`` names this process in the log of room owners;
    ``ownership`` grants it rooms (a cluster's leases; alone, every room).
    ``accepting`` is false while new rooms are refused (the process is
    handing its rooms over, or lost its database).
    """

    def __init__(self, settings: Settings, store: RoomStore, *, process: str | None = None,
                 ownership: Ownership | None = None) -> None:
        self.settings = settings
        self.store = store
        self.process = process or new_process_id(settings.process_name)
        self.ownership: Ownership = ownership or SoleOwnership()
        self.rooms: dict[str, Room] = {}
        self.asleep: dict[str, asyncio.TimerHandle | None] = {}
        """The slow rooms this process put to sleep in the database, each with the call that wakes it when its
        next deadline or notice is due (:meth:`sleep`)."""
        self.notifier: Notifier | None = None
        """What tells slow rooms' players their turn (set in the app's lifespan; ``None``: nobody is told)."""
        self.stores: dict[str, RoomStore] = {}
        """Each room's own store, fenced with the epoch this process holds it under."""
        self.accepting = True
        self.stopping = False
        """Whether the process is stopping (new rooms are refused with ``server_stopping`` then)."""
        self._sweeper: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        """Set by :meth:`shutdown`: the sweeper ends at its next turn (a cancellation of it may be lost)."""

    def _new_room(self, code: str, rules: Rules, epoch: int, created_at: datetime | None = None) -> Room:
        settings = self.settings
        timing = Timing(deal_pause=settings.deal_pause_seconds, bot_delay=settings.bot_delay_seconds,
                        away_grace=settings.away_grace_seconds, hard_budget=settings.hard_bot_budget_seconds,
                        seat_link=settings.seat_link_seconds)
        store = self.store.fenced(Fence(code, epoch, self.process), on_lost=lambda: self.lost(code, epoch))
        room = Room(code=code, rules=rules, store=store, timing=timing, created_at=created_at, epoch=epoch,
                    notifier=self.notifier, hour_seconds=settings.slow_hour_seconds)
        self.stores[code] = store
        return room

    def epoch_of(self, code: str) -> int | None:
        """The epoch this process holds room ``code`` under, ``None`` when it does not hold it."""
        store = self.stores.get(code)
        return None if store is None or store.fence is None or code not in self.rooms else store.fence.epoch

    async def create(self, name: str, rules: Rules, pace: Pace | None = None) -> tuple[Room, int, str]:
        """Open a room with ``rules`` (and ``pace``: a slow room's; ``None``: live) and seat its creator as host.

        Returns ``(room, seat, token)``. Raises :class:`RoomError` for a bad
        name or when the room cannot be stored (nothing is kept then); while the process is stopping,
        ``server_stopping`` (503, with the seconds to wait), and ``server_full`` (503) when it holds
        ``max_rooms`` or takes no rooms for another reason.
        """
        if self.stopping:
            raise RoomError(ErrorCode.SERVER_STOPPING, problem("server_stopping"), status=503,
                            retry_after=STOPPING_RETRY_SECONDS)
        if len(self.rooms) >= self.settings.max_rooms or not self.accepting:
            raise RoomError(ErrorCode.SERVER_FULL, problem("server_full"), status=503)
        for _ in range(CODE_ATTEMPTS):
            code = new_room_code(set(self.rooms))
            if not await self.ownership.acquire(code):
                continue  # another process holds the code (opening it, or a stored room)
            room = self._new_room(code, rules, FIRST_EPOCH)
            room.lobby = replace(room.lobby, pace=pace)
            self.rooms[room.code] = room
            try:
                seat, token = await room.join(name)
            except RoomCodeTaken:
                self._forget(room.code)  # a stored room, closed or another process's, has the code
                await self.ownership.release(code)
                continue
            except RoomError:
                self._forget(room.code)
                await self.ownership.release(code)
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
        """Take and rebuild every room storage still has open, replaying its match in progress.

        For a process alone on its database, at start. Returns how many rooms
        were restored. A room whose stored match does not replay is restored
        without it (the match is marked abandoned). Raises
        :class:`StorageUnavailable` when storage fails.
        """
        snapshots = await self.store.take_open_rooms(owner=self.process)
        for snap in snapshots:
            await self._rebuild(snap)
        return len(snapshots)

    async def take(self, code: str) -> Room | None:
        """Take stored open room ``code`` from whoever held it (its lease is this process's already) and
        rebuild it here; ``None`` when there is no such room. Raises :class:`StorageUnavailable`."""
        code = normalise_code(code)
        if code in self.rooms:
            return self.rooms[code]
        snap = await self.store.take_room(code=code, owner=self.process)
        if snap is None:
            return None
        return await self._rebuild(snap)

    async def _rebuild(self, snap: RoomSnapshot) -> Room | None:
        """Room ``snap`` as stored, held under its epoch; ``None`` (and logged) when its rules are not valid."""
        try:
            rules = Rules.from_dict(snap.rules)
        except (InvalidRules, TypeError):
            log.error("room %s: stored rules are not valid; skipped", snap.code)
            return None
        if snap.epoch > MAX_EPOCH:
            log.error("room %s: taken %d times, more than its versions can count; skipped", snap.code, snap.epoch)
            return None
        room = self._new_room(snap.code, rules, snap.epoch, snap.created_at)
        stored = sorted(snap.seats, key=lambda s: s.seat)
        seats = tuple(Seat(seat.name, seat.token_hash, seat.bot, player=seat.player) for seat in stored)
        room.lobby = Lobby(rules, seats, snap.host_token_hash, snap.turn_seconds,
                           None if snap.turn_hours is None else Pace(snap.turn_hours))
        room.slow = SlowTable.from_json(snap.slow)
        room.herald.restore(snap.slow)
        current = room.current
        if snap.match is not None:
            try:
                current.restored(records.replay(snap.match.record), snap.match.match_id)
                current.last_summary = _last_summary(snap.match.record)
            except GameError as error:
                log.error("room %s: match %s does not replay (%s); abandoned", snap.code,
                          snap.match.match_id, error)
                with contextlib.suppress(StorageUnavailable):
                    await self.stores[snap.code].abandon_match(match_id=snap.match.match_id)
        elif snap.finished is not None and snap.finished.record["players"] == [seat.name for seat in seats]:
            # The final standings stay on show, as before the restart, while the seats are unchanged.
            current.match = records.replay(snap.finished.record)
            current.match_id = snap.finished.match_id
            current.last_summary = _last_summary(snap.finished.record)
        # A match whose last play was stored but not its end is stored as finished before anyone sees
        # it (a failure is tried again by the room's timer, and no new match starts before it is stored).
        await current.store_finish()
        self.rooms[room.code] = room
        room.restored(stepped=[seat.token_hash for seat in stored if seat.stepped_away and seat.token_hash])
        return room

    def lost(self, code: str, epoch: int) -> None:
        """Room ``code``, held under ``epoch``, has another owner now: drop it (see :meth:`drop`)."""
        if self.epoch_of(code) == epoch:
            self.drop(code)

    def drop(self, code: str) -> bool:
        """Forget room ``code`` at once, without writing anything, and close its connections with 1012 (so
        that they reconnect, to whoever holds it now); returns whether this process held it."""
        room = self.rooms.get(code)
        if room is None:
            return False
        self._forget(code)
        room.close()
        log.info("room %s: dropped (held elsewhere now)", code)
        return True

    def _forget(self, code: str) -> None:
        self.rooms.pop(code, None)
        self.stores.pop(code, None)

    def start_sweeping(self) -> None:
        """Start the background task that removes idle rooms."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        shortest = min(self.settings.room_idle_seconds, self.settings.unused_room_seconds)
        interval = min(60.0, max(0.05, shortest / 4))
        while not await pause(self._stopping, interval):
            await self.sweep()
            await self.wake_due()

    async def sweep(self) -> list[str]:
        """Remove the rooms idle for ``room_idle_seconds`` (closed in storage) and the unused
        ones (:func:`~app.rooms.retention.is_unused`, deleted from storage); returns their codes."""
        removed = []
        moment = time.monotonic()
        for code, room in list(self.rooms.items()):
            facts = RoomFacts(started=room.match is not None or room.current.match_id is not None,
                              connected=bool(room.connections), quiet_for=moment - room.last_active)
            verdict = None if room.lobby.pace is None else slow_verdict(
                phase=room.phase, quiet_for=facts.quiet_for, hour_seconds=self.settings.slow_hour_seconds,
                since_acted=(now() - (room.slow.last_acted or room.created_at)).total_seconds())
            unused = verdict is None and is_unused(facts, self.settings.unused_room_seconds)
            playing = room.phase == RoomPhase.PLAYING
            if verdict == "keep" and playing and is_idle(facts, self.settings.room_idle_seconds):
                await self.sleep(code, room)
                continue
            if verdict == "keep" or (verdict is None and not unused
                                     and not is_idle(facts, self.settings.room_idle_seconds)):
                continue
            store = self.stores[code]
            try:
                if unused:
                    await store.delete_unused_room(code=code)
                else:
                    if room.match is not None and not room.match.finished and room.current.match_id:
                        await store.abandon_match(match_id=room.current.match_id,
                                                  match=room.match if verdict == "abandon" else None)
                    await store.close_room(code=code)
            except StorageUnavailable:
                continue  # try again at the next sweep (or the room was dropped, having another owner)
            room.close()
            self._forget(code)
            await self.ownership.release(code)
            removed.append(code)
        return removed

    async def sleep(self, code: str, room: Room) -> bool:
        """Put slow room ``code``, idle and waiting on a deadline, to sleep in the database: it is stored with
        when it is next due (:meth:`~app.rooms.slow_room.SlowRoom.due_at`), leaves memory (so it does not count
        against ``max_rooms``) and wakes then, or when someone asks for it (:meth:`wake`). Only a process
        alone on its database puts rooms to sleep: in a cluster, an open room nobody holds is taken at once.
        Returns whether it sleeps; a room with someone connected, a card due soon or storage failing stays.
        """
        if self.settings.cluster or code not in self.rooms:
            return False
        async with room.lock:
            due = room.due_at()
            if due is None or room.connections or not await room.herald.written():
                return False
            room.close()
        try:
            await self.stores[code].save_slow(code=code, slow=room.herald.state(), wake_at=due)
        except StorageUnavailable:
            log.warning("room %s: could not be put to sleep; it is taken again", code)
            self._forget(code)
            await self.wake(code)
            return False
        self._forget(code)
        await self.ownership.release(code)
        delay = max(0.0, (due - now()).total_seconds())
        self.asleep[code] = asyncio.get_running_loop().call_later(delay, self._wake_later, code)
        log.info("room %s: asleep until %s", code, due.isoformat())
        return True

    def _wake_later(self, code: str) -> None:
        self.asleep[code] = None
        asyncio.get_running_loop().create_task(self._wake_quietly(code))

    async def _wake_quietly(self, code: str) -> None:
        try:
            await self.wake(code)
        except StorageUnavailable:  # the sweep's look at the due rooms tries again
            log.warning("room %s: could not be woken now", code)

    async def wake(self, code: str) -> Room | None:
        """Room ``code`` awake in this process: taken from the database if it sleeps there (a room asleep is
        an open room like any other); ``None`` when there is no such open room. Raises
        :class:`StorageUnavailable`."""
        code = normalise_code(code)
        waking = self.asleep.pop(code, None)
        if waking is not None:
            waking.cancel()
        if code in self.rooms:
            return self.rooms[code]
        room = await self.take(code)
        if room is not None:
            room.herald.changed()  # stored again without its wake-up time: it is awake
            log.info("room %s: awake", code)
        return room

    async def wake_due(self) -> list[str]:
        """Wake the rooms asleep in the database whose time has come (one put to sleep before a restart too);
        returns their codes. Storage failing: none now, tried again at the next sweep."""
        if self.settings.cluster or self.stopping:
            return []
        try:
            due = [code for code in await self.store.due_rooms() if code not in self.rooms]
            for code in due:
                await self.wake(code)
        except StorageUnavailable:
            return []
        return due

    async def shutdown(self, wait: float = HANDOVER_WAIT_SECONDS) -> None:
        """Hand every room over (the rooms stay stored, for the next process to take).

        New rooms are refused from now on (``server_stopping``); the sweeper stops (waited for at most
        ``wait`` seconds); every room at once, once its action in progress is
        done (its write committed, or after ``wait`` seconds), stops its timer
        and closes its connections with 1012; then its ownership is released.
        So the handover takes about ``wait`` seconds at most, however many rooms
        there are (and the time to release their ownership). Never raises: a room
        whose handover fails is logged and forgotten all the same.
        """
        self.accepting, self.stopping = False, True
        self._stopping.set()
        for waking in self.asleep.values():
            if waking is not None:
                waking.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
            await wait_ended(self._sweeper, wait, "the idle-room sweeper")
        rooms = list(self.rooms.items())
        outcomes = await asyncio.gather(*(self._hand_over(code, room, wait) for code, room in rooms),
                                        return_exceptions=True)
        for (code, _), outcome in zip(rooms, outcomes, strict=True):
            if isinstance(outcome, Exception):
                log.error("room %s: its handover failed: %r", code, outcome)

    async def _hand_over(self, code: str, room: Room, wait: float) -> None:
        """Close room ``code`` once its action in progress is done (at most ``wait`` seconds), forget it, and
        release its ownership."""
        try:
            try:
                async with asyncio.timeout(wait):
                    await room.lock.acquire()
            except TimeoutError:
                log.warning("room %s: an action still runs; closing it all the same", code)
                room.close()
            else:
                try:
                    room.close()
                finally:
                    room.lock.release()
        finally:
            self._forget(code)
        await self.ownership.release(code)


def _last_summary(record: dict[str, Any]) -> DealSummary | None:
    """The summary of the last completed deal of a record, as shown after that deal."""
    return next((step.summary for step in reversed(deal_by_deal(record)) if step.summary is not None), None)
