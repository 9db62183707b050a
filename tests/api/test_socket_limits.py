"""Per-connection message limits on both sockets: a flooder is refused, then closed with 1008,
while other rooms play on; a sync renders nothing again.

The allowances here are per hour, so that nothing refills while a test runs: every
outcome follows from the order of the messages, none from timing.
"""

from __future__ import annotations

import re

import pytest
from starlette.websockets import WebSocketDisconnect

from app.pages import table
from app.rooms.json_renderer import JsonRenderer
from tests.api.conftest import connect, open_room

ALLOWANCE = 5
TIGHT = {f"limit_socket_{kind}": f"{ALLOWANCE}/hour" for kind in ("syncs", "heartbeats", "other")}
FLOOD = 3 * ALLOWANCE + 1  # the allowance, twice as many refused, and the one that closes the socket


def limited_client(make_client, **overrides):
    return make_client(rate_limits=True, **{**TIGHT, **overrides})


def refused_code(frame: str) -> str | None:
    """The error code of a page's flash frame (``None`` for any other frame)."""
    found = re.match(r'<div id="flash"[^>]* data-code="([a-z_]+)"', frame)
    return found.group(1) if found else None


def close_code(socket) -> int:
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            socket.receive_text()
    return closed.value.code


def playing_room(client):
    """A room of two JSON players in a match, and the player whose turn it is, with a legal card."""
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    mover = [ana, ben][state["turn"]]
    return mover, mover.until(lambda s: bool(s["you"]["legal"]))


def test_a_page_flooding_syncs_is_refused_then_closed_while_another_room_plays(make_client, monkeypatch):
    client = limited_client(make_client)
    mover, state = playing_room(client)
    renders = []
    original = table.render_block
    monkeypatch.setattr(table, "render_block", lambda *args: renders.append(args) or original(*args))
    quiet, _ = open_room(client, ["Cy"])
    client.cookies.clear()
    with client.websocket_connect(f"/r/{quiet}/ws") as flooder:  # a spectator: no cookie
        whole = flooder.receive_text()
        rendered = len(renders)
        for _ in range(2 * ALLOWANCE):  # the allowance, and as many again refused
            flooder.send_json({"type": "sync"})
        # Meanwhile, in the other room, a card is played and everyone there sees it.
        card = state["you"]["legal"][0]
        mover.send({"type": "play", "card": card})
        assert mover.until(lambda s: [play["card"] for play in s["trick"]] == [card])
        for _ in range(FLOOD - 2 * ALLOWANCE):
            flooder.send_json({"type": "sync"})
        frames = [flooder.receive_text() for _ in range(FLOOD)]
        assert close_code(flooder) == 1008
    assert frames[:ALLOWANCE] == [whole] * ALLOWANCE  # a sync resends the whole table as it was
    assert [refused_code(frame) for frame in frames[ALLOWANCE:]] == ["rate_limited"] * (FLOOD - ALLOWANCE)
    assert "connection is closed" in frames[-1] and "closing" not in frames[-2]
    assert len(renders) == rendered  # the syncs rendered nothing again


@pytest.mark.parametrize(("message", "answer"), [
    ({"type": "heartbeat"}, None),
    ({"type": "dance"}, "unknown_type"),
    ({"type": "sync"}, "state"),
])
def test_a_json_client_flooding_one_kind_is_refused_then_closed(make_client, monkeypatch, message, answer):
    client = limited_client(make_client)
    renders = []
    original = JsonRenderer.render
    monkeypatch.setattr(JsonRenderer, "render", lambda self, *args: renders.append(args) or original(self, *args))
    code, _ = open_room(client, ["Ana"])
    with client.websocket_connect(f"/api/rooms/{code}/ws") as flooder:
        flooder.send_json({"type": "hello"})
        first = flooder.receive_json()
        assert flooder.receive_json()["type"] == "chat_history"  # the chat comes after the state
        rendered = len(renders)
        for _ in range(FLOOD):
            flooder.send_json(message)
        answers = [flooder.receive_json() for _ in range(FLOOD if answer else FLOOD - ALLOWANCE)]
        assert close_code(flooder) == 1008
    allowed = ALLOWANCE if answer else 0
    kinds = [reply.get("code", reply["type"]) for reply in answers]
    assert kinds == [answer] * allowed + ["rate_limited"] * (FLOOD - ALLOWANCE)
    if answer == "state":
        assert answers[:ALLOWANCE] == [first] * ALLOWANCE and len(renders) == rendered
    assert "connection is closed" in answers[-1]["message"]


def test_budgets_are_per_kind_and_per_connection(make_client):
    client = limited_client(make_client)
    code, tokens = open_room(client, ["Ana", "Ben"])
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    for _ in range(ALLOWANCE):
        ana.send({"type": "dance"})
    assert [ana.next_error()["code"] for _ in range(ALLOWANCE)] == ["unknown_type"] * ALLOWANCE
    ana.send({"type": "dance"})
    assert ana.next_error()["code"] == "rate_limited"
    assert ana.latest()["seats"][1]["connected"]  # syncs have their own budget
    ana.send({"type": "remove", "seat": 1})  # and host actions theirs: carried out
    assert len(ana.until(lambda s: len(s["seats"]) == 1)["seats"]) == 1
    ben.send({"type": "dance"})  # another connection has its own allowance
    assert ben.next_error()["code"] == "unknown_type"


def test_no_hard_cap_keeps_a_flooder_connected_and_refused(make_client):
    client = limited_client(make_client, socket_close_after=0)
    code, _ = open_room(client, ["Ana"])
    peer = connect(client, code)
    for _ in range(10 * ALLOWANCE):
        peer.send({"type": "dance"})
    codes = [peer.next_error()["code"] for _ in range(10 * ALLOWANCE)]
    assert codes == ["unknown_type"] * ALLOWANCE + ["rate_limited"] * 9 * ALLOWANCE
    assert peer.latest()["code"] == code  # still connected


def test_limits_off_let_every_message_through(make_client):
    client = make_client(rate_limits=False, **TIGHT)
    code, _ = open_room(client, ["Ana"])
    peer = connect(client, code)
    for _ in range(FLOOD):
        peer.send({"type": "dance"})
    assert {peer.next_error()["code"] for _ in range(FLOOD)} == {"unknown_type"}
