"""What operators watch: rooms, sockets, plays, refusals, limits, slow clients and storage times.

One :class:`Metrics` per app, on a registry of its own (never the process-wide default, so
two apps in one process count apart); ``/metrics`` serves it in the Prometheus text format.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

STORAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Upper bounds, in seconds, of the storage latency histogram's buckets."""


class Metrics:
    """The server's counters, gauges and histogram, on their own :class:`CollectorRegistry`.

    The room store reports each storage call (:meth:`storage_call`, the
    :class:`~app.rooms.persistence.StorageObserver` interface); the sockets
    and the per-address limiter report the rest through the other methods.
    """

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.rooms = Gauge("cucumber_rooms", "Rooms held in memory.", registry=registry)
        self.sockets = Gauge("cucumber_sockets_open", "WebSockets open, by kind of client (json, page).",
                             ["kind"], registry=registry)
        self.plays = Counter("cucumber_plays_stored", "Plays written to the database.", registry=registry)
        self.refused = Counter("cucumber_refused_messages", "Socket messages and handshakes refused, by error code.",
                               ["code"], registry=registry)
        self.limited = Counter("cucumber_rate_limited", "Uses over a limit, by limit: per address (rooms_created, "
                               "joins, sockets, posts) or per connection (socket_plays, socket_host and so on).",
                               ["limit"], registry=registry)
        self.limits_shared = Gauge("cucumber_rate_limits_shared", "1 while the per-address limits are counted in "
                                   "Redis, shared by the cluster's processes; 0 while this process counts them on its "
                                   "own (it runs alone, or Redis cannot be reached).", registry=registry)
        self.slow = Counter("cucumber_slow_clients_dropped", "Connections dropped because they stopped reading, "
                            "by kind of client.", ["kind"], registry=registry)
        self.storage = Histogram("cucumber_storage_seconds", "Time of each storage call of the rooms, by call.",
                                 ["call"], buckets=STORAGE_BUCKETS, registry=registry)
        self.storage_failures = Counter("cucumber_storage_failures", "Storage calls of the rooms that failed, by call.",
                                        ["call"], registry=registry)
        self.pushes = Counter("cucumber_pushes", "Push attempts by outcome: accepted (201), gone (404 or 410, the "
                              "subscription deleted), retry (429, 5xx or no answer; tried again while the turn "
                              "waits), refused (a redirect or another answer; given up), unsent (the endpoint no "
                              "longer passes its checks).", ["outcome"], registry=registry)
        self.webhooks = Counter("cucumber_webhook_posts", "Posts to tables' chat webhooks by outcome: accepted, "
                                "failed (no answer, a redirect or another answer), unsent (the URL no longer "
                                "passes its checks).", ["outcome"], registry=registry)
        # The histogram of each call, looked up once: labels() checks and locks on every call, and a busy
        # server makes one storage call a play.
        self._storage_by_call: dict[str, Histogram] = {}

    def count_rooms(self, count: Callable[[], int]) -> None:
        """Read the number of rooms from ``count()`` whenever the metrics are read."""
        self.rooms.set_function(count)

    def storage_call(self, call: str, seconds: float, *, failed: bool) -> None:
        """Storage method ``call`` took ``seconds``; a ``record_play`` that did not fail is a play stored."""
        timer = self._storage_by_call.get(call)
        if timer is None:
            timer = self._storage_by_call[call] = self.storage.labels(call)
        timer.observe(seconds)
        if failed:
            self.storage_failures.labels(call).inc()
        elif call == "record_play":
            self.plays.inc()

    def socket_opened(self, kind: str) -> None:
        """A socket of ``kind`` (``json``, ``page``) was attached to a room."""
        self.sockets.labels(kind).inc()

    def socket_closed(self, kind: str, *, too_slow: bool) -> None:
        """A socket of ``kind`` left its room; ``too_slow``: it was dropped for not reading."""
        self.sockets.labels(kind).dec()
        if too_slow:
            self.slow.labels(kind).inc()

    def message_refused(self, code: str) -> None:
        """A socket message or handshake was refused with error ``code``."""
        self.refused.labels(code).inc()

    def limit_hit(self, limit: str) -> None:
        """A use went over ``limit`` (a per-address limit's name, or ``socket_<kind>``)."""
        self.limited.labels(limit).inc()

    def limits_sharing(self, shared: bool) -> None:
        """The per-address limits are counted in Redis (``shared``), or in this process's memory."""
        self.limits_shared.set(1 if shared else 0)

    def push_answered(self, outcome: str) -> None:
        """One push attempt ended with ``outcome`` (``accepted``, ``gone``, ``retry``, ``refused``, ``unsent``)."""
        self.pushes.labels(outcome).inc()

    def webhook_posted(self, outcome: str) -> None:
        """One post to a chat webhook ended with ``outcome`` (``accepted``, ``failed``, ``unsent``)."""
        self.webhooks.labels(outcome).inc()

    def exposition(self) -> tuple[bytes, str]:
        """Every metric in the Prometheus text format, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def address_allowed(address: str | None, allowed: str) -> bool:
    """Whether the client at ``address`` is in ``allowed``: comma-separated addresses and
    networks, ``*`` for anyone, empty for no one (``settings.metrics_allow``). An IPv4
    address written as IPv6 (``::ffff:127.0.0.1``) counts as itself; ``None`` or a name
    that is not an address is never allowed unless ``*``."""
    entries = [entry.strip() for entry in allowed.split(",") if entry.strip()]
    if entries == ["*"]:
        return True
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(entry, strict=False) for entry in entries)
