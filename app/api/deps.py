"""Shared objects for routes, built in the app's lifespan and handed out by ``Depends``."""

from __future__ import annotations

from typing import Annotated, Any, cast
from urllib.parse import urlsplit

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.cluster.node import Node
from app.config.settings import Settings
from app.notify import Notifier
from app.rooms.registry import RoomRegistry
from app.storage import Storage
from app.web.metrics import Metrics
from app.web.ratelimit import RateLimiter
from app.web.security import cross_site

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def get_settings(conn: HTTPConnection) -> Settings:
    """The settings the app was built with."""
    return cast(Settings, conn.app.state.settings)


def get_registry(conn: HTTPConnection) -> RoomRegistry:
    """The process's room registry."""
    return cast(RoomRegistry, conn.app.state.registry)


def get_storage(conn: HTTPConnection) -> Storage:
    """The storage of matches and rooms."""
    return cast(Storage, conn.app.state.storage)


def get_node(conn: HTTPConnection) -> Node:
    """This process's place among the servers (its mode, leases and relay)."""
    return cast(Node, conn.app.state.node)


def get_limiter(conn: HTTPConnection) -> RateLimiter:
    """The per-client-address limits of the process."""
    return cast(RateLimiter, conn.app.state.limiter)


def get_metrics(conn: HTTPConnection) -> Metrics:
    """The app's metrics."""
    metrics: Metrics = conn.app.state.metrics
    return metrics


def get_notifier(conn: HTTPConnection) -> Notifier | None:
    """The outbound side (Web Push, chat webhooks); ``None`` before the lifespan made it."""
    return cast(Notifier | None, getattr(conn.app.state, "notifier", None))


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[RoomRegistry, Depends(get_registry)]
StorageDep = Annotated[Storage, Depends(get_storage)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
NodeDep = Annotated[Node, Depends(get_node)]
NotifierDep = Annotated[Notifier | None, Depends(get_notifier)]


def client_address(conn: HTTPConnection) -> str | None:
    """The client's address: the connecting peer's, or what a trusted proxy forwarded."""
    return conn.client.host if conn.client else None


def limited(name: str) -> Any:
    """A route dependency that counts one use of limit ``name`` (a key of
    :data:`app.web.ratelimit.LIMITED`) by the client, raising :class:`~app.web.security.Refused`
    (429) when it is one too many."""

    async def count(conn: HTTPConnection, limiter: LimiterDep) -> None:
        await limiter.check(name, client_address(conn))

    return Depends(count)


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """Whether a request that may change something (a form post, a WebSocket handshake) comes from this site.

    Judged by the ``Origin`` header; a browser that sends none is judged by
    its ``Referer`` instead. Allowed: the server's own origin (same host and
    port as the request), the configured public URL, an origin in
    ``allowed_origins``, or neither header (a program, not a browser).
    Everything else is another site and is refused.
    """
    origin = conn.headers.get("origin")
    if origin is None:
        referer = conn.headers.get("referer")
        if referer is None:
            return True
        parts = urlsplit(referer)
        origin = f"{parts.scheme}://{parts.netloc}"
    return _own_origin(origin, conn, settings)


def _own_origin(origin: str, conn: HTTPConnection, settings: Settings) -> bool:
    """Whether ``origin`` (``scheme://host[:port]``) is this site's: the request's own host,
    the public URL's origin, or one of ``allowed_origins``. ``null`` and junk are not."""
    parts = urlsplit(origin)
    if not parts.scheme or not parts.netloc:
        return False
    own = conn.headers.get("host", "")
    if parts.netloc.lower() == own.lower():
        return True
    allowed = {o.rstrip("/").lower() for o in settings.allowed_origins}
    if settings.public_url:
        public = urlsplit(settings.public_url)
        allowed.add(f"{public.scheme}://{public.netloc}".lower())
    return origin.rstrip("/").lower() in allowed


async def guard_posts(conn: HTTPConnection, settings: SettingsDep, limiter: LimiterDep) -> None:
    """Every route's guard for requests that may change something (any method but GET,
    HEAD and OPTIONS): one from another site raises :class:`~app.web.security.Refused` (403),
    and one over the ``posts`` limit too (429), before the route runs. WebSockets are
    judged in their handshake instead."""
    if conn.scope["type"] != "http" or conn.scope["method"] in SAFE_METHODS:
        return
    if not origin_allowed(conn, settings):
        raise cross_site()
    await limiter.check("posts", client_address(conn))


def public_base(conn: HTTPConnection, settings: Settings) -> str:
    """The base URL for links people share: the public URL, or the one of this request
    (for a WebSocket, that of the page it belongs to: ``ws`` is ``http``, ``wss`` is ``https``)."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    base = conn.base_url
    if base.scheme in ("ws", "wss"):
        base = base.replace(scheme="https" if base.scheme == "wss" else "http")
    return str(base).rstrip("/")
