"""Presence that tells the truth: heartbeats, silent pages, syncs, and closing for a restart."""

from __future__ import annotations

import time

from starlette.websockets import WebSocketDisconnect

from tests.api.conftest import connect, open_room


def page_socket(client, code, token):
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", token)
    return client.websocket_connect(f"/r/{code}/ws")


def test_a_page_that_stops_beating_is_closed_and_counted_gone_from_its_last_beat(make_client):
    client = make_client(away_grace_seconds=3.0, heartbeat_seconds=1.0)
    code, tokens = open_room(client, ["Ana", "Ben"])
    ben = connect(client, code, tokens[1])
    with page_socket(client, code, tokens[0]) as page:
        page.receive_text()
        assert ben.until(lambda s: s["seats"][0]["connected"])["seats"][0]["connected"]
        page.send_json({"type": "heartbeat"})
        beat = time.monotonic()
        # The page freezes (a back/forward cache, a hidden tab): no word for three beats.
        try:
            while True:
                page.receive_text()
        except WebSocketDisconnect as closed:
            assert closed.code == 4408
        assert time.monotonic() - beat < 6
    state = ben.until(lambda s: not s["seats"][0]["connected"])
    assert not state["seats"][0]["connected"]
    room = client.app.state.registry.get(code)
    gone = room.presence.absent_for(room.seats[0].token_hash, time.monotonic())
    assert gone >= time.monotonic() - beat - 0.5  # counted from the last beat, not from the close


def test_a_page_that_beats_stays_and_a_json_client_needs_no_beat(make_client):
    client = make_client(away_grace_seconds=3.0, heartbeat_seconds=1.0)
    code, tokens = open_room(client, ["Ana", "Ben"])
    ben = connect(client, code, tokens[1])
    with page_socket(client, code, tokens[0]) as page:
        page.receive_text()
        for _ in range(5):
            page.send_json({"type": "heartbeat"})
            time.sleep(0.5)
        page.send_json({"type": "sync"})
        assert 'id="seats"' in page.receive_text()
    # Ben never beat and is still there after several beats' time.
    assert client.app.state.registry.get(code).presence.absent_for(
        client.app.state.registry.get(code).seats[1].token_hash, time.monotonic()) is None
    ben.send({"type": "sync"})
    assert ben.next_state()["seats"][1]["connected"]


def test_a_sync_sends_the_whole_table_again_without_a_new_version(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    with page_socket(client, code, tokens[0]) as page:
        first = page.receive_text()
        page.send_json({"type": "sync"})
        again = page.receive_text()
        assert again == first and all(f'id="{region}"' in again for region in ("status", "seats", "hand", "rules"))
    peer = connect(client, code, tokens[1])
    first, version = peer.state, peer.version
    peer.send({"type": "sync"})
    assert peer.next_state() == first and peer.version == version


def test_the_match_id_is_in_the_state_from_the_start_and_a_play_for_another_match_is_stale(client):
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    assert state["match_id"]
    mover = [ana, ben][state["turn"]]
    mine = mover.until(lambda s: s["you"] is not None and s["you"]["legal"])
    mover.send({"type": "play", "card": mine["you"]["legal"][0], "match": "an-old-match"})
    assert mover.next_error()["code"] == "stale_play"
    mover.send({"type": "play", "card": mine["you"]["legal"][0], "match": state["match_id"], "deal": 1, "played": 0})
    assert mover.until(lambda s: len(s["trick"]) == 1)["match_id"] == state["match_id"]
