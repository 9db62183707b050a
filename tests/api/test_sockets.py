"""The room sockets' routes."""

from __future__ import annotations

import pytest
from starlette.routing import WebSocketRoute

from app.api import room_pages, sockets


@pytest.mark.parametrize(("router", "path"), [(sockets.router, "/api/rooms/{code}/ws"),
                                              (room_pages.router, "/r/{code}/ws")])
def test_the_room_sockets_are_plain_starlette_routes(router, path):
    # FastAPI's own websocket routes hold exit stacks and dependency results while a socket is open:
    # about 5 KB of each socket's memory, thousands of times over.
    routes = [route for route in router.routes if getattr(route, "path", None) == path]
    assert len(routes) == 1
    assert type(routes[0]) is WebSocketRoute
