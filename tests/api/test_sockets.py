"""The room sockets' routes."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocketState

from app.api import room_pages, sockets
from app.config.settings import Settings
from app.game.rules import Rules
from app.rooms.json_renderer import JsonRenderer
from app.rooms.persistence import RoomStore
from app.rooms.room import Room
from app.storage.store import Storage
from app.web.metrics import Metrics
from app.web.ratelimit import RateLimiter


@pytest.mark.parametrize(("router", "path"), [(sockets.router, "/api/rooms/{code}/ws"),
                                              (room_pages.router, "/r/{code}/ws")])
def test_the_room_sockets_are_plain_starlette_routes(router, path):
    # FastAPI's own websocket routes hold exit stacks and dependency results while a socket is open:
    # about 5 KB of each socket's memory, thousands of times over.
    routes = [route for route in router.routes if getattr(route, "path", None) == path]
    assert len(routes) == 1
    assert type(routes[0]) is WebSocketRoute


class SilentSocket:
    """A WebSocket whose client never says a word, on an app with the state the route reads."""

    def __init__(self) -> None:
        self.app = SimpleNamespace(state=SimpleNamespace(metrics=Metrics(), limiter=RateLimiter({})))
        self.application_state = WebSocketState.CONNECTED
        self.frames: list[str] = []

    async def receive(self) -> dict:
        await asyncio.Event().wait()
        return {}

    async def send_text(self, text: str) -> None:
        self.frames.append(text)

    async def close(self, code: int = 1000) -> None:
        self.application_state = WebSocketState.DISCONNECTED


@pytest.mark.anyio
async def test_a_socket_is_served_in_a_task_of_its_own_that_ends_with_its_handler(tmp_path):
    # Each frame received resumes the task that reads it: not the route's, under a dozen layers of
    # middleware. Cancelling the route's task (the server stopping) still ends the socket's.
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.db'}")
    storage.upgrade()
    room = Room(code="ROOM1", rules=Rules(), store=RoomStore(storage))
    websocket = SilentSocket()
    async def route() -> None:
        await sockets.serve(websocket, room, Settings(), None, JsonRenderer(link_url=str))

    handler = asyncio.create_task(route())
    while not websocket.frames:
        await asyncio.sleep(0.01)
    served = [task for task in asyncio.all_tasks() if task.get_coro().__name__ == "_serve"]
    assert len(served) == 1 and served[0] is not handler and len(room.connections) == 1
    handler.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handler
    assert served[0].cancelled() and not room.connections
    storage.close()
