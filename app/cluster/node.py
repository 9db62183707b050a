"""This server process's place: alone on its database, or one process of a cluster.

Alone (no ``CUCUMBER_REDIS_URL``), it holds its database's lease and restores every open room at
start. In a cluster it holds the leases of the rooms it runs, renewing them every
``lease_renew_seconds``; it takes a stored room nobody holds when a request or socket for it comes
in (or, for a room with a match in progress, when it finds it orphaned), and relays the traffic of
rooms others hold to them. On SIGTERM it hands its rooms over: each one's last write committed,
its sockets closed with 1012, its lease released.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Coroutine
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ConstantBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.cluster.leases import RoomLeases
from app.cluster.relay import Relay
from app.cluster.sole import DatabaseLease
from app.common.waits import pause, wait_ended
from app.config.settings import Settings
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.ownership import SoleOwnership
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.rooms.registry import HANDOVER_WAIT_SECONDS, RoomRegistry, new_process_id
from app.rooms.room import Room
from app.storage import StorageError
from app.wording.errors import problem

log = logging.getLogger(__name__)

REDIS_TIMEOUT_SECONDS = 2.0
"""How long one Redis call may take before it counts as failed."""
REDIS_RETRY_PAUSE_SECONDS = 0.1
"""The pause before a Redis call whose connection failed (dropped, or timed out) is tried again, once."""
STOP_STEP_SECONDS = 0.5
"""The least time each step of a stop is given (ending a loop, leaving Redis, closing the database), even
once the stop has used up ``stop_seconds``."""
ORPHAN_SWEEP_TICKS = 3
"""Every this many renewals, the process looks for rooms in play that nobody holds."""


REDIS_CONNECTIONS = 64
"""Most connections a process holds open to Redis. A call that finds them all busy waits for one (at most
:data:`REDIS_TIMEOUT_SECONDS`): redis-py's own pool would refuse it at once beyond 100, and a burst of
relayed frames (a table's state to the sockets of many tables, many sockets opening) would lose messages."""


def redis_client(url: str) -> Redis:
    """A client of the Redis at ``url`` (text answers), on a pool of at most :data:`REDIS_CONNECTIONS`
    connections that a call waits for. A call whose connection fails (dropped, or silent for
    :data:`REDIS_TIMEOUT_SECONDS` while connecting or answering) is tried once more on a new connection after
    :data:`REDIS_RETRY_PAUSE_SECONDS`, so that one dropped connection does not fail a lease renewal; it fails
    with ``RedisError`` if that fails too, or after :data:`REDIS_TIMEOUT_SECONDS` waiting for a connection."""
    retry = Retry(ConstantBackoff(REDIS_RETRY_PAUSE_SECONDS), retries=1,
                  supported_errors=(RedisConnectionError, RedisTimeoutError))
    pool = BlockingConnectionPool.from_url(url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_TIMEOUT_SECONDS,
                                           decode_responses=True, socket_timeout=REDIS_TIMEOUT_SECONDS,
                                           socket_connect_timeout=REDIS_TIMEOUT_SECONDS, retry=retry)
    return Redis.from_pool(pool)


class ClusterUnavailable(Exception):
    """Cluster mode is on but Redis cannot be reached at start; the message says where and why."""


class Node:
    """The process's rooms and how it holds them, built from ``settings`` and the rooms' ``store``.

    ``registry`` is the process's :class:`RoomRegistry`; ``process`` its id; ``relay`` (cluster
    mode only) carries traffic to and from the other processes.
    """

    def __init__(self, settings: Settings, store: RoomStore) -> None:
        self.settings = settings
        self.process = new_process_id(settings.process_name)
        self.started_at = time.time()
        self.draining = False
        self.stop_begun = asyncio.Event()
        """Set as the stop begins (:meth:`drain`): requests still waiting for their body are answered then
        (``app.api.stopping``)."""
        self.redis: Redis | None = None
        self.leases: RoomLeases | None = None
        self.relay: Relay | None = None
        self.database_lease: DatabaseLease | None = None
        if settings.redis_url:
            self.redis = redis_client(settings.redis_url)
            self.leases = RoomLeases(self.redis, prefix=settings.redis_prefix, process=self.process,
                                     seconds=settings.lease_seconds)
            self.relay = Relay(self.redis, prefix=settings.redis_prefix, owners=self,
                               timeout=max(2.0, settings.lease_seconds), queue_size=settings.send_queue_size)
        else:
            self.database_lease = DatabaseLease(store.storage, self.process, seconds=settings.lease_seconds,
                                                renew=settings.lease_renew_seconds)
        self.registry = RoomRegistry(settings, store, process=self.process,
                                     ownership=self.leases or SoleOwnership())
        self.redis_ok = self.redis is None
        self._renewed_at = time.monotonic()
        self._claims: dict[str, asyncio.Future[tuple[Room | None, bool]]] = {}
        self._keeper: asyncio.Task[None] | None = None
        self._handover: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        """Set once the rooms are handed over: the upkeep loop ends at its next turn (a cancellation of it
        may be lost: see ``app.common.waits``)."""
        self._stop_by: float | None = None
        """When the stop must be done (``time.monotonic()``), from the moment it began (:meth:`drain`)."""

    @property
    def mode(self) -> str:
        """``"single"`` (alone on its database) or ``"cluster"``."""
        return "single" if self.redis is None else "cluster"

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> int:
        """Take this process's place; returns how many rooms it restored (alone) or 0 (cluster).

        Raises :class:`~app.cluster.sole.LeaseHeld` when another live process holds the database
        alone, :class:`ClusterUnavailable` when Redis cannot be reached, :class:`StorageUnavailable`
        when the database fails.
        """
        if self.database_lease is not None:
            try:
                await self.database_lease.take()
            except StorageError as error:
                raise StorageUnavailable() from error
            restored = await self.registry.restore()
            self.database_lease.keep(on_lost=self._database_lost)
            return restored
        assert self.redis is not None and self.leases is not None and self.relay is not None
        try:
            await self.redis.ping()
            await self.leases.announce(self.about())
            await self.relay.start()
        except (RedisError, OSError) as error:
            raise ClusterUnavailable(f"cluster mode: Redis at {self.settings.redis_url} cannot be reached: "
                                     f"{error}") from error
        self.redis_ok = True
        self._renewed_at = time.monotonic()
        self._keeper = asyncio.get_running_loop().create_task(self._keep())
        return 0

    def drain(self) -> None:
        """Begin handing the rooms over (SIGTERM); idempotent. ``/readyz`` says 503 from now on.

        The whole stop, :meth:`stop` included, has ``stop_seconds`` from now; a room waits at most half of
        that (and at most :data:`~app.rooms.registry.HANDOVER_WAIT_SECONDS`) for its action in progress."""
        if self._handover is None:
            self.draining = True
            self.stop_begun.set()
            self.registry.accepting, self.registry.stopping = False, True
            self._stop_by = time.monotonic() + self.settings.stop_seconds
            wait = min(HANDOVER_WAIT_SECONDS, self.settings.stop_seconds / 2)
            self._handover = asyncio.get_running_loop().create_task(self.registry.shutdown(wait=wait))

    def time_left(self) -> float:
        """Seconds left of the stop (``stop_seconds`` from :meth:`drain`), at least :data:`STOP_STEP_SECONDS`;
        all of ``stop_seconds`` before it has begun."""
        if self._stop_by is None:
            return self.settings.stop_seconds
        return max(STOP_STEP_SECONDS, self._stop_by - time.monotonic())

    async def stop(self) -> None:
        """Hand every room over (:meth:`drain`), then leave: stop renewing, release the leases, close Redis.

        Returns within about ``stop_seconds`` of :meth:`drain` (each step after that has
        :data:`STOP_STEP_SECONDS`) whatever hangs: a step not done in time is left behind, with a warning that
        says where it waits (:func:`app.common.waits.wait_ended`). Never raises."""
        self.drain()
        assert self._handover is not None
        await wait_ended(self._handover, self.time_left(), "the rooms' handover")
        self._stopping.set()
        if self._keeper is not None:
            self._keeper.cancel()
            await wait_ended(self._keeper, self.time_left(), "the cluster's upkeep loop")
        if self.relay is not None:
            await self.relay.stop(self.time_left())
        if self.leases is not None:
            await self._within(self.leases.forget_process(), "removing this process's key from Redis")
        if self.redis is not None:
            await self._within(_quietly(self.redis.aclose()), "closing the Redis connections")
        if self.database_lease is not None:
            await self.database_lease.release(self.time_left())

    async def _within(self, step: Coroutine[Any, Any, None], what: str) -> None:
        """Run ``step`` for at most the stop's :meth:`time_left` (it is cancelled after that)."""
        await wait_ended(asyncio.ensure_future(step), self.time_left(), what)

    def _database_lost(self) -> None:
        """Another process took the database: give up every room at once (their sockets reconnect)."""
        self.registry.accepting = False
        for code in list(self.registry.rooms):
            self.registry.drop(code)

    # ------------------------------------------------------------------ the cluster's upkeep

    async def _keep(self) -> None:
        """Every ``lease_renew_seconds``: say this process is alive, renew its rooms' leases (dropping
        the rooms whose lease is lost), close relayed sockets whose other side went away, and now and
        then take rooms in play that nobody holds; until the rooms are handed over (:meth:`stop`)."""
        assert self.leases is not None and self.relay is not None
        ticks = 0
        while not await pause(self._stopping, self.settings.lease_renew_seconds):
            ticks += 1
            try:
                await self.leases.announce(self.about())
                for code in await self.leases.renew(list(self.registry.rooms)):
                    log.warning("room %s: its lease is another process's now; dropped", code)
                    self.registry.drop(code)
                owners = await self.leases.owners_of({tunnel.code for tunnel in self.relay.relayed.values()})
                alive = await self.leases.alive({tunnel.peer for tunnel in self.relay.hosted.values()})
                self.relay.watch(owners, alive)
                self.redis_ok, self._renewed_at = True, time.monotonic()
                if ticks % ORPHAN_SWEEP_TICKS == 0 and not self.draining:
                    await self._take_orphans()
            except (RedisError, OSError) as error:
                self.redis_ok = False
                log.warning("cluster upkeep failed: %s", error)
                if time.monotonic() - self._renewed_at > self.settings.lease_seconds:
                    # The leases have lapsed: others may hold these rooms by now.
                    for code in list(self.registry.rooms):
                        self.registry.drop(code)
            except Exception:
                log.exception("cluster upkeep failed")

    async def _take_orphans(self) -> None:
        """Take the rooms with a match in progress that no process holds (their owner died, and nobody
        came back to them), so that their clocks, bots and away players go on."""
        assert self.leases is not None
        storage = self.registry.store.storage
        try:
            codes = [code for code in await asyncio.to_thread(storage.rooms_in_play)
                     if code not in self.registry.rooms]
        except StorageError as error:
            log.warning("could not list the rooms in play: %s", error)
            return
        for code, owner in (await self.leases.owners_of(codes)).items():
            if owner is not None or len(self.registry.rooms) >= self.settings.max_rooms:
                continue
            try:
                if await self.claim(code) is not None:
                    log.info("room %s: taken over (nobody held it)", code)
            except StorageUnavailable:
                return  # the database is down: the next sweep tries again

    # ------------------------------------------------------------------ where rooms are served

    async def claim(self, code: str) -> Room | None:
        """Take stored open room ``code`` for this process if nobody holds it: its lease, then its epoch
        and its state from the database. Returns the room (held here), or ``None`` when another process
        holds it, there is no such room, or this process takes no rooms now. Raises ``RedisError``, and
        :class:`StorageUnavailable` when the database fails (the lease is released then)."""
        return (await self._claim(code))[0]

    async def _claim(self, code: str) -> tuple[Room | None, bool]:
        """:meth:`claim`, and whether the database said that it has no open room ``code`` (the one case
        in which this process may answer ``no_such_room`` for it)."""
        room = self.registry.rooms.get(code)
        if room is not None:
            return room, False
        pending = self._claims.get(code)
        if pending is not None:
            return await asyncio.shield(pending)
        assert self.leases is not None
        claim: asyncio.Future[tuple[Room | None, bool]] = asyncio.get_running_loop().create_future()
        self._claims[code] = claim
        room, absent = None, False
        try:
            if self.registry.accepting and await self.leases.acquire(code):
                try:
                    room = await self.registry.take(code)
                    absent = room is None and code not in self.registry.rooms
                finally:
                    if code not in self.registry.rooms:
                        await self.leases.release(code)
                if room is not None:
                    log.info("room %s: taken at epoch %s", code, self.registry.epoch_of(code))
        finally:
            claim.set_result((room, absent))
            del self._claims[code]
        return room, absent

    async def route(self, code: str) -> str | None:
        """Where room ``code``'s traffic goes: another process's id (it holds the room), or ``None``:
        here (this process holds it, has just taken it, or the database has no such open room).

        Raises :class:`~app.rooms.errors.RoomError` ``room_moving`` when none of these is known now: the
        room's lease names this process but the room is not held here (it is being handed over), or this
        process takes no rooms (it is draining) and nobody else holds it yet; the relay tries again, then
        answers ``room_moving`` (a socket: closed with 1013), never ``no_such_room`` for a stored room.
        Raises ``RedisError`` and :class:`StorageUnavailable` when they fail."""
        if code in self.registry.rooms:
            return None
        if code in self._claims and await self.holds(code):
            return None
        assert self.leases is not None
        owner = await self.leases.owner_of(code)
        if owner is not None and owner != self.process:
            return owner
        room, absent = await self._claim(code)
        if room is not None or absent:
            return None
        owner = await self.leases.owner_of(code)
        if owner is not None and owner != self.process:
            return owner
        raise RoomError(ErrorCode.ROOM_MOVING, problem("room_moving"), status=503)

    async def holds(self, code: str) -> bool:
        """Whether this process holds room ``code`` (after a claim of it in progress, if any)."""
        pending = self._claims.get(code)
        if pending is not None:
            await asyncio.shield(pending)
        return code in self.registry.rooms

    # ------------------------------------------------------------------ what operators see

    def readiness(self) -> str | None:
        """Why this process does not accept new rooms now (``None``: it does): ``draining`` (handing its
        rooms over), ``database_lease`` (alone: its database's lease is not held), ``redis`` (cluster:
        Redis is unreachable)."""
        if self.draining:
            return "draining"
        if self.database_lease is not None and (not self.database_lease.held or self.database_lease.lost):
            return "database_lease"
        if self.relay is not None and not (self.redis_ok and self.relay.healthy):
            return "redis"
        return None

    def health(self) -> dict[str, Any]:
        """What ``/healthz`` says of this process: its id, mode, and the rooms and sockets it holds."""
        rooms = self.registry.rooms.values()
        return {
            "process": self.process,
            "mode": self.mode,
            "rooms": len(self.registry.rooms),
            "sockets": sum(len(room.connections) for room in rooms),
            "relayed_sockets": 0 if self.relay is None else len(self.relay.relayed),
            "hosted_sockets": 0 if self.relay is None else len(self.relay.hosted),
            "draining": self.draining,
        }

    def about(self) -> dict[str, Any]:
        """What this process announces of itself in Redis: host, port, pid, start time (Unix seconds)."""
        return {"host": socket.gethostname(), "port": self.settings.port, "pid": os.getpid(),
                "started": round(self.started_at, 3)}


async def _quietly(step: Coroutine[Any, Any, None]) -> None:
    """``step``, whose failure to reach Redis is of no account (closing connections on the way out)."""
    with contextlib.suppress(RedisError, OSError):
        await step
