"""Per-client-address limits on what costs the server: tables opened, seats taken, sockets, posts;
and one per chat sender (their player or spectator id, not their address).

Counts live in a storage of the ``limits`` library: this process's memory here; the
same library keeps them in Redis when several processes must share them.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable, Mapping, Sequence

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from app.rooms.errors import ErrorCode
from app.security import Refused
from app.settings import Settings
from app.wording.errors import limit_problem

LIMITED = {
    "rooms_created": "tables opened",
    "joins": "seats taken",
    "sockets": "connections opened",
    "posts": "requests sent",
    "chat": "chat lines written (counted per sender, not per address)",
}
"""Every limit by name (``CUCUMBER_LIMIT_<NAME>``), with what it counts (for people reading the code;
the refusal of each, in every language, is in :data:`app.wording.errors.LIMITS`)."""


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


class RateLimiter:
    """Counts uses of each named limit per client and says when one is over its allowance.

    ``allowances`` maps a name of :data:`LIMITED` to its allowances (all must hold; a
    name without any is not limited). Counting uses a moving window: a use is
    allowed while fewer than N uses fell in the last period. ``on_limited``, if
    given, is called with the limit's name for every use refused.
    """

    def __init__(self, allowances: Mapping[str, Sequence[RateLimitItem]], storage: Storage | None = None,
                 on_limited: Callable[[str], None] | None = None) -> None:
        self.allowances = {name: list(items) for name, items in allowances.items()}
        self.storage = storage or MemoryStorage()
        self.on_limited = on_limited
        self._strategy = MovingWindowRateLimiter(self.storage)

    @classmethod
    def from_settings(cls, settings: Settings, on_limited: Callable[[str], None] | None = None) -> RateLimiter:
        """The limits the settings ask for: ``limit_<name>`` each, none when ``rate_limits`` is off."""
        if not settings.rate_limits:
            return cls({}, on_limited=on_limited)
        return cls({name: parse_limits(getattr(settings, f"limit_{name}")) for name in LIMITED},
                   on_limited=on_limited)

    async def retry_after(self, name: str, address: str | None) -> int | None:
        """Count one use of limit ``name`` by the client at ``address``.

        Returns ``None`` when the use is within every allowance, else the whole
        seconds (at least 1) until it would be; a refused use is not counted
        against the allowances after the one that refused it.
        """
        key = client_key(address)  # a chat sender's key is not an address, and counts as itself
        for item in self.allowances.get(name, ()):
            if not await self._strategy.hit(item, name, key):
                if self.on_limited is not None:
                    self.on_limited(name)
                stats = await self._strategy.get_window_stats(item, name, key)
                return max(1, math.ceil(stats.reset_time - time.time()))
        return None

    async def check(self, name: str, address: str | None) -> None:
        """Count one use as :meth:`retry_after` does; raises :class:`Refused` (429, with the
        seconds to wait) when it is over an allowance."""
        wait = await self.retry_after(name, address)
        if wait is not None:
            raise rate_limited(name, wait)


def rate_limited(name: str, wait: int) -> Refused:
    """The refusal of one use too many of limit ``name``: 429, ``rate_limited``, ``wait`` seconds."""
    return Refused(ErrorCode.RATE_LIMITED, limit_problem(name, wait), status=429, retry_after=wait)
