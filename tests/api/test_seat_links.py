"""Moving a seat to another browser: a player's own link, the host's link for an away seat, and their secrets."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest

from app.client import Connection
from tests.api.conftest import connect, open_room

NAMES = ["Ana", "Ben", "Cy"]


def ask_link(peer: Connection, message: dict[str, Any]) -> dict[str, Any]:
    """Send a link request; returns the ``link`` frame that answers it (failing on an error)."""
    peer.send(message)
    while True:
        answer = peer.receive()
        assert answer["type"] != "error", answer
        if answer["type"] == "link":
            return answer


def take(client, code: str, secret: str) -> Any:
    """``POST /api/rooms/{code}/take`` from a program with no cookie."""
    client.cookies.clear()
    return client.post(f"/api/rooms/{code}/take", json={"secret": secret})


@pytest.fixture
def table(client):
    """Ana (host), Ben and Cy in a started quick match, each with a connection, and a spectator."""
    code, tokens = open_room(client, NAMES, preset="quick")
    peers = [connect(client, code, token) for token in tokens]
    peers[0].send({"type": "start"})
    for peer in peers:
        peer.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    return code, peers, connect(client, code)


def test_a_player_moves_their_seat_to_another_device_with_its_cards_and_turn(client, table):
    code, peers, spectator = table
    ben = peers[1]
    before = ben.latest()
    link = ask_link(ben, {"type": "device_link"})
    assert (link["kind"], link["seat"], link["player"], link["name"]) == ("device", 1, before["you"]["player"], "Ben")
    assert link["url"] == f"http://testserver/r/{code}/take#{link['secret']}" and link["expires_in"] == 600

    answer = take(client, code, link["secret"])
    assert answer.status_code == 201
    moved = answer.json()
    assert (moved["seat"], moved["player"]) == (1, before["you"]["player"]) and moved["token"] != ben.token
    assert answer.cookies.get(f"cucumber_{code}") == moved["token"]

    # The old connection is told, and watches from now on.
    assert ben.next_error()["code"] == "seat_moved"
    assert ben.next_state()["you"] is None
    ben.send({"type": "play", "card": before["you"]["hand"][0]})
    assert ben.next_error()["code"] == "not_seated"
    # The new browser has the seat as it was: same player, cards and turn.
    again = connect(client, code, moved["token"])
    now = again.state
    assert (now["you"]["seat"], now["you"]["player"], now["you"]["hand"]) == (1, before["you"]["player"],
                                                                              before["you"]["hand"])
    assert (now["turn"], now["trick"], now["deal"]) == (before["turn"], before["trick"], before["deal"])
    assert [seat["player"] for seat in now["seats"]] == [seat["player"] for seat in before["seats"]]

    # The link worked once; the old token is refused.
    assert take(client, code, link["secret"]).json()["error"] == "invalid_link"
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_json({"type": "hello", "token": ben.token})
        assert socket.receive_json()["code"] == "unknown_token"

    # Nobody else ever saw the secret.
    for peer in [peers[0], peers[2], spectator]:
        peer.latest()
        assert not any(link["secret"] in json.dumps(message) for message in peer.received), peer.token

    # Ben plays on from the new browser when his turn comes.
    state = again.latest()
    while state["phase"] == "playing" and state["turn"] != 1:
        mover = peers[state["turn"]]
        mover.send({"type": "play", "card": mover.until_version(again.version)["you"]["legal"][0]})
        state = again.until(lambda s, v=again.version: again.version > v)
        state = again.latest()
    if state["phase"] == "playing":
        card = state["you"]["legal"][0]
        again.send({"type": "play", "card": card})
        assert card not in again.until(lambda s, c=card: c not in s["you"]["hand"])["you"]["hand"]


def test_the_host_moves_with_their_seat(client):
    code, tokens = open_room(client, NAMES[:2])
    ana = connect(client, code, tokens[0])
    moved = take(client, code, ask_link(ana, {"type": "device_link"})["secret"]).json()
    again = connect(client, code, moved["token"])
    assert again.state["you"]["host"] and again.state["host"] == 0
    again.send({"type": "add_bot"})
    assert len(again.until(lambda s: len(s["seats"]) == 3)["seats"]) == 3


def test_a_link_expires(make_client):
    client = make_client(seat_link_seconds=0.2)
    code, tokens = open_room(client, NAMES[:2])
    ben = connect(client, code, tokens[1])
    link = ask_link(ben, {"type": "device_link"})
    assert link["expires_in"] == 0.2
    time.sleep(0.3)
    answer = take(client, code, link["secret"])
    assert (answer.status_code, answer.json()["error"]) == (404, "invalid_link")
    assert connect(client, code, tokens[1]).state["you"]["seat"] == 1  # nothing changed


def test_a_new_link_replaces_the_last_and_a_link_dies_with_its_seat(client):
    code, tokens = open_room(client, NAMES)
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    first = ask_link(ben, {"type": "device_link"})
    second = ask_link(ben, {"type": "device_link"})
    assert take(client, code, first["secret"]).json()["error"] == "invalid_link"
    ana.send({"type": "remove", "player": second["player"]})
    ana.until(lambda s: len(s["seats"]) == 2)
    assert take(client, code, second["secret"]).json()["error"] == "invalid_link"


def test_only_a_seated_player_gets_a_link_for_their_seat(client):
    code, _ = open_room(client, NAMES[:2])
    spectator = connect(client, code)
    spectator.send({"type": "device_link"})
    assert spectator.next_error()["code"] == "not_seated"


@pytest.fixture
def ben_away(make_client):
    """Ana (host) and Ben in a started quick match, Ben gone past the grace period."""
    client = make_client(away_grace_seconds=0.3)
    code, tokens = open_room(client, NAMES[:2], preset="quick")
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing")
    ana.send({"type": "seat_link", "player": state["seats"][1]["player"]})
    assert ana.next_error()["code"] == "player_present"  # Ben is here: his seat stays his
    ben.send({"type": "seat_link", "player": state["seats"][0]["player"]})
    assert ben.next_error()["code"] == "not_host"
    ben.close()
    ana.until(lambda s: s["seats"][1]["away"])
    return client, code, tokens, ana


def test_the_host_gives_an_away_players_seat_to_someone_new(ben_away):
    client, code, tokens, ana = ben_away
    before = ana.latest()
    ben = before["seats"][1]
    link = ask_link(ana, {"type": "seat_link", "player": ben["player"]})
    assert (link["kind"], link["seat"], link["player"], link["name"]) == ("seat", 1, ben["player"], "Ben")
    moved = take(client, code, link["secret"]).json()
    assert moved["seat"] == 1 and moved["player"] != ben["player"]
    newcomer = connect(client, code, moved["token"])
    now = newcomer.state
    assert (now["seats"][1]["name"], now["seats"][1]["player"], now["you"]["player"]) == (
        "Ben", moved["player"], moved["player"])
    assert now["seats"][1]["cards_left"] == ana.latest()["seats"][1]["cards_left"]
    assert now["seats"][1]["connected"] and not now["seats"][1]["away"]
    assert len(now["you"]["hand"]) == now["seats"][1]["cards_left"]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_json({"type": "hello", "token": tokens[1]})
        assert socket.receive_json()["code"] == "unknown_token"


def test_a_host_link_is_refused_once_its_player_is_back(ben_away):
    client, code, tokens, ana = ben_away
    link = ask_link(ana, {"type": "seat_link", "player": ana.latest()["seats"][1]["player"]})
    back = connect(client, code, tokens[1])
    answer = take(client, code, link["secret"])
    assert (answer.status_code, answer.json()["error"]) == (409, "player_present")
    assert back.latest()["you"]["seat"] == 1


def test_a_secret_is_never_logged(client, table, caplog):
    code, peers, _ = table
    caplog.set_level(logging.DEBUG)
    link = ask_link(peers[1], {"type": "device_link"})
    token = take(client, code, link["secret"]).json()["token"]
    take(client, code, link["secret"])  # refused: used
    connect(client, code, token)
    assert caplog.records
    assert not [record for record in caplog.records if link["secret"] in record.getMessage()
                or token in record.getMessage()]


@pytest.mark.parametrize("body", [{}, {"secret": 12}, {"secret": None}])
def test_a_take_without_a_secret_is_a_bad_request(client, body):
    code, _ = open_room(client, NAMES[:2])
    answer = client.post(f"/api/rooms/{code}/take", json=body)
    assert (answer.status_code, answer.json()["error"]) == (422, "bad_request")


def test_a_player_who_stepped_away_may_have_their_seat_given_on_at_once(client, table):
    # "I have to go" marks the seat away at once: the host need not wait out the grace period to give it on,
    # even while the player's page is still open; a link made before they come back stops working then.
    code, peers, _ = table
    ana, ben = peers[0], peers[1]
    ben.send({"type": "step_away"})
    seat = ana.until(lambda s: s["seats"][1]["stepped_away"])["seats"][1]
    assert seat["away"] and seat["connected"]
    early = ask_link(ana, {"type": "seat_link", "player": seat["player"]})
    ben.send({"type": "come_back"})
    ana.until(lambda s: not s["seats"][1]["away"])
    answer = take(client, code, early["secret"])
    assert (answer.status_code, answer.json()["error"]) == (409, "player_present")
    ben.send({"type": "step_away"})
    ana.until(lambda s: s["seats"][1]["stepped_away"])
    link = ask_link(ana, {"type": "seat_link", "player": seat["player"]})
    moved = take(client, code, link["secret"]).json()
    assert moved.get("seat") == 1 and moved["player"] != seat["player"], moved
    assert ben.next_error()["code"] == "seat_moved"
    assert ben.next_state()["you"] is None
    ben.send({"type": "come_back"})
    assert ben.next_error()["code"] == "not_seated"
