"""A connection's outbox: frames go out in order, a client that stops reading is dropped, and a
client closed for what it sent still reads why first."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


class GatedSocket(Socket):
    """A socket whose sends wait while ``gate`` is closed (a client reading slowly), then record the frame;
    or fail at once when ``broken``."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.gate.set()
        self.broken = False

    async def send(self, text: str) -> None:
        if self.broken:
            raise ConnectionResetError("gone")
        await self.gate.wait()
        self.frames.append(text)


async def idle(conn: Connection) -> asyncio.Task[None]:
    """Start ``conn``'s sender and let it send what it has and wait for more."""
    sender = conn.start()
    await asyncio.sleep(0.01)
    return sender


async def test_a_frame_for_an_idle_connection_is_written_before_offer_returns():
    socket = GatedSocket()
    conn = connection(socket)
    sender = await idle(conn)
    for text in ("one", "two"):
        assert conn.offer(text)
        assert socket.frames[-1] == text  # no turn of the event loop in between
    conn.finish()
    await asyncio.wait_for(sender, 1)
    assert socket.frames == ["one", "two"] and socket.closed_with == 1000


async def test_a_frame_that_must_wait_is_finished_by_the_sender_before_the_frames_after_it():
    socket = GatedSocket()
    conn = connection(socket, queue_size=2)
    sender = await idle(conn)
    socket.gate.clear()
    assert conn.offer("one") and conn.offer("two") and conn.offer("three")
    assert socket.frames == []
    await asyncio.sleep(0.01)
    assert socket.frames == [] and not conn.dropped  # still waiting for the client
    socket.gate.set()
    await asyncio.sleep(0.01)
    assert socket.frames == ["one", "two", "three"]
    assert conn.offer("four") and socket.frames[-1] == "four"  # idle again: at once
    conn.finish()
    await asyncio.wait_for(sender, 1)
    assert (socket.closed_with, conn.too_slow) == (1000, False)


async def test_a_client_stuck_on_a_frame_begun_at_once_is_dropped_when_its_outbox_fills():
    socket = GatedSocket()
    conn = connection(socket, queue_size=2)
    sender = await idle(conn)
    socket.gate.clear()
    assert [conn.offer(text) for text in ("one", "two", "three", "four")] == [True, True, True, False]
    await asyncio.wait_for(sender, 1)  # the stuck send is cancelled
    assert (conn.dropped, conn.too_slow, socket.closed_with, socket.frames) == (True, True, 1013, [])


async def test_a_socket_that_fails_on_a_frame_begun_at_once_drops_the_connection():
    socket = GatedSocket()
    conn = connection(socket)
    sender = await idle(conn)
    socket.broken = True
    conn.offer("one")
    assert conn.dropped
    assert conn.offer("two") is False
    await asyncio.wait_for(sender, 1)
    assert socket.closed_with == 1000 and socket.frames == []


async def test_finishing_drops_a_frame_begun_at_once_that_still_waits():
    socket = GatedSocket()
    conn = connection(socket)
    sender = await idle(conn)
    socket.gate.clear()
    conn.offer("one")
    conn.close_code = 1012
    conn.finish()  # before the sender took the frame over
    await asyncio.wait_for(sender, 1)
    socket.gate.set()
    await asyncio.sleep(0.01)
    assert socket.frames == [] and socket.closed_with == 1012


STEPS = st.lists(st.one_of(
    st.tuples(st.just("offer"), st.integers(1, 3)),
    st.tuples(st.just("gate"), st.booleans()),
    st.tuples(st.just("break"), st.none()),
    st.tuples(st.just("end"), st.sampled_from([1008, 1009])),
    st.tuples(st.just("finish"), st.none()),
), max_size=12)


async def outcome(steps: list[tuple[str, object]], *, send_at_once: bool) -> tuple[object, ...]:
    """What a client reads, how its socket closes and whether it was too slow, for a connection (outbox of 4
    frames) given ``steps`` with the event loop turning between them; then finished."""
    socket = GatedSocket()
    conn = Connection(token_hash=None, renderer=VersionRenderer(), socket=socket, queue_size=4,
                      send_at_once=send_at_once)
    sender = await idle(conn)
    numbered = itertools.count()
    for step, value in steps:
        if step == "offer":
            for _ in range(int(value)):
                conn.offer(f"f{next(numbered)}")
        elif step == "gate":
            (socket.gate.set if value else socket.gate.clear)()
        elif step == "break":
            socket.broken = True
        elif step == "end":
            conn.end(int(value))
        else:
            conn.finish()
        await asyncio.sleep(0.001)
    socket.gate.set()
    await asyncio.sleep(0.001)
    conn.finish()
    await asyncio.wait_for(sender, 1)
    return socket.frames, socket.closed_with, conn.too_slow, conn.life


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_sending_at_once_sends_what_the_sender_alone_sends(steps):
    """The fast path (app/rooms/send_now.py) against the readable version, every frame through the sender
    task: the same frames in the same order, the same close, for any steps that offer fewer frames at a time
    than the outbox holds."""
    assert asyncio.run(outcome(steps, send_at_once=True)) == asyncio.run(outcome(steps, send_at_once=False))


def test_a_stuck_client_offered_more_than_its_outbox_is_too_slow_and_reads_less_than_one_offered_less():
    """What the comparison above rests on: the outcome tells a dropped connection from one that got its
    frames."""
    steps = [("offer", 2), ("gate", False), ("offer", 3), ("offer", 3)]
    at_once = asyncio.run(outcome(steps, send_at_once=True))
    assert at_once[2] is True  # too slow: its outbox filled
    assert at_once != asyncio.run(outcome(steps[:-1], send_at_once=False))
