"""A cluster process's connection to Redis (a burst of messages waits for a connection, none is lost; a dropped
connection is tried again), and its stop, which ends whatever its loops do."""

from __future__ import annotations

import asyncio
import logging

import pytest
import redis.asyncio.connection

from app.cluster.node import REDIS_CONNECTIONS, Node, redis_client
from app.config.settings import Settings
from app.rooms.persistence import RoomStore
from app.storage import Storage

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_a_burst_of_messages_beyond_the_connections_waits_for_them_and_none_is_lost(redis_server,
                                                                                      redis_prefix):
    # As when a table's state goes to the relayed sockets of many tables at once, or many sockets open:
    # every message is published, each on a connection of the process's pool.
    client = redis_client(redis_server)
    try:
        counts = await asyncio.gather(*(client.publish(f"{redis_prefix}:to:nobody", f"frame {number}")
                                        for number in range(3 * REDIS_CONNECTIONS)))
        assert counts == [0] * (3 * REDIS_CONNECTIONS)  # all sent (nobody listens)
        assert await client.get(f"{redis_prefix}:nothing") is None  # and the client goes on working
    finally:
        await client.aclose()


BOUND = 30.0
"""Far longer than a stop may take (``stop_seconds`` of these nodes is 2): only a stop that hangs reaches it."""


@pytest.fixture
async def node(tmp_path, redis_server, redis_prefix):
    """A started cluster node (on a SQLite file of its own; a real cluster shares PostgreSQL), stopping in 2 s."""
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.db'}")
    storage.upgrade()
    settings = Settings(database_url="postgresql+psycopg://unused/unused", redis_url=redis_server,
                        redis_prefix=redis_prefix, lease_seconds=1.5, lease_renew_seconds=0.2, stop_seconds=2)
    made = Node(settings, RoomStore(storage))
    await made.start()
    yield made
    storage.close()


async def stops(node: Node) -> bool:
    """Whether ``node.stop()`` returns within :data:`BOUND` (one that does not is cancelled)."""
    stopping = asyncio.ensure_future(node.stop())
    done, _ = await asyncio.wait({stopping}, timeout=BOUND)
    if not done:
        stopping.cancel()
        await asyncio.wait({stopping}, timeout=BOUND)
    return bool(done)


async def test_a_node_stops_even_when_its_upkeep_loop_loses_the_cancellation(node, monkeypatch, caplog):
    # redis-py wraps a socket write in asyncio.wait_for, which on Python 3.11 can swallow a cancellation that
    # comes as the write ends: the loop then goes on renewing as if it had not been cancelled.
    announce, entered, swallowed = node.leases.announce, asyncio.Event(), []

    async def loses_the_cancellation(about):
        if swallowed:
            return await announce(about)
        entered.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            swallowed.append(True)

    monkeypatch.setattr(node.leases, "announce", loses_the_cancellation)
    async with asyncio.timeout(BOUND):
        await entered.wait()
    assert await stops(node)
    assert swallowed == [True]  # the cancellation did reach the loop, and was lost there
    assert "did not end" not in caplog.text  # it ended by itself, told by its flag


async def test_a_node_stops_when_its_upkeep_loop_never_ends_and_says_where_it_hangs(node, monkeypatch, caplog):
    entered, release = asyncio.Event(), asyncio.Event()

    async def hangs(about):
        entered.set()
        while not release.is_set():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue

    monkeypatch.setattr(node.leases, "announce", hangs)
    try:
        async with asyncio.timeout(BOUND):
            await entered.wait()
        with caplog.at_level(logging.WARNING, logger="app.common.waits"):
            assert await stops(node)
        assert "the cluster's upkeep loop did not end within" in caplog.text and "in hangs" in caplog.text
    finally:
        release.set()


async def test_a_redis_call_whose_connection_drops_is_tried_again_on_a_new_connection(redis_server, redis_prefix):
    # A proxy in front of Redis drops the first connection when the test's command comes through it.
    target = redis.asyncio.connection.parse_url(redis_server)
    connections: list[int] = []

    async def pipe(source, sink, *, drop_on: bytes | None = None) -> None:
        try:
            while data := await source.read(65536):
                if drop_on is not None and drop_on in data:
                    break
                sink.write(data)
                await sink.drain()
        except ConnectionError:
            pass
        finally:
            sink.close()

    async def handle(client_reader, client_writer):
        connections.append(len(connections))
        drop_on = f"{redis_prefix}:dropped".encode() if len(connections) == 1 else None
        upstream_reader, upstream_writer = await asyncio.open_connection(target["host"], target["port"])
        await asyncio.gather(pipe(client_reader, upstream_writer, drop_on=drop_on),
                             pipe(upstream_reader, client_writer))

    proxy = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = proxy.sockets[0].getsockname()[1]
    client = redis_client(f"redis://127.0.0.1:{port}/{target.get('db', 0)}")
    try:
        assert await client.get(f"{redis_prefix}:dropped") is None  # answered on a second connection
        assert len(connections) == 2
    finally:
        await client.aclose()
        proxy.close()
