"""What operators watch: ``/metrics`` counts what happens, and only allowed addresses read it."""

from __future__ import annotations

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.config.settings import Settings
from tests.api.conftest import connect, open_room

LOOPBACK = ("127.0.0.1", 40000)  # also the default trusted proxy
STRANGER = ("203.0.113.9", 40000)


def read_metrics(client, **headers) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = client.get("/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.text) for sample in family.samples}


def test_the_metrics_count_rooms_sockets_plays_refusals_limits_and_storage(make_client):
    client = make_client(address=LOOPBACK, rate_limits=True, limit_rooms_created="1/hour",
                         limit_socket_other="1/hour")
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    assert client.post("/api/rooms", json={"name": "Cy"}).status_code == 429
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    client.cookies.set(f"cucumber_{code}", tokens[0])
    with client.websocket_connect(f"/r/{code}/ws") as page:
        page.receive_text()
        ana.send({"type": "start"})
        state = ana.until(lambda s: s["turn"] is not None)
        mover, waiter = (ana, ben) if state["turn"] == 0 else (ben, ana)
        waiter.send({"type": "play", "card": "2C"})
        assert waiter.next_error()["code"] == "not_your_turn"
        mover.send({"type": "play", "card": mover.until(lambda s: bool(s["you"]["legal"]))["you"]["legal"][0]})
        mover.until(lambda s: len(s["trick"]) == 1)
        for _ in range(2):
            waiter.send({"type": "dance"})
        assert [waiter.next_error()["code"] for _ in range(2)] == ["unknown_type", "rate_limited"]
        got = read_metrics(client)
        assert got[("cucumber_rooms", ())] == 1
        assert got[("cucumber_sockets_open", (("kind", "json"),))] == 2
        assert got[("cucumber_sockets_open", (("kind", "page"),))] == 1
    assert got[("cucumber_plays_stored_total", ())] == 1
    assert got[("cucumber_storage_seconds_count", (("call", "record_play"),))] == 1
    assert got[("cucumber_storage_seconds_count", (("call", "save_room"),))] >= 2
    assert got[("cucumber_refused_messages_total", (("code", "not_your_turn"),))] == 1
    assert got[("cucumber_refused_messages_total", (("code", "unknown_type"),))] == 1
    assert got[("cucumber_refused_messages_total", (("code", "rate_limited"),))] == 1
    assert got[("cucumber_rate_limited_total", (("limit", "socket_other"),))] == 1
    assert got[("cucumber_rate_limited_total", (("limit", "rooms_created"),))] == 1
    for peer in (ana, ben):
        peer.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the server finishes each closed socket in its own time
        after = read_metrics(client)
        if {after[("cucumber_sockets_open", (("kind", kind),))] for kind in ("json", "page")} == {0}:
            break
        time.sleep(0.01)
    assert {after[("cucumber_sockets_open", (("kind", kind),))] for kind in ("json", "page")} == {0}


def test_each_app_has_its_own_metrics(make_client):
    first, second = make_client(address=LOOPBACK), make_client(address=LOOPBACK)
    open_room(first, ["Ana"])
    assert read_metrics(first)[("cucumber_rooms", ())] == 1
    assert read_metrics(second)[("cucumber_rooms", ())] == 0


@pytest.mark.parametrize(("address", "headers", "allow", "status"), [
    (LOOPBACK, {}, None, 200),
    (("::1", 40000), {}, None, 200),
    (("testclient", 40000), {}, None, 404),
    (STRANGER, {}, None, 404),
    (STRANGER, {"X-Forwarded-For": "127.0.0.1"}, None, 404),  # not a trusted proxy: not believed
    (LOOPBACK, {"X-Forwarded-For": "203.0.113.5"}, None, 404),  # a local proxy, for a client elsewhere
    (LOOPBACK, {"X-Forwarded-For": "10.1.2.3"}, "10.0.0.0/8", 200),
    (STRANGER, {}, "*", 200),
    (LOOPBACK, {}, "", 404),
])
def test_only_allowed_client_addresses_read_the_metrics_and_others_find_nothing(make_client, address, headers,
                                                                                 allow, status):
    client = make_client(address=address, **({} if allow is None else {"metrics_allow": allow}))
    answer = client.get("/metrics", headers=headers)
    assert answer.status_code == status
    if status == 404:
        missing = client.get("/no-such-page", headers=headers)
        # The same page as any address nobody serves (its language form names the page to come back to).
        assert answer.headers["content-type"] == missing.headers["content-type"]
        assert answer.text.replace("/metrics", "/no-such-page") == missing.text
    else:
        assert "cucumber_rooms" in answer.text


def test_a_metrics_allowance_that_is_not_an_address_is_refused_at_start():
    with pytest.raises(ValueError, match="metrics_allow"):
        Settings(metrics_allow="localhost")


def test_healthz_names_the_process_and_counts_its_rooms_and_sockets(client):
    code, tokens = open_room(client, ["Ana"])
    before = client.get("/healthz").json()
    assert before["status"] == "ok" and before["mode"] == "single" and before["process"]
    assert (before["rooms"], before["sockets"], before["relayed_sockets"], before["hosted_sockets"],
            before["draining"]) == (1, 0, 0, 0, False)
    connect(client, code, tokens[0])
    deadline = time.monotonic() + 5
    while client.get("/healthz").json()["sockets"] != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.get("/healthz").json()["sockets"] == 1


def test_readyz_says_whether_the_process_takes_new_rooms(client):
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {"ready": True, "process": client.get("/healthz").json()["process"], "mode": "single"}
    client.portal.call(client.app.state.node.drain)  # as SIGTERM does, in the app's event loop
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.json()["reason"] == "draining"
    assert client.post("/api/rooms", json={"name": "Ana"}).status_code == 503  # no new rooms while draining


def test_readyz_is_503_while_the_database_lease_is_not_held(client):
    client.app.state.node.database_lease.held = False
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.json()["reason"] == "database_lease"


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_the_operators_addresses_refuse_another_method_in_json_naming_the_ones_they_take(client, path):
    answer = client.post(path)
    assert answer.status_code == 405
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["error"] == "method_not_allowed"
    assert set(answer.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD"}
