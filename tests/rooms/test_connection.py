"""A connection's outbox: frames go out in order, a client that stops reading is dropped, and a
client closed for what it sent still reads why first."""

from __future__ import annotations

import asyncio

import pytest

from app.rooms.connection import Connection
from tests.rooms.test_room import Socket, VersionRenderer

pytestmark = pytest.mark.anyio


def connection(socket: Socket, queue_size: int = 8) -> Connection:
    return Connection(token_hash=None, renderer=VersionRenderer(), socket=socket, queue_size=queue_size)


async def test_ending_sends_what_is_queued_then_closes_with_the_code():
    socket = Socket()
    conn = connection(socket)
    for text in ("one", "two"):
        conn.offer(text)
    conn.error("rate_limited", "too many")
    conn.end(1008)
    conn.finish()  # the serving loop finishes every connection it leaves; the queue still goes out
    assert conn.offer("after") is False
    await asyncio.wait_for(conn.start(), 1)
    assert socket.frames == ["one", "two", "rate_limited"]
    assert (socket.closed_with, conn.dropped, conn.too_slow) == (1008, True, False)


async def test_ending_with_a_full_outbox_drops_the_connection_at_once():
    socket = Socket()
    conn = connection(socket, queue_size=2)
    conn.offer("one")
    conn.offer("two")
    conn.end(1008)
    await asyncio.wait_for(conn.start(), 1)
    assert socket.frames == [] and socket.closed_with == 1008


async def test_a_client_that_stops_reading_is_dropped_and_marked_too_slow():
    socket = Socket(stuck=True)
    conn = connection(socket, queue_size=2)
    sender = conn.start()
    assert conn.offer("one")
    await asyncio.sleep(0.01)  # the sender takes it and is stuck sending it
    assert [conn.offer(text) for text in ("two", "three", "four")] == [True, True, False]
    await asyncio.wait_for(sender, 1)
    assert (conn.dropped, conn.too_slow, socket.closed_with) == (True, True, 1013)


async def test_finishing_without_ending_drops_what_is_queued():
    socket = Socket()
    conn = connection(socket)
    conn.offer("one")
    conn.close_code = 1012
    conn.finish()
    await asyncio.wait_for(conn.start(), 1)
    assert socket.frames == [] and socket.closed_with == 1012


async def test_an_idle_sender_wakes_for_each_frame_and_sends_them_in_order():
    socket = Socket()
    conn = connection(socket, queue_size=2)
    sender = conn.start()
    for round_ in range(3):
        await asyncio.sleep(0.01)  # the sender has sent everything and waits
        assert socket.frames == [f"{n}{i}" for n in range(round_) for i in "ab"]
        assert conn.offer(f"{round_}a") and conn.offer(f"{round_}b")
    await asyncio.sleep(0.01)
    assert socket.frames == ["0a", "0b", "1a", "1b", "2a", "2b"] and not conn.dropped
    conn.finish()
    await asyncio.wait_for(sender, 1)
    assert (socket.closed_with, conn.dropped, conn.too_slow) == (1000, True, False)
