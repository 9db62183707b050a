"""What the relay sends between processes (the room a path names, scopes that survive the trip), and its stop."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.cluster.relay import FORWARDED, Relay, pack_scope, room_code_in, unpack_scope


@pytest.mark.parametrize(("path", "code"), [
    ("/r/ab2cd", "AB2CD"),
    ("/r/AB2CD/ws", "AB2CD"),
    ("/r/AB2CD/join", "AB2CD"),
    ("/api/rooms/AB2CD", "AB2CD"),
    ("/api/rooms/AB2CD/ws", "AB2CD"),
    ("/api/rooms", None),  # opening a room: any process
    ("/api/matches/AB2CD", None),
    ("/r/", None),
    ("/r/AB%20CD", None),
    ("/healthz", None),
])
def test_the_paths_that_name_a_room(path, code):
    assert room_code_in(path) == code


def test_a_scope_survives_the_trip_without_the_proxy_headers():
    scope = {
        "type": "websocket", "http_version": "1.1", "scheme": "ws", "path": "/r/AB2CD/ws", "raw_path": b"/r/AB2CD/ws",
        "root_path": "", "query_string": b"x=\xe9", "subprotocols": [],
        "headers": [(b"host", b"cards.example.org"), (b"cookie", b"cucumber_AB2CD=t"),
                    (b"x-forwarded-for", b"203.0.113.9"), (b"X-Forwarded-Proto", b"https")],
        "client": ("203.0.113.9", 5000), "server": ("10.0.0.1", 8000),
    }
    again = unpack_scope(json.loads(json.dumps(pack_scope(scope))))
    assert again[FORWARDED] is True
    assert again["headers"] == [(b"host", b"cards.example.org"), (b"cookie", b"cucumber_AB2CD=t")]
    assert again["client"] == ("203.0.113.9", 5000) and again["query_string"] == b"x=\xe9"
    assert {key: again[key] for key in ("type", "scheme", "path", "raw_path", "subprotocols")} == {
        key: scope[key] for key in ("type", "scheme", "path", "raw_path", "subprotocols")}


class LosesTheCancellation:
    """An inbox whose read swallows the first cancellation that reaches it (as ``asyncio.wait_for`` of Python
    3.11, which redis-py wraps around socket writes, can)."""

    def __init__(self) -> None:
        self.reading = asyncio.Event()
        self.swallowed = False

    async def subscribe(self, channel: str) -> None:
        pass

    async def get_message(self, timeout: float) -> dict | None:
        self.reading.set()
        try:
            await asyncio.sleep(timeout)
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed = True
        return None


class Inbox:
    """A Redis that gives the relay one inbox, ``pubsub``."""

    def __init__(self, pubsub: LosesTheCancellation) -> None:
        self._pubsub = pubsub

    def pubsub(self, **_options) -> LosesTheCancellation:
        return self._pubsub


class Here:
    process = "here"
    draining = False


@pytest.mark.anyio
async def test_the_inbox_reader_ends_at_a_stop_even_when_its_cancellation_is_lost():
    pubsub = LosesTheCancellation()
    relay = Relay(Inbox(pubsub), prefix="test", owners=Here(), timeout=1, queue_size=4)
    await relay.start()
    async with asyncio.timeout(30):
        await pubsub.reading.wait()
    stopping = asyncio.ensure_future(relay.stop(seconds=5))
    done, _ = await asyncio.wait({stopping}, timeout=30)
    if not done:
        stopping.cancel()  # reaches the reader again, which ends then
        await asyncio.wait({stopping}, timeout=30)
    assert done and pubsub.swallowed
