"""What the relay sends between processes: the room a path names, and scopes that survive the trip."""

from __future__ import annotations

import json

import pytest

from app.cluster.relay import FORWARDED, pack_scope, room_code_in, unpack_scope


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
