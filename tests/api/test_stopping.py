"""A stop answers the requests whose body has not come at once, and a room asked for during it, with
``503 server_stopping`` and ``Retry-After``."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.rooms.errors import STOPPING_RETRY_SECONDS


def begin_stop(client: TestClient) -> None:
    """Begin the app's stop, as SIGTERM does (``Node.drain``); the lifespan ends it when the test is over."""
    client.portal.call(client.app.state.node.drain)  # type: ignore[attr-defined]


async def half_sent(client: TestClient, path: str, content_type: str, part: bytes) -> list[dict[str, Any]]:
    """Send ``client``'s app a POST to ``path`` whose body stops after ``part``; once the app waits for the rest,
    begin the stop. Returns what the app sent back."""
    app = client.app
    waiting, never = asyncio.Event(), asyncio.Event()
    given = False

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": part, "more_body": True}
        waiting.set()
        await never.wait()
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
             "headers": [(b"host", b"testserver"), (b"content-type", content_type.encode()),
                         (b"content-length", b"1000"), (b"accept-language", b"de")],
             "client": ("testclient", 50000), "server": ("testserver", 80)}
    serving = asyncio.ensure_future(app(scope, receive, send))
    await waiting.wait()
    app.state.node.drain()  # type: ignore[attr-defined]
    await asyncio.wait_for(serving, 30)
    return sent


def answer_of(sent: list[dict[str, Any]]) -> tuple[int, dict[str, str], bytes]:
    start = next(message for message in sent if message["type"] == "http.response.start")
    headers = {name.decode(): value.decode() for name, value in start["headers"]}
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return start["status"], headers, body


@pytest.mark.parametrize(("path", "content_type", "part"), [
    ("/api/rooms", "application/json", b'{"name": "A'),
    ("/rooms", "application/x-www-form-urlencoded", b"name=A"),
])
def test_a_request_still_sending_its_body_when_the_stop_begins_is_answered_503_at_once(
        client: TestClient, caplog: pytest.LogCaptureFixture, path: str, content_type: str, part: bytes) -> None:
    with caplog.at_level(logging.INFO):
        sent = client.portal.call(half_sent, client, path, content_type, part)  # type: ignore[attr-defined]
    status, headers, body = answer_of(sent)
    assert status == 503 and headers["retry-after"] == str(STOPPING_RETRY_SECONDS)
    assert len([message for message in sent if message["type"] == "http.response.start"]) == 1
    if path.startswith("/api/"):
        answer = json.loads(body)
        assert answer["error"] == "server_stopping" and "Server" in answer["message"]  # in German
    else:
        assert "Versuche es gleich noch einmal" in body.decode()
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert any("before its body came; answered 503" in record.message for record in caplog.records)


def test_a_room_asked_for_during_a_stop_is_refused_as_stopping_not_as_full(client: TestClient) -> None:
    assert client.post("/api/rooms", json={"name": "Ana"}).status_code == 201
    begin_stop(client)
    answer = client.post("/api/rooms", json={"name": "Ben"})
    assert answer.status_code == 503 and answer.json()["error"] == "server_stopping"
    assert answer.headers["retry-after"] == str(STOPPING_RETRY_SECONDS)
    page = client.post("/rooms", data={"name": "Ben"}, headers={"Accept-Language": "de"})
    assert page.status_code == 503 and "Server wird beendet" in page.text


def test_a_room_asked_for_when_the_server_holds_all_it_can_is_still_server_full(make_client) -> None:
    client = make_client(max_rooms=1)
    assert client.post("/api/rooms", json={"name": "Ana"}).status_code == 201
    answer = client.post("/api/rooms", json={"name": "Ben"})
    assert answer.status_code == 503 and answer.json()["error"] == "server_full"
    assert "retry-after" not in answer.headers
