"""An app on a temporary database, and JSON-protocol clients to drive it.

Timings are zero (no pause between deals, bots play at once) unless a test
asks for others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.score_sheets import whole_sheet


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """Build and start an app with settings overrides; every client is closed after the test."""
    clients: list[TestClient] = []

    def make(database_url: str | None = None, *, address: tuple[str, int] = ("testclient", 50000),
             **overrides: Any) -> TestClient:
        """``address``: where the requests come from (host, port), e.g. a proxy's."""
        options: dict[str, Any] = {
            "database_url": database_url or f"sqlite:///{tmp_path / f'app{len(clients)}.db'}",
            "deal_pause_seconds": 0.0,
            "bot_delay_seconds": 0.0,
            "hard_bot_budget_seconds": 0.02,
            "rate_limits": False,  # the tests open many rooms from one address; test_limits.py turns them on
        }
        options.update(overrides)
        client = TestClient(create_app(Settings(**options)), client=address)
        client.__enter__()
        client.peers = []  # type: ignore[attr-defined]
        clients.append(client)
        return client

    yield make
    for client in reversed(clients):
        for peer in client.peers:  # type: ignore[attr-defined]
            peer.close()
        client.__exit__(None, None, None)


def stop(client: TestClient) -> None:
    """Stop ``client``'s server as a restart does: its connections close, then the app shuts down (its rooms
    stay stored, for the next app on the same database to restore)."""
    for peer in client.peers:  # type: ignore[attr-defined]
        peer.close()
    client.__exit__(None, None, None)
    client.peers = []  # type: ignore[attr-defined]


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    """A started app with default test settings."""
    return make_client()


class Peer:
    """One JSON-protocol connection: sends messages, keeps every message it receives."""

    def __init__(self, client: TestClient, code: str, token: str | None = None, lang: str | None = None) -> None:
        self._context = client.websocket_connect(f"/api/rooms/{code}/ws")
        self.socket = self._context.__enter__()
        self.closed = False
        self.resync = False
        client.peers.append(self)  # type: ignore[attr-defined]
        self.token = token
        self.received: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.version = -1
        hello = {"type": "hello", "token": token} if token else {"type": "hello"}
        self.send({**hello, "lang": lang} if lang else hello)
        self.next_state()

    def send(self, message: dict[str, Any]) -> None:
        """Send one message."""
        if message.get("type") == "sync":
            self.resync = True
        self.socket.send_json(message)

    def receive(self) -> dict[str, Any]:
        """The next message, whatever its type."""
        message = self.socket.receive_json()
        self.received.append(message)
        if message["type"] == "state":
            # Only the answer to a sync may repeat the current version.
            if message["version"] == self.version and self.resync:
                self.resync = False
            else:
                assert message["version"] > self.version, "versions must strictly increase"
            self.version = message["version"]
            self.state = whole_sheet(message["state"], self.state and self.state["score_sheet"])
        return message

    def next_state(self) -> dict[str, Any]:
        """Receive until the next state message; returns its state."""
        while self.receive()["type"] != "state":
            pass
        assert self.state is not None
        return self.state

    def next_error(self) -> dict[str, Any]:
        """Receive until the next error message; returns it."""
        while True:
            message = self.receive()
            if message["type"] == "error":
                return message

    def until(self, check: Callable[[dict[str, Any]], bool], limit: int = 10_000) -> dict[str, Any]:
        """Receive states until ``check(state)`` holds; returns that state."""
        if self.state is not None and check(self.state):
            return self.state
        for _ in range(limit):
            if check(self.next_state()):
                return self.state  # type: ignore[return-value]
        raise AssertionError("the expected state never came")

    def latest(self) -> dict[str, Any]:
        """The room's current state: asks for it and reads everything queued before the answer.

        The answer to a sync repeats the current version, which no broadcast ever does.
        """
        self.send({"type": "sync"})
        while True:
            before = self.version
            message = self.receive()
            if message["type"] == "state" and message["version"] == before:
                return self.state  # type: ignore[return-value]

    def until_version(self, version: int) -> dict[str, Any]:
        """Receive until the state of at least ``version``."""
        while self.version < version:
            self.next_state()
        return self.state  # type: ignore[return-value]

    def close(self) -> None:
        """Close the connection (once)."""
        if not self.closed:
            self.closed = True
            self._context.__exit__(None, None, None)


def open_room(client: TestClient, names: list[str], **body: Any) -> tuple[str, list[str]]:
    """Create a room with the first name as host and seat the others; returns the code and tokens."""
    answer = client.post("/api/rooms", json={"name": names[0], **body})
    assert answer.status_code == 201, answer.text
    code = answer.json()["code"]
    tokens = [answer.json()["token"]]
    for name in names[1:]:
        joined = client.post(f"/api/rooms/{code}/players", json={"name": name})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    return code, tokens
