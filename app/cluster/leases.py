"""Room leases in Redis: one owner per room at a time, for as long as it keeps renewing.

A lease is the key ``{prefix}:room:{CODE}:owner`` holding the owner's process id, set with
``SET NX PX`` (only when nobody holds it) and renewed or released only by its holder (a
compare-and-set script). Each live process also keeps ``{prefix}:process:{ID}`` (its address and
start time, as JSON), on the same lease time, so that others can tell it is alive.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def room_key(prefix: str, code: str) -> str:
    """The key of room ``code``'s lease: its value is the owner's process id."""
    return f"{prefix}:room:{code}:owner"


def process_key(prefix: str, process: str) -> str:
    """The key that says process ``process`` is alive (JSON: host, port, pid, started)."""
    return f"{prefix}:process:{process}"


def inbox(prefix: str, process: str) -> str:
    """The pub/sub channel process ``process`` reads: everything other processes send it."""
    return f"{prefix}:to:{process}"


class RoomLeases:
    """The room leases of process ``process`` in ``redis``, under ``prefix``, ``seconds`` long.

    Implements :class:`app.rooms.ownership.Ownership` for the registry.
    """

    def __init__(self, redis: Redis, *, prefix: str, process: str, seconds: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.process = process
        self.milliseconds = max(1, round(seconds * 1000))
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    async def acquire(self, code: str) -> bool:
        """Take room ``code``'s lease if nobody holds it (or this process does); whether it is ours now.
        Raises ``RedisError`` when Redis fails."""
        key = room_key(self.prefix, code)
        if await self.redis.set(key, self.process, nx=True, px=self.milliseconds):
            return True
        return await self.redis.get(key) == self.process

    async def release(self, code: str) -> None:
        """Give room ``code``'s lease up if it is ours; never raises (a lease not released expires)."""
        try:
            await self._release(keys=[room_key(self.prefix, code)], args=[self.process])
        except RedisError as error:
            log.warning("could not release the lease of room %s: %s", code, error)

    async def owner_of(self, code: str) -> str | None:
        """The process id holding room ``code``'s lease, ``None`` when nobody does. Raises ``RedisError``."""
        owner = await self.redis.get(room_key(self.prefix, code))
        return None if owner is None else str(owner)

    async def owners_of(self, codes: Iterable[str]) -> dict[str, str | None]:
        """:meth:`owner_of` for several rooms in one round trip, by code. Raises ``RedisError``."""
        codes = list(codes)
        if not codes:
            return {}
        owners = await self.redis.mget([room_key(self.prefix, code) for code in codes])
        return {code: None if owner is None else str(owner) for code, owner in zip(codes, owners, strict=True)}

    async def renew(self, codes: Iterable[str]) -> set[str]:
        """Renew the leases of rooms ``codes`` (one round trip); returns those that are not ours any more.
        Raises ``RedisError`` when Redis fails."""
        codes = list(codes)
        if not codes:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for code in codes:
                await self._renew(keys=[room_key(self.prefix, code)], args=[self.process, self.milliseconds],
                                  client=pipe)
            results = await pipe.execute()
        return {code for code, renewed in zip(codes, results, strict=True) if not renewed}

    async def announce(self, about: dict[str, Any]) -> None:
        """Say that this process is alive (``about`` it: JSON-ready), for one lease time. Raises ``RedisError``."""
        await self.redis.set(process_key(self.prefix, self.process), json.dumps(about), px=self.milliseconds)

    async def alive(self, processes: Iterable[str]) -> set[str]:
        """Which of ``processes`` are alive (announced within a lease time). Raises ``RedisError``."""
        processes = list(processes)
        if not processes:
            return set()
        found = await self.redis.exists(*(process_key(self.prefix, process) for process in processes))
        if found == len(processes):
            return set(processes)
        async with self.redis.pipeline(transaction=False) as pipe:
            for process in processes:
                pipe.exists(process_key(self.prefix, process))
            answers = await pipe.execute()
        return {process for process, there in zip(processes, answers, strict=True) if there}

    async def forget_process(self) -> None:
        """Say that this process is gone (it is stopping); never raises."""
        try:
            await self.redis.delete(process_key(self.prefix, self.process))
        except RedisError as error:
            log.warning("could not remove this process's key: %s", error)
