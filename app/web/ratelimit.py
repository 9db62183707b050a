"""Per-client-address limits on what costs the server: tables opened, seats taken, sockets, posts;
and one per chat sender (their player or spectator id, not their address).

Counts live in a storage of the ``limits`` library: alone, in this process's memory; in a cluster, in
Redis, so that the processes share them and an address gets each allowance once, not once per process.
While Redis cannot be reached, each process counts in its own memory again, and says so.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.config.settings import Settings
from app.rooms.errors import ErrorCode
from app.web.security import Refused
from app.wording.errors import limit_problem

log = logging.getLogger(__name__)

LIMITED = {
    "rooms_created": "tables opened",
    "joins": "seats taken",
    "sockets": "connections opened",
    "posts": "requests sent",
    "chat": "chat lines written (counted per sender, not per address)",
}
"""Every limit by name (``CUCUMBER_LIMIT_<NAME>``), with what it counts (for people reading the code;
the refusal of each, in every language, is in :data:`app.wording.errors.LIMITS`)."""
SHARED_TIMEOUT_SECONDS = 0.5
"""How long one count in Redis may take (connecting included) before it counts as failed: a request waits
at most this long for it, then is counted here."""
SHARED_RETRY_SECONDS = 5.0
"""Once a count in Redis failed, how long the counts stay in this process's memory before Redis is tried again
(so that an unreachable Redis costs one request's wait now and then, not every request's)."""
SHARED_FAILURES = (StorageError, RedisError, OSError)
"""What a count in Redis raises when Redis cannot be reached or fails."""


def parse_limits(text: str) -> list[RateLimitItem]:
    """Allowances in the ``limits`` notation, ``;`` or ``,`` between them: ``"20/minute;200/day"``.

    An empty (or blank) text is no limit at all: ``[]``. Raises ``ValueError``
    for text the notation does not read.
    """
    return parse_many(text) if text.strip() else []


def client_key(address: str | None) -> str:
    """Whom a request is counted against: its client address (after a trusted proxy's
    ``X-Forwarded-For``). An IPv6 address counts as its /64 network, which one household
    holds whole; anything that is not an address counts as itself; ``None`` as ``"unknown"``."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def shared_storage(url: str, prefix: str) -> tuple[RedisStorage, Redis]:
    """A ``limits`` storage in the Redis at ``url`` (``redis://host:6379/0``), its keys under
    ``<prefix>:limits``, and the client it uses (to be closed with :meth:`RateLimiter.close`). Its calls
    fail (:data:`SHARED_FAILURES`) after :data:`SHARED_TIMEOUT_SECONDS`. Nothing is connected yet."""
    client = Redis.from_url(url, socket_timeout=SHARED_TIMEOUT_SECONDS, socket_connect_timeout=SHARED_TIMEOUT_SECONDS)
    # The client is made here, from the setting's URL (unix sockets included); the storage's own URI only names
    # the kind of storage, and its client is built on this one's connections.
    on_client: dict[str, Any] = {"connection_pool": client.connection_pool}
    storage = RedisStorage("async+redis://", implementation="redispy", key_prefix=f"{prefix}:limits",
                           wrap_exceptions=True, **on_client)
    return storage, client


class RateLimiter:
    """Counts uses of each named limit per client and says when one is over its allowance.

    ``allowances`` maps a name of :data:`LIMITED` to its allowances (all must hold; a
    name without any is not limited). Counting uses a moving window: a use is
    allowed while fewer than N uses fell in the last period. ``on_limited``, if
    given, is called with the limit's name for every use refused.

    ``storage`` holds this process's own counts (memory by default). ``shared``, if given (Redis, in a
    cluster), holds the counts instead while it answers; when a count there fails, the counts go to
    ``storage`` for ``retry_seconds`` before ``shared`` is tried again, and ``on_shared`` is
    called with whether the counts are shared now each time that changes (and a warning is logged). A
    use is never refused because ``shared`` failed. ``client``, if given, is closed by :meth:`close`.
    """

    def __init__(self, allowances: Mapping[str, Sequence[RateLimitItem]], storage: Storage | None = None,
                 on_limited: Callable[[str], None] | None = None, *, shared: Storage | None = None,
                 on_shared: Callable[[bool], None] | None = None, client: Redis | None = None,
                 retry_seconds: float = SHARED_RETRY_SECONDS) -> None:
        self.allowances = {name: list(items) for name, items in allowances.items()}
        self.storage = storage or MemoryStorage()
        self.shared = shared
        self.on_limited = on_limited
        self.on_shared = on_shared
        self._client = client
        self.retry_seconds = retry_seconds
        self._strategy = MovingWindowRateLimiter(self.storage)
        self._shared_strategy = None if shared is None else MovingWindowRateLimiter(shared)
        self.sharing = shared is not None
        """Whether the counts are in ``shared`` now (``False`` alone, or while ``shared`` fails)."""
        self._try_shared_at = 0.0
        """When (``time.monotonic()``) ``shared`` may be tried again after a failure."""

    @classmethod
    def from_settings(cls, settings: Settings, on_limited: Callable[[str], None] | None = None,
                      on_shared: Callable[[bool], None] | None = None) -> RateLimiter:
        """The limits the settings ask for: ``limit_<name>`` each, none when ``rate_limits`` is off; counted in
        Redis (``redis_url``, keys under ``redis_prefix``) in a cluster, in memory alone."""
        if not settings.rate_limits:
            return cls({}, on_limited=on_limited)
        allowances = {name: parse_limits(getattr(settings, f"limit_{name}")) for name in LIMITED}
        if not settings.redis_url:
            return cls(allowances, on_limited=on_limited)
        shared, client = shared_storage(settings.redis_url, settings.redis_prefix)
        return cls(allowances, on_limited=on_limited, shared=shared, on_shared=on_shared, client=client)

    async def close(self) -> None:
        """Close the connections to Redis, if any; never raises."""
        if self._client is not None:
            with contextlib.suppress(*SHARED_FAILURES):
                await self._client.aclose()

    async def retry_after(self, name: str, address: str | None) -> int | None:
        """Count one use of limit ``name`` by the client at ``address``.

        Returns ``None`` when the use is within every allowance, else the whole
        seconds (at least 1) until it would be; a refused use is not counted
        against the allowances after the one that refused it. Counted in ``shared`` while it
        answers, else in this process's ``storage``.
        """
        key = client_key(address)  # a chat sender's key is not an address, and counts as itself
        items = self.allowances.get(name, ())
        if not items:
            return None
        if self._shared_strategy is not None and time.monotonic() >= self._try_shared_at:
            try:
                wait = await self._count(self._shared_strategy, items, name, key)
            except SHARED_FAILURES as error:
                self._shared_failed(error)
            else:
                self._shared_answered()
                return wait
        return await self._count(self._strategy, items, name, key)

    async def _count(self, strategy: MovingWindowRateLimiter, items: Sequence[RateLimitItem], name: str,
                     key: str) -> int | None:
        for item in items:
            if not await strategy.hit(item, name, key):
                if self.on_limited is not None:
                    self.on_limited(name)
                stats = await strategy.get_window_stats(item, name, key)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None

    def _shared_failed(self, error: Exception) -> None:
        self._try_shared_at = time.monotonic() + self.retry_seconds
        if self.sharing:
            self.sharing = False
            log.warning("rate limits: Redis cannot be reached (%s); each process counts on its own until it can",
                        error or type(error).__name__)
            if self.on_shared is not None:
                self.on_shared(False)

    def _shared_answered(self) -> None:
        if not self.sharing:
            self.sharing = True
            log.info("rate limits: Redis answers again; the counts are shared by the cluster's processes")
            if self.on_shared is not None:
                self.on_shared(True)

    async def check(self, name: str, address: str | None) -> None:
        """Count one use as :meth:`retry_after` does; raises :class:`Refused` (429, with the
        seconds to wait) when it is over an allowance."""
        wait = await self.retry_after(name, address)
        if wait is not None:
            raise rate_limited(name, wait)


def rate_limited(name: str, wait: int) -> Refused:
    """The refusal of one use too many of limit ``name``: 429, ``rate_limited``, ``wait`` seconds."""
    return Refused(ErrorCode.RATE_LIMITED, limit_problem(name, wait), status=429, retry_after=wait)
