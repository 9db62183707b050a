"""Shared objects for routes, built in the app's lifespan and handed out by ``Depends``."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends
from starlette.requests import HTTPConnection

from app.rooms.registry import RoomRegistry
from app.settings import Settings
from app.storage import Storage


def get_settings(conn: HTTPConnection) -> Settings:
    """The settings the app was built with."""
    return conn.app.state.settings


def get_registry(conn: HTTPConnection) -> RoomRegistry:
    """The process's room registry."""
    return conn.app.state.registry


def get_storage(conn: HTTPConnection) -> Storage:
    """The storage of matches and rooms."""
    return conn.app.state.storage


SettingsDep = Annotated[Settings, Depends(get_settings)]
RegistryDep = Annotated[RoomRegistry, Depends(get_registry)]
StorageDep = Annotated[Storage, Depends(get_storage)]


def cookie_name(code: str) -> str:
    """The name of the cookie holding a player's token for room ``code``."""
    return f"cucumber_{code.upper()}"


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """Whether a WebSocket handshake may proceed, judged by its ``Origin`` header.

    Allowed: no Origin (not a browser), the server's own origin (same host
    and port as the request), the configured public URL, or an origin in
    ``allowed_origins``. Everything else is another site and is refused.
    """
    origin = conn.headers.get("origin")
    if origin is None:
        return True
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


def public_base(conn: HTTPConnection, settings: Settings) -> str:
    """The base URL for links people share: the public URL, or the one of this request."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    return str(conn.base_url).rstrip("/")
