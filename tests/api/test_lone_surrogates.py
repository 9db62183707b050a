"""Half of a surrogate pair alone, sent as a JSON escape ("\\ud83d"), is text no UTF-8 frame or page can
hold: every way in refuses it, or finds nothing by it, and changes nothing."""

from __future__ import annotations

from typing import Any

from app.client import Connection
from tests.api.conftest import connect
from tests.api.test_chat import history, next_chat, next_page_line, nothing_came_before, page_frames, says, table

HALF_A_PAIR = r"hi \ud83d there"
"""The JSON text of a chat line with half of a surrogate pair alone in it."""


def test_a_chat_line_with_half_a_surrogate_pair_is_refused_and_reaches_no_one(client):
    code, tokens, players, spectator = table(client)
    ana, ben, _ = players
    with page_frames(client, code, lang="en", token=tokens[1]) as page:
        for sender in (ben, spectator):
            sender.transport.socket.send_text('{"type": "chat", "text": "' + HALF_A_PAIR + '"}')
        says(ana, "marker")
        for sender in (ben, spectator):
            error = until_marker(sender, "error")
            assert error["code"] == "malformed" and "surrogate" in error["message"]
        nothing_came_before([*players, spectator], "marker")
        assert "marker" in next_page_line(page)  # the page's socket is open, and got no line before it
    late = connect(client, code, tokens[2])
    assert [line.get("text") for line in history(late)["messages"]] == ["marker"]


def until_marker(peer: Connection, kind: str) -> dict[str, Any]:
    """The first message of type ``kind`` the peer gets before the chat line "marker" (which is left to read)."""
    for message in peer.received:
        if message["type"] == kind:
            return message
    while True:
        message = peer.receive()
        assert not (message["type"] == "chat" and message.get("text") == "marker"), f"no {kind} came first"
        if message["type"] == kind:
            return message


def test_a_page_sending_half_a_surrogate_pair_is_refused_and_keeps_its_socket(client):
    code, tokens, players, _ = table(client)
    with page_frames(client, code, lang="en", token=tokens[1]) as page:
        page.send_text('{"type": "chat", "text": "' + HALF_A_PAIR + '", "HEADERS": {}}')
        page.send_text('{"type": "chat", "text": "from the page", "HEADERS": {}}')
        frames = [page.receive_text()]
        while 'id="chat-log"' not in frames[-1]:
            frames.append(page.receive_text())
        assert "from the page" in frames[-1] and "there" not in frames[-1]
        assert any('id="flash"' in frame and "surrogate" in frame for frame in frames[:-1])
    assert next_chat(players[0])["text"] == "from the page"


def test_a_hello_whose_token_holds_half_a_surrogate_pair_is_refused(client):
    code, _, _, _ = table(client)
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_text(r'{"type": "hello", "token": "\ud800"}')
        assert socket.receive_json()["code"] == "malformed"


def test_a_seat_link_secret_holding_half_a_surrogate_pair_opens_nothing(client):
    code, _, _, _ = table(client)
    answer = client.post(f"/api/rooms/{code}/take", content=rb'{"secret": "\ud800"}',
                         headers={"content-type": "application/json"})
    assert (answer.status_code, answer.json()["error"]) == (404, "invalid_link")
