"""The JSON protocol end to end: whole matches, hidden cards, refused messages, reconnection."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from app.client import Connection
from app.common.identity import is_player_id
from app.game.record import replay
from tests.api.conftest import connect, open_room

CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
NAMES = ["Ana", "Ben", "Cy", "Dag"]


def card_codes(value: Any) -> set[str]:
    """Every string in a JSON value that is a card code."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(card_codes(v) for v in value.values()), *(card_codes(k) for k in value))
    if isinstance(value, list):
        return set().union(*(card_codes(v) for v in value)) if value else set()
    return set()


def public_cards(state: dict[str, Any]) -> set[str]:
    """The cards a state shows face up: earlier tricks, the current and previous trick, the last deal, and the
    last trick of each completed deal on the score sheet."""
    cards = {card for seat in state["seats"] for card in seat["played"]}
    cards |= {play["card"] for play in state["trick"] + state["previous_trick"]}
    cards |= {play["card"] for line in state["score_sheet"] for play in line["last_trick"]}
    if state["last_deal"]:
        cards |= card_codes(state["last_deal"])
    return cards


def play_match(peers: list[Connection], spectator: Connection, rng: random.Random) -> dict[str, Any]:
    """Play random legal cards, each by the seat whose turn it is, until the match ends."""
    host = peers[0]
    state = host.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    while state["phase"] != "finished":
        turn = state["turn"]
        if turn is None:  # between deals
            state = host.next_state()
            continue
        mover = peers[turn].until_version(host.version)
        assert mover["turn"] == turn
        mover["you"]["legal"] and peers[turn].send({"type": "play", "card": rng.choice(mover["you"]["legal"])})
        version = host.version
        state = host.until(lambda s, v=version: host.version > v)
    for peer in [*peers, spectator]:
        peer.until_version(host.version)
    return state


def test_four_players_and_a_spectator_play_a_whole_match(client):
    code, tokens = open_room(client, NAMES, preset="quick")
    peers = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    peers[0].send({"type": "start"})
    final = play_match(peers, spectator, random.Random(7))
    assert final["phase"] == "finished" and final["winners"] and final["match_id"]

    record = client.get(f"/api/matches/{final['match_id']}/record").json()
    match = replay(record)
    assert match.finished and list(match.winners) == final["winners"]
    assert record["players"] == NAMES
    assert [line["score"] for line in sorted(final["standings"], key=lambda line: line["seat"])] == list(match.scores)

    # No message to anyone ever held a card that was hidden from them.
    for seat, peer in [*enumerate(peers), (None, spectator)]:
        for message in peer.received:
            if message["type"] != "state" or message["state"]["phase"] == "lobby":
                continue
            state = message["state"]
            deal = record["deals"][state["deal"] - 1] if state["deal"] else None
            own = set(state["you"]["hand"]) if state["you"] else set()
            if seat is None:
                assert own == set() and state["you"] is None
            else:
                assert own <= set(deal["hands"][seat])
            public = public_cards(state)
            if deal is not None:
                assert public <= set(deal["plays"]) | {c for d in record["deals"] for c in d["plays"]}
            assert card_codes(state) <= own | public, f"hidden card in a message to seat {seat}"


def test_a_spectator_state_and_the_http_state_hold_no_hand(client):
    code, tokens = open_room(client, NAMES[:3])
    players = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    players[0].send({"type": "start"})
    state = spectator.until(lambda s: s["phase"] == "playing")
    hands = {card for p in players for card in p.until(lambda s: s["you"]["hand"])["you"]["hand"]}
    assert state["you"] is None
    assert not card_codes(state) & hands
    public = client.get(f"/api/rooms/{code}").json()["state"]
    assert public["you"] is None and not card_codes(public) & hands


@pytest.fixture
def table(client):
    """Three seated players (Ana hosts) in a started match with the quick rules."""
    code, tokens = open_room(client, NAMES[:3], preset="quick")
    peers = [connect(client, code, token) for token in tokens]
    peers[0].send({"type": "start"})
    for peer in peers:
        peer.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    return code, peers


def assert_unchanged(peer: Connection, before: int) -> None:
    """No new state was sent: a sync answers with the same version."""
    peer.send({"type": "sync"})
    assert peer.next_state() is not None
    assert peer.version == before


def test_out_of_turn_not_in_hand_and_illegal_plays_are_refused_without_change(client, table):
    code, peers = table
    state = peers[0].state
    turn = state["turn"]
    waiting = peers[(turn + 1) % 3]
    waiting_state = waiting.until_version(peers[0].version)
    before = waiting.version
    waiting.send({"type": "play", "card": waiting_state["you"]["hand"][0]})
    assert waiting.next_error()["code"] == "not_your_turn"
    assert_unchanged(waiting, before)

    mover = peers[turn]
    mine = mover.until_version(peers[0].version)["you"]
    not_mine = next(c for c in (r + s for r in "23456789TJQKA" for s in "CDHS") if c not in mine["hand"])
    before = mover.version
    mover.send({"type": "play", "card": not_mine})
    assert mover.next_error()["code"] == "card_not_in_hand"
    assert_unchanged(mover, before)

    mover.send({"type": "play", "card": "1X"})
    assert mover.next_error()["code"] == "invalid_card"
    assert_unchanged(mover, before)


def test_an_illegal_card_is_refused_with_the_reason(client):
    code, tokens = open_room(client, NAMES[:3], preset="quick")
    peers = [connect(client, code, token) for token in tokens]
    peers[0].send({"type": "start"})
    rng = random.Random(3)
    # Play until some player holds a card that is not legal on their turn.
    for _ in range(200):
        state = peers[0].until(lambda s: s["phase"] == "finished"
                               or (s["phase"] == "playing" and s["turn"] is not None))
        if state["phase"] == "finished":
            pytest.fail("no illegal card came up")
        mover = peers[state["turn"]]
        mine = mover.until_version(peers[0].version)["you"]
        illegal = [card for card in mine["hand"] if card not in mine["legal"]]
        if illegal:
            before = mover.version
            mover.send({"type": "play", "card": illegal[0]})
            error = mover.next_error()
            assert error["code"] == "illegal_play"
            assert error["message"] == mine["reasons"][illegal[0]]
            assert_unchanged(mover, before)
            return
        version = peers[0].version
        mover.send({"type": "play", "card": rng.choice(mine["legal"])})
        peers[0].until(lambda s, v=version: peers[0].version > v)
    pytest.fail("no illegal card came up")


@pytest.mark.parametrize(("frame", "code"), [
    ("not json", "malformed"),
    ("[1, 2]", "malformed"),
    ('{"card": "9C"}', "bad_request"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "hello"}', "bad_request"),
    ('{"type": "play"}', "invalid_card"),
    ('{"type": "play", "card": 9}', "invalid_card"),
    ('{"type": "start"}', "match_started"),
    ("x" * 5000, "too_large"),
])
def test_malformed_and_unknown_messages_get_an_error_and_change_nothing(client, table, frame, code):
    _, peers = table
    peer = peers[0]
    before = peer.version
    peer.transport.socket.send_text(frame)
    assert peer.next_error()["code"] == code
    assert_unchanged(peer, before)


def test_binary_frames_are_refused(client, table):
    _, peers = table
    before = peers[1].version
    peers[1].transport.socket.send_bytes(b'{"type": "sync"}')
    assert peers[1].next_error()["code"] == "malformed"
    assert_unchanged(peers[1], before)


def test_only_the_host_starts_and_changes_rules(client):
    code, tokens = open_room(client, NAMES[:2])
    host, guest = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    spectator = connect(client, code)
    for peer, action in [(guest, {"type": "start"}), (guest, {"type": "set_rules", "preset": "gurka"}),
                         (guest, {"type": "add_bot"}), (spectator, {"type": "start"})]:
        peer.send(action)
        assert peer.next_error()["code"] == "not_host"
    spectator.send({"type": "play", "card": "9C"})
    assert spectator.next_error()["code"] == "not_seated"
    host.send({"type": "set_rules", "preset": "gurka", "rules": {"hand_size": 5}})
    state = host.until(lambda s: s["preset"] is None and s["rules"]["threshold"] == 30)
    assert state["rules"]["hand_size"] == 5 and state["rules"]["lives"] == 1
    host.send({"type": "set_rules", "rules": {"threshold": 5}})
    error = host.next_error()
    assert error["code"] == "invalid_rules" and "threshold" in error["message"]


def test_a_match_needs_two_players(client):
    code, tokens = open_room(client, ["Solo"])
    host = connect(client, code, tokens[0])
    host.send({"type": "start"})
    assert host.next_error()["code"] == "not_enough_players"


def test_a_reconnecting_player_gets_the_same_hand_and_turn(client, table):
    code, peers = table
    turn = peers[0].state["turn"]
    before = peers[turn].until_version(peers[0].version)["you"]
    peers[turn].close()
    again = connect(client, code, peers[turn].token)
    assert again.state["you"] == before
    assert again.state["turn"] == turn
    again.send({"type": "play", "card": before["legal"][0]})
    assert again.next_state()["trick"][-1] == {"seat": turn, "card": before["legal"][0]}


def test_two_connections_of_one_player_stay_in_sync(client, table):
    code, peers = table
    turn = peers[0].state["turn"]
    twin = connect(client, code, peers[turn].token)
    card = twin.state["you"]["legal"][0]
    twin.send({"type": "play", "card": card})
    for peer in (twin, peers[turn]):
        state = peer.until(lambda s, c=card: c not in s["you"]["hand"])
        assert {"seat": turn, "card": card} in state["trick"] + state["previous_trick"]


def test_hello_must_come_first_and_tokens_must_belong_to_the_room(client):
    code, tokens = open_room(client, NAMES[:2])
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_json({"type": "start"})
        assert socket.receive_json()["code"] == "bad_request"
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_json({"type": "hello", "token": "not-a-token"})
        assert socket.receive_json()["code"] == "unknown_token"
    with client.websocket_connect("/api/rooms/NOPE2/ws") as socket:
        assert socket.receive_json()["code"] == "no_such_room"


def test_a_handshake_from_another_site_is_refused(client):
    code, _ = open_room(client, NAMES[:2])
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect), \
            client.websocket_connect(f"/api/rooms/{code}/ws", headers={"origin": "https://evil.example"}) as ws:
        ws.receive_json()
    with client.websocket_connect(f"/api/rooms/{code}/ws", headers={"origin": "http://testserver"}) as socket:
        socket.send_json({"type": "hello"})
        assert socket.receive_json()["type"] == "state"


@pytest.mark.parametrize("path", ["/api/rooms/{code}/ws", "/r/{code}/ws"])
def test_a_handshake_naming_another_site_only_in_its_referer_is_refused(client, path):
    # Judged as a form post is: without an Origin, the Referer says where it comes from.
    from starlette.websockets import WebSocketDisconnect

    code, _ = open_room(client, NAMES[:2])
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
            path.format(code=code), headers={"referer": "https://evil.example/page"}) as ws:
        ws.receive_json()
    for headers in ({"referer": f"http://testserver/r/{code}"}, {}):
        with client.websocket_connect(path.format(code=code), headers=headers) as socket:
            if path.startswith("/api/"):
                socket.send_json({"type": "hello"})
                assert socket.receive_json()["type"] == "state"
            else:
                assert socket.receive_text()


def test_versions_increase_and_every_state_is_complete(client, table):
    _, peers = table
    states = [m for m in peers[0].received if m["type"] == "state"]
    assert [m["version"] for m in states] == sorted({m["version"] for m in states})
    for message in states:
        assert {"phase", "rules", "seats", "dealer", "turn", "trick", "winners", "match_id", "you"} <= set(
            message["state"])
        json.dumps(message)


def test_every_seat_shows_its_player_id_and_each_player_knows_theirs(client):
    code, tokens = open_room(client, NAMES[:2])
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "add_bot", "strength": "easy"})
    state = ana.until(lambda s: len(s["seats"]) == 3)
    players = [seat["player"] for seat in state["seats"]]
    assert len(set(players)) == 3 and all(is_player_id(player) for player in players)
    assert state["you"]["player"] == players[0]
    assert ben.until_version(ana.version)["you"]["player"] == players[1]
    assert connect(client, code).state["you"] is None
    # A new "Ben" is a new player.
    ben.send({"type": "leave"})
    client.post(f"/api/rooms/{code}/players", json={"name": "Ben"})
    state = ana.until(lambda s: [seat["name"] for seat in s["seats"]] == ["Ana", "Easy bot 1", "Ben"])
    assert [seat["player"] for seat in state["seats"]][:2] == [players[0], players[2]]
    assert state["seats"][2]["player"] not in players


def seat_names(state: dict[str, Any]) -> list[str]:
    return [seat["name"] for seat in state["seats"]]


def test_a_double_remove_of_ben_removes_only_ben(client):
    code, tokens = open_room(client, NAMES)
    ana = connect(client, code, tokens[0])
    ben = ana.state["seats"][1]["player"]
    # Both clicks were sent before the first was carried out: the second finds Ben gone.
    ana.send({"type": "remove", "player": ben})
    ana.send({"type": "remove", "player": ben})
    assert ana.next_error()["code"] == "seat_changed"
    assert seat_names(ana.latest()) == ["Ana", "Cy", "Dag"]


def test_a_double_add_bot_with_the_seats_seen_seats_one_bot(client):
    code, tokens = open_room(client, ["Ana"])
    ana = connect(client, code, tokens[0])
    # Both clicks were sent before the first was carried out, each saying one seat was taken.
    ana.send({"type": "add_bot", "strength": "easy", "seats": 1})
    ana.send({"type": "add_bot", "strength": "easy", "seats": 1})
    assert ana.next_error()["code"] == "seat_changed"
    assert seat_names(ana.latest()) == ["Ana", "Easy bot 1"]
    ana.send({"type": "add_bot", "strength": "easy", "seats": 2})
    ana.until(lambda state: seat_names(state) == ["Ana", "Easy bot 1", "Easy bot 2"])


def ben_left(client) -> tuple[Connection, list[str]]:
    """Ana (host), Ben, Cy and Dag seated, then Ben leaves; returns Ana and the player ids as they were."""
    code, tokens = open_room(client, NAMES)
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    players = [seat["player"] for seat in ana.state["seats"]]
    ben.send({"type": "leave"})
    ana.until(lambda s: seat_names(s) == ["Ana", "Cy", "Dag"])
    return ana, players


def test_removing_a_player_who_left_meanwhile_is_refused_and_removes_nobody(client):
    ana, players = ben_left(client)
    before = ana.version
    ana.send({"type": "remove", "player": players[1]})
    error = ana.next_error()
    assert error["code"] == "seat_changed" and "nothing was done" in error["message"]
    assert_unchanged(ana, before)
    assert seat_names(ana.latest()) == ["Ana", "Cy", "Dag"]


def test_a_seat_and_a_player_must_still_go_together(client):
    ana, players = ben_left(client)
    ana.send({"type": "remove", "seat": 2, "player": players[2]})  # Cy has moved up to seat 1
    assert ana.next_error()["code"] == "seat_changed"
    ana.send({"type": "remove", "seat": 1, "player": players[2]})
    assert seat_names(ana.until(lambda s: len(s["seats"]) == 2)) == ["Ana", "Dag"]
    ana.send({"type": "remove", "seat": 1})  # the older form, a seat index alone, still works
    assert seat_names(ana.until(lambda s: len(s["seats"]) == 1)) == ["Ana"]


def test_a_play_for_a_moment_that_has_passed_is_refused(client, table):
    code, peers = table
    turn = peers[0].state["turn"]
    state = peers[turn].until_version(peers[0].version)
    moment = {"deal": state["deal"], "played": sum(len(s["played"]) for s in state["seats"]) + len(state["trick"])}
    twin = connect(client, code, peers[turn].token)
    first, second = state["you"]["legal"][0], state["you"]["hand"][-1]
    twin.send({"type": "play", "card": first, **moment})
    twin.until(lambda s, c=first: c not in s["you"]["hand"])
    peers[turn].send({"type": "play", "card": second, **moment})
    assert peers[turn].next_error()["code"] == "stale_play"
    assert second in peers[turn].latest()["you"]["hand"]


@pytest.mark.parametrize("frame", [
    '{"type": "set_clock", "seconds": 1099511627776}',
    '{"type": "set_clock", "seconds": "\\u0000"}',
    '{"type": "add_bot", "strength": "\\u0000"}',
    '{"type": "hand_to_bot", "seat": 1099511627776, "strength": "easy"}',
    '{"type": "set_rules", "rules": {"threshold": 1e400}}',
    '{"type": "set_rules", "rules": {"follow": "\\u0000"}}',
    '{"type": "remove_seat", "seat": -1099511627776}',
])
def test_host_messages_a_database_could_not_hold_are_refused_alike(make_client, empty_url, frame):
    client = make_client(database_url=empty_url)
    code, tokens = open_room(client, NAMES[:2])
    host = connect(client, code, tokens[0])
    before = host.version
    host.transport.socket.send_text(frame)
    assert host.next_error()["code"] not in ("storage_unavailable", "internal")
    assert_unchanged(host, before)
