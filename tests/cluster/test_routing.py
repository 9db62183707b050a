"""Where a process sends a room's traffic while the room moves: never ``no_such_room`` for a stored room."""

from __future__ import annotations

import pytest

from app.cluster.node import Node
from app.cluster.relay import Relay
from app.config.settings import Settings
from app.game.rules import Rules
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.persistence import RoomStore
from app.storage import Storage

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@pytest.fixture
async def nodes(tmp_path, redis_server, redis_prefix):
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.db'}")
    storage.upgrade()
    # The processes share the SQLite file of this test (a real cluster shares PostgreSQL).
    settings = Settings(database_url="postgresql+psycopg://unused/unused", redis_url=redis_server,
                        redis_prefix=redis_prefix,
                        deal_pause_seconds=0, bot_delay_seconds=0)
    made = [Node(settings, RoomStore(storage)) for _ in range(2)]
    yield made
    for node in made:
        for room in node.registry.rooms.values():
            room.close()
        await node.redis.aclose()
    storage.close()


async def test_a_draining_process_never_calls_a_handed_over_room_missing(nodes):
    owner, draining = nodes
    room, _, _ = await owner.registry.create("Ana", Rules())
    await owner.registry.shutdown()  # handed over: stored, and nobody holds it until a client comes back
    draining.draining, draining.registry.accepting = True, False

    with pytest.raises(RoomError) as moving:
        await draining.route(room.code)
    assert moving.value.code == ErrorCode.ROOM_MOVING and moving.value.status == 503
    # Its lease still naming the draining process itself (being handed over) is no answer either.
    assert await draining.leases.acquire(room.code)
    with pytest.raises(RoomError):
        await draining.route(room.code)
    await draining.leases.release(room.code)

    # A process that takes rooms takes it; one that asks later is sent there; a code never stored is served
    # here (as no_such_room) by a process that takes rooms.
    taker = owner
    taker.registry.accepting = True
    assert await taker.route(room.code) is None and taker.registry.get(room.code) is not None
    assert await draining.route(room.code) == taker.process
    assert await taker.route("ZZZZZ") is None and taker.registry.get("ZZZZZ") is None


class Moving:
    """A process's answers while a room moves: nobody can serve it ``moving`` times, then this process can."""

    process = "here"
    draining = False

    def __init__(self, moving: int) -> None:
        self.moving, self.asked = moving, 0

    async def route(self, code):
        self.asked += 1
        if self.asked > self.moving:
            return None
        raise RoomError(ErrorCode.ROOM_MOVING, "moving", status=503)

    async def holds(self, code):
        return True


async def relayed_socket(owners: Moving, timeout: float) -> list[dict]:
    """What a client of a room's socket is sent through a :class:`Relay` that asks ``owners``."""
    sent: list[dict] = []

    async def app(scope, receive, send):
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": "state"})
        await send({"type": "websocket.close", "code": 1000})

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)

    relay = Relay(None, prefix="test", owners=owners, timeout=timeout, queue_size=8)
    await relay.serve(app, {"type": "websocket", "path": "/api/rooms/AB2CD/ws", "headers": []}, receive, send)
    return sent


async def test_a_socket_whose_room_nobody_can_serve_yet_is_told_to_try_again_later():
    sent = await relayed_socket(Moving(moving=10_000), timeout=0.2)
    assert [message["type"] for message in sent] == ["websocket.accept", "websocket.close"]
    assert sent[1]["code"] == 1013
