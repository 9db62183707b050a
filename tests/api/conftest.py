"""An app on a temporary database, and JSON-protocol connections (:mod:`app.client`) to drive it.

Timings are zero (no pause between deals, bots play at once) unless a test
asks for others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.client import Closed, Connection, Rooms
from app.config.settings import Settings
from app.main import create_app


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


class AppSocket:
    """A :class:`~app.client.Transport` over the app's in-process socket (Starlette's test client), so that
    :class:`~app.client.Connection` drives the app without a network. ``socket`` is the test client's own
    socket, for tests that send raw frames."""

    def __init__(self, client: TestClient, code: str) -> None:
        self._context = client.websocket_connect(f"/api/rooms/{code}/ws")
        self.socket = self._context.__enter__()
        self.closed = False

    def send(self, text: str) -> None:
        self.socket.send_text(text)

    def receive(self, timeout: float | None) -> str:
        """The next text frame; the test client's socket waits as long as it takes, whatever ``timeout``."""
        try:
            return self.socket.receive_text()
        except WebSocketDisconnect as closed:
            raise Closed(closed.code, closed.reason or "") from closed

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._context.__exit__(None, None, None)


def connect(client: TestClient, code: str, token: str | None = None, lang: str | None = None) -> Connection:
    """A JSON-protocol connection to room ``code`` of ``client``'s app, as the player of ``token`` (a
    spectator without), once its first state has come; closed after the test. Versions must strictly
    increase, but for the answer to a sync."""
    transport = AppSocket(client, code)
    client.peers.append(transport)  # type: ignore[attr-defined]
    return Connection(transport, token, lang=lang, strict=True)


def open_room(client: TestClient, names: list[str], *, preset: str | None = None,
              rules: dict[str, Any] | None = None, pace: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """Create a room with the first name as host and seat the others; returns the code and tokens. Raises
    :class:`~app.client.Refused` when the server refuses a request."""
    seats = Rooms(client).table(names, preset=preset, rules=rules, pace=pace)
    return seats[0].code, [seat.token for seat in seats]
