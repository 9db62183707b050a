"""Waking a slow room asleep in the database when someone asks for it (a process alone on its database)."""

from __future__ import annotations

import contextlib

from starlette.types import ASGIApp, Receive, Scope, Send

from app.cluster.relay import room_code_in
from app.rooms.persistence import StorageUnavailable


class WakeRooms:
    """ASGI middleware: a request or socket whose path names a room this process put to sleep
    (:meth:`~app.rooms.registry.RoomRegistry.sleep`) wakes it before the route runs, so that the route finds
    it as if it had never slept. With storage failing, the route answers as for a room not held."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            code = room_code_in(scope.get("path", ""))
            registry = getattr(getattr(scope.get("app"), "state", None), "registry", None)
            if code is not None and registry is not None and code in registry.asleep:
                with contextlib.suppress(StorageUnavailable):
                    await registry.wake(code)
        await self.app(scope, receive, send)
