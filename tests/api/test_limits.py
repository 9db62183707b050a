"""Per-client-address limits at the routes: 429 with Retry-After, sockets closed with 1008.

The limits are set tight here; the other tests run with them off.
"""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.api.conftest import open_room

PROXY = ("127.0.0.1", 40000)  # trusted by default: its X-Forwarded-For names the client
STRANGER = ("203.0.113.9", 40000)


def limited_client(make_client, address=PROXY, **limits):
    return make_client(address=address, rate_limits=True, **{f"limit_{name}": value for name, value in limits.items()})


def from_(address):
    return {"X-Forwarded-For": address}


def assert_limited(answer, *, page: bool):
    assert answer.status_code == 429
    assert 1 <= int(answer.headers["retry-after"]) <= 60
    if page:
        assert "<h1>Too many requests</h1>" in answer.text and "tables opened" in answer.text
    else:
        assert answer.json()["error"] == "rate_limited" and "try again in" in answer.json()["message"]


def test_opening_tables_over_the_limit_is_429_with_retry_after_by_api_and_by_form(make_client):
    client = limited_client(make_client, rooms_created="2/minute")
    assert client.post("/api/rooms", json={"name": "Ana"}).status_code == 201
    form = client.post("/rooms", data={"name": "Ana", "preset": "agurk"}, follow_redirects=False)
    assert form.status_code == 303
    assert_limited(client.post("/api/rooms", json={"name": "Ana"}), page=False)
    assert_limited(client.post("/rooms", data={"name": "Ana", "preset": "agurk"}), page=True)
    assert client.get("/healthz").json()["rooms"] == 2


def test_seats_over_the_limit_are_refused_by_api_and_by_form(make_client):
    client = limited_client(make_client, joins="2/minute")  # Ben and Cy
    code, _ = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    assert client.post(f"/r/{code}/join", data={"name": "Cy"}, follow_redirects=False).status_code == 303
    client.cookies.clear()
    refused = client.post(f"/r/{code}/join", data={"name": "Dag"})
    assert refused.status_code == 429 and "seats taken" in refused.text and refused.headers["retry-after"]
    assert client.post(f"/api/rooms/{code}/players", json={"name": "Dag"}).status_code == 429
    assert len(client.get(f"/api/rooms/{code}").json()["state"]["seats"]) == 3  # Ana, Ben, Cy


def test_each_address_behind_a_trusted_proxy_has_its_own_allowance(make_client):
    client = limited_client(make_client, rooms_created="1/minute")
    assert client.post("/api/rooms", json={"name": "Ana"}, headers=from_("198.51.100.1")).status_code == 201
    assert client.post("/api/rooms", json={"name": "Ana"}, headers=from_("198.51.100.1")).status_code == 429
    assert client.post("/api/rooms", json={"name": "Ben"}, headers=from_("198.51.100.2")).status_code == 201
    assert client.post("/api/rooms", json={"name": "Cy"}).status_code == 201  # the proxy's own address


def test_from_an_untrusted_address_x_forwarded_for_changes_nothing(make_client):
    client = limited_client(make_client, address=STRANGER, rooms_created="1/minute")
    assert client.post("/api/rooms", json={"name": "Ana"}, headers=from_("198.51.100.1")).status_code == 201
    assert client.post("/api/rooms", json={"name": "Ben"}, headers=from_("198.51.100.2")).status_code == 429


@pytest.mark.parametrize("path", ["/api/rooms/{code}/ws", "/r/{code}/ws"])
def test_sockets_over_the_limit_are_told_rate_limited_and_closed_1008(make_client, path):
    client = limited_client(make_client, sockets="2/minute")
    code, _ = open_room(client, ["Ana"])
    for _ in range(2):
        with client.websocket_connect(path.format(code=code)) as socket:
            socket.send_json({"type": "hello"})
            assert socket.receive_text()
    with client.websocket_connect(path.format(code=code)) as socket:
        error = socket.receive_json()
        assert error["type"] == "error" and error["code"] == "rate_limited"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
    assert closed.value.code == 1008


def test_every_post_counts_against_the_posts_limit(make_client):
    client = limited_client(make_client, posts="3/minute")
    code, _ = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    assert client.post(f"/r/{code}/join", data={"name": "Cy"}, follow_redirects=False).status_code == 303
    refused = client.post("/api/rooms", json={"name": "Dag"})
    assert refused.status_code == 429 and "requests sent" in refused.json()["message"]
    assert client.get(f"/api/rooms/{code}").status_code == 200  # reading is not limited


def test_limits_off_by_the_setting(make_client):
    client = make_client(address=PROXY, rate_limits=False, limit_rooms_created="1/minute", limit_posts="1/minute")
    for _ in range(3):
        assert client.post("/api/rooms", json={"name": "Ana"}).status_code == 201
    one_off = limited_client(make_client, rooms_created="", posts="")
    for _ in range(3):
        assert one_off.post("/api/rooms", json={"name": "Ana"}).status_code == 201
