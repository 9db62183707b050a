"""The JSON HTTP API: opening rooms, taking seats, public state, records and health."""

from __future__ import annotations

import json

import pytest
from fastapi.routing import APIRoute

from app.common.identity import ROOM_CODE_ALPHABET as CODE_ALPHABET
from app.common.identity import ROOM_CODE_LENGTH as CODE_LENGTH
from tests.api.conftest import connect, open_room


def test_creating_a_room_seats_the_creator_as_host(client):
    answer = client.post("/api/rooms", json={"name": "  Ana  ", "preset": "gurka"})
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == {"code", "url", "seat", "token"}
    assert body["seat"] == 0 and len(body["token"]) >= 22  # at least 128 bits of randomness
    assert len(body["code"]) == CODE_LENGTH and set(body["code"]) <= set(CODE_ALPHABET)
    assert not set(body["code"]) & set("0O1I")
    assert body["url"].endswith(f"/r/{body['code']}")
    cookie = answer.headers["set-cookie"]
    assert f"cucumber_{body['code']}={body['token']}" in cookie
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    state = client.get(f"/api/rooms/{body['code']}").json()["state"]
    assert state["seats"][0]["name"] == "Ana" and state["host"] == 0
    assert state["rules"]["threshold"] == 30 and state["preset"] == "gurka"


def test_rules_options_apply_over_the_preset(client):
    code = client.post("/api/rooms", json={"name": "Ana", "preset": "quick", "rules": {"threshold": 30}}).json()["code"]
    rules = client.get(f"/api/rooms/{code}").json()["state"]["rules"]
    assert rules["hand_size"] == 3 and rules["threshold"] == 30


@pytest.mark.parametrize(("body", "code"), [
    ({"name": ""}, "invalid_name"),
    ({"name": "   "}, "invalid_name"),
    ({"name": "x" * 21}, "invalid_name"),
    ({"name": "a\u200bb"}, "invalid_name"),
    ({"name": 7}, "invalid_name"),
    ({"name": "Ana", "preset": "bridge"}, "invalid_rules"),
    ({"name": "Ana", "rules": {"hand_size": 9}}, "invalid_rules"),
    ({"name": "Ana", "rules": {"colour": "red"}}, "invalid_rules"),
    ({"name": "Ana", "extra": 1}, "bad_request"),
])
def test_bad_room_requests_are_refused_with_a_json_error(client, body, code):
    answer = client.post("/api/rooms", json=body)
    assert answer.status_code == 422
    assert answer.json()["error"] == code
    assert client.get("/healthz").json()["rooms"] == 0


def test_joining_a_full_room_a_started_match_or_with_a_taken_name_is_a_conflict(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    for lookalike in ["BEN", "Be\u200dn", "Ben\ufe0f", "B\u034fen"]:  # case, and characters drawn as nothing
        taken = client.post(f"/api/rooms/{code}/players", json={"name": lookalike})
        assert taken.status_code == 409 and taken.json()["error"] == "name_taken", lookalike
    for name in ["Cy", "Dag", "Eva", "Finn", "Gus"]:
        assert client.post(f"/api/rooms/{code}/players", json={"name": name}).status_code == 201
    full = client.post(f"/api/rooms/{code}/players", json={"name": "Hal"})
    assert full.status_code == 409 and full.json()["error"] == "room_full"

    code, tokens = open_room(client, ["Ana", "Ben"])
    host = connect(client, code, tokens[0])
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] == "playing")
    started = client.post(f"/api/rooms/{code}/players", json={"name": "Cy"})
    assert started.status_code == 409 and started.json()["error"] == "match_started"


def test_a_host_without_a_seat_sits_down_again_with_their_own_token(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    host = connect(client, code, tokens[0])
    host.send({"type": "leave"})
    host.until(lambda s: len(s["seats"]) == 1)
    join = client.post(f"/api/rooms/{code}/players", json={"name": "Ana", "token": tokens[0]})
    assert join.status_code == 201 and join.json() == {"seat": 1, "token": tokens[0]}
    assert host.until(lambda s: len(s["seats"]) == 2)["host"] == 1
    again = client.post(f"/api/rooms/{code}/players", json={"name": "Ana 2", "token": tokens[0]})
    assert again.status_code == 409 and again.json()["error"] == "already_seated"
    ben = client.post(f"/api/rooms/{code}/players", json={"name": "Cy", "token": tokens[1]})
    assert ben.status_code == 403 and ben.json()["error"] == "not_host"
    odd = client.post(f"/api/rooms/{code}/players", json={"name": "Cy", "token": 7})
    assert odd.status_code == 422 and odd.json()["error"] == "bad_request"
    assert [seat["name"] for seat in client.get(f"/api/rooms/{code}").json()["state"]["seats"]] == ["Ben", "Ana"]


def test_unknown_rooms_and_matches_are_404(client):
    assert client.post("/api/rooms/ZZZZZ/players", json={"name": "Ana"}).status_code == 404
    assert client.get("/api/rooms/ZZZZZ").status_code == 404
    assert client.get("/api/matches/nosuchmatch/record").status_code == 404


def test_addresses_and_methods_no_route_serves_answer_in_the_sites_own_shape(client):
    # They answered the framework's bare {"detail": "Not Found"}, as JSON even to a browser.
    missing = client.get("/api/nothing/here")
    assert (missing.status_code, missing.json()) == (404, {"error": "not_found",
                                                            "message": "there is nothing at this address"})
    wrong = client.delete("/api/rooms")
    assert (wrong.status_code, wrong.json()["error"]) == (405, "method_not_allowed")
    assert wrong.json()["message"] == "this address does not take DELETE requests"
    assert wrong.headers["allow"] == "POST"
    german = client.get("/api/nothing", headers={"Accept-Language": "de"}).json()
    assert german == {"error": "not_found", "message": "unter dieser Adresse gibt es nichts"}
    page = client.get("/no/such/page", headers={"Accept": "text/html"})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "<h1>No such page</h1>" in page.text and "there is nothing at this address" in page.text
    assert 'href="/"' in page.text
    assert client.get("/static/nothing.css").status_code == 404


def test_a_body_nested_too_deeply_to_read_is_a_bad_request_that_changes_nothing(client):
    # json.loads gives up on it with a RecursionError: FastAPI answered 400 {"detail": ...}.
    body = "[" * 100_000 + "]" * 100_000
    answer = client.post("/api/rooms", content=body, headers={"Content-Type": "application/json"})
    assert (answer.status_code, answer.json()) == (400, {"error": "bad_request",
                                                         "message": "the request's body could not be read"})
    assert client.get("/healthz").json()["rooms"] == 0


def test_no_record_is_served_for_a_match_in_progress(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    host = connect(client, code, tokens[0])
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] == "playing")
    match_id = client.app.state.registry.get(code).current.match_id
    assert client.get(f"/api/matches/{match_id}/record").status_code == 404
    assert client.get("/api/matches").json()["total"] == 0


def test_room_codes_are_found_in_any_case(client):
    code, _ = open_room(client, ["Ana"])
    assert client.get(f"/api/rooms/{code.lower()}").status_code == 200


def test_health(client):
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"


def test_every_page_and_read_answers_head_as_get_without_a_body(client):
    # Uptime monitors and `curl -I` ask with HEAD; a GET route without it answered 405.
    code, _ = open_room(client, ["Ana", "Ben"])
    reads = sorted({route.path for route in client.app.routes
                    if isinstance(route, APIRoute) and "GET" in route.methods})
    assert reads == sorted({route.path for route in client.app.routes
                            if isinstance(route, APIRoute) and "HEAD" in route.methods})
    for path in ["/", "/rules", "/healthz", "/readyz", "/matches", "/api/matches", f"/r/{code}", f"/r/{code}/take",
                 f"/api/rooms/{code}", "/r/NOPE2", "/matches/nothing", "/api/matches/nothing/record", "/metrics"]:
        got, head = client.get(path), client.head(path)
        assert (head.status_code, head.headers["content-type"]) == (got.status_code, got.headers["content-type"]), path
        assert head.content == b"" and got.content, path


def test_a_server_holds_a_bounded_number_of_rooms_and_connections(make_client):
    client = make_client(max_rooms=2, max_connections_per_room=2)
    code, _ = open_room(client, ["Ana"])
    open_room(client, ["Ben"])
    full = client.post("/api/rooms", json={"name": "Cy"})
    assert full.status_code == 503 and full.json()["error"] == "server_full"
    first, second = connect(client, code), connect(client, code)
    with client.websocket_connect(f"/api/rooms/{code}/ws") as third:
        third.send_json({"type": "hello"})
        assert third.receive_json()["code"] == "room_crowded"
    client.cookies.clear()
    with client.websocket_connect(f"/r/{code}/ws") as page:
        assert '"room_crowded"' in page.receive_text()
    assert first.state["spectators"] <= 2 and second.state is not None


def test_watchers_filling_a_room_never_keep_its_players_from_their_seats(make_client):
    client = make_client(max_connections_per_room=2)
    code, (ana, ben) = open_room(client, ["Ana", "Ben"])
    watchers = [connect(client, code), connect(client, code)]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as third:
        third.send_json({"type": "hello"})
        assert third.receive_json()["code"] == "room_crowded"
    with client.websocket_connect(f"/api/rooms/{code}/ws") as forged:  # a token the room does not know
        forged.send_json({"type": "hello", "token": "x" * 32})
        assert forged.receive_json()["code"] == "unknown_token"
    ben_socket = connect(client, code, ben)  # a player's own connection
    assert ben_socket.state["you"]["seat"] == 1
    client.cookies.set(f"cucumber_{code}", ana)  # the host's table page
    with client.websocket_connect(f"/r/{code}/ws") as page:
        assert 'id="status"' in page.receive_text()
    client.cookies.clear()
    with client.websocket_connect(f"/r/{code}/ws") as page:  # a page without a seat is a watcher
        assert '"room_crowded"' in page.receive_text()
    assert watchers[0].state is not None


# The same answers on every database: input is checked before storage sees it.


@pytest.fixture
def client_on_either(make_client, empty_url):
    """An app on a new database of its own: SQLite, then PostgreSQL."""
    return make_client(database_url=empty_url)


@pytest.mark.parametrize("match_id", ["a%00b", "%00", "x" * 300, "%ED%A0%80", "nosuchmatch", "%F0%9F%A5%92%00",
                                      "22222222222%00"])
def test_text_that_names_no_match_is_404_on_every_database(client_on_either, match_id):
    record = client_on_either.get(f"/api/matches/{match_id}/record")
    assert record.status_code == 404 and record.json()["error"] == "no_such_match"
    page = client_on_either.get(f"/matches/{match_id}")
    assert page.status_code == 404 and "No such match" in page.text


@pytest.mark.parametrize("code", ["%00", "AB%00C", "x" * 300, "%ED%A0%80"])
def test_text_that_names_no_room_is_404_on_every_database(client_on_either, code):
    assert client_on_either.get(f"/api/rooms/{code}").status_code == 404
    assert client_on_either.post(f"/api/rooms/{code}/players", json={"name": "Ana"}).status_code == 404
    assert client_on_either.get(f"/r/{code}").status_code == 404


@pytest.mark.parametrize(("body", "code"), [
    ({"name": "Ana\u0000"}, "invalid_name"),
    ({"name": "\ud800"}, "invalid_name"),
    ({"name": "Ana", "preset": "\u0000"}, "invalid_rules"),
    ({"name": "Ana", "rules": {"follow": "\u0000"}}, "invalid_rules"),
    ({"name": "Ana", "rules": {"\u0000": 1}}, "invalid_rules"),
    ({"name": "Ana", "rules": {"threshold": 2**80}}, "invalid_rules"),
    ({"name": "Ana", "rules": {"match_length": -2**63}}, "invalid_rules"),
])
def test_text_and_numbers_a_database_cannot_hold_are_refused_alike(client_on_either, body, code):
    # Sent as JSON text with escapes (\u0000, \ud800), as a program would.
    answer = client_on_either.post("/api/rooms", content=json.dumps(body), headers={"content-type": "application/json"})
    assert answer.status_code == 422 and answer.json()["error"] == code
    assert client_on_either.get("/healthz").json()["rooms"] == 0


def test_page_numbers_stay_in_range_on_every_database(client_on_either):
    assert client_on_either.get("/api/matches", params={"page": 10**20}).status_code == 422
    assert client_on_either.get("/api/matches", params={"per_page": 2**40}).status_code == 422
    assert client_on_either.get("/matches", params={"page": "99999999999999999999"}).status_code == 200
