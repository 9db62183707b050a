"""The table chat over the JSON protocol and the page's socket: who may write, refusals, mutes, history."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.viewers import VIEWER_COOKIE, viewer_id
from app.client import Connection
from app.rooms.chat import HISTORY, REACTION_CODES, TEXT_LIMIT
from tests.api.conftest import connect, open_room, stop
from tests.api.test_protocol import card_codes, play_match

NAMES = ["Ana", "Ben", "Cy"]
SENDER_FIELDS = {"id", "name", "seat", "spectator", "host"}


def next_chat(peer: Connection) -> dict[str, Any]:
    """The next ``chat`` message the peer receives (states and the rest are read past)."""
    while True:
        message = peer.receive()
        if message["type"] == "chat":
            return message


def next_of(peer: Connection, kind: str) -> dict[str, Any]:
    """The next message of type ``kind``."""
    while True:
        message = peer.receive()
        if message["type"] == kind:
            return message


def history(peer: Connection) -> dict[str, Any]:
    """The ``chat_history`` that follows a connection's first state."""
    message = peer.receive()
    assert message["type"] == "chat_history", message
    return message


def says(peer: Connection, text: str) -> None:
    peer.send({"type": "chat", "text": text})


def table(client: TestClient, **body: Any) -> tuple[str, list[str], list[Connection], Connection]:
    """Ana (host), Ben and Cy seated and connected, and a spectator; each has read its chat history."""
    code, tokens = open_room(client, NAMES, **body)
    players = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    for peer in [*players, spectator]:
        history(peer)
    return code, tokens, players, spectator


def nothing_came_before(peers: list[Connection], marker: str) -> None:
    """Each peer's next chat line is ``marker`` (sent by the host after a refusal): the refused line
    reached no one."""
    for peer in peers:
        line = next_chat(peer)
        assert line.get("text") == marker, (line, peer.token)


def test_players_and_spectators_chat_and_everyone_in_the_room_gets_it(client):
    code, tokens, players, spectator = table(client)
    ana, ben, cy = players
    says(ben, "  hello   all \n ")
    seen = [next_chat(peer) for peer in [*players, spectator]]
    assert all(line == seen[0] for line in seen)
    line = seen[0]
    assert line["text"] == "hello all"
    assert line["from"] == {"id": ben.state["you"]["player"], "name": "Ben", "seat": 1, "spectator": False,
                            "host": False}
    says(spectator, "go Cy!")
    seen = [next_chat(peer) for peer in [*players, spectator]]
    assert all(line == seen[0] for line in seen)
    assert seen[0]["from"]["spectator"] is True and seen[0]["from"]["name"] is None
    assert seen[0]["from"]["seat"] is None and set(seen[0]["from"]) == SENDER_FIELDS
    assert seen[0]["id"] > line["id"]
    ana.send({"type": "react", "reaction": "well_played"})
    seen = [next_chat(peer) for peer in [*players, spectator]]
    assert seen[0] == {"type": "chat", "id": seen[0]["id"], "from": {**seen[0]["from"]}, "reaction": "well_played"}
    assert seen[0]["from"]["host"] is True and all(line == seen[0] for line in seen)


@pytest.mark.parametrize(("message", "code"), [
    ({"type": "chat", "text": "   \n\t "}, "chat_empty"),
    ({"type": "chat", "text": "x" * (TEXT_LIMIT + 1)}, "chat_too_long"),
    ({"type": "chat", "text": " " + "é" * TEXT_LIMIT + "ü"}, "chat_too_long"),
    ({"type": "chat", "text": 7}, "bad_request"),
    ({"type": "chat"}, "bad_request"),
    ({"type": "react", "reaction": "<b>boo</b>"}, "bad_request"),
])
def test_a_refused_line_gets_its_code_and_reaches_nobody(client, message, code):
    _, _, players, spectator = table(client)
    for sender in (players[1], spectator):
        sender.send(message)
        assert sender.next_error()["code"] == code
        says(players[0], f"after {code}")
        nothing_came_before([*players, spectator], f"after {code}")


def test_a_line_of_exactly_the_limit_is_sent_whole(client):
    _, _, players, spectator = table(client)
    says(players[1], "é" * TEXT_LIMIT)
    assert next_chat(spectator)["text"] == "é" * TEXT_LIMIT


def test_the_host_mutes_a_player_and_a_spectator_until_the_next_match(client):
    code, tokens, players, spectator = table(client, preset="quick", rules={"match_length": 1})
    ana, ben, cy = players
    # A mute made before a match lasts until it starts.
    ana.send({"type": "mute", "sender": cy.state["you"]["player"]})
    for peer in [*players, spectator]:
        assert next_of(peer, "chat_status")["muted"] == [cy.state["you"]["player"]]
    ana.send({"type": "start"})
    ana.until(lambda s: s["phase"] == "playing")
    says(cy, "free at the start")
    assert next_chat(ana)["text"] == "free at the start"

    says(spectator, "first")
    spectator_id = next_chat(ana)["from"]["id"]
    ben_id = ben.state["you"]["player"]
    ana.send({"type": "mute", "sender": ben_id})
    for peer in [*players, spectator]:
        assert next_of(peer, "chat_status") == {"type": "chat_status", "spectator_chat": True, "muted": [ben_id]}
    ana.send({"type": "mute", "sender": spectator_id})
    for peer in [*players, spectator]:
        assert next_of(peer, "chat_status")["muted"] == [ben_id, spectator_id]
    for sender, message in [(ben, {"type": "chat", "text": "let me talk"}),
                            (ben, {"type": "react", "reaction": "oops"}),
                            (spectator, {"type": "chat", "text": "me too"})]:
        sender.send(message)
        error = sender.next_error()
        assert error["code"] == "muted" and "host" in error["message"]
        says(ana, "marker")
        nothing_came_before([*players, spectator], "marker")
    says(cy, "Cy may")
    assert next_chat(ben)["text"] == "Cy may"

    # A mute made during a match lasts through it and after it; starting the next one clears it.
    play_match(players, spectator, random.Random(3))
    says(ben, "still muted?")
    assert ben.next_error()["code"] == "muted"
    ana.send({"type": "start"})
    ana.until(lambda s: s["phase"] == "playing")
    says(ben, "free again")
    assert next_chat(spectator)["text"] == "free again"
    assert next_chat(ben)["text"] == "free again"
    says(spectator, "me too")
    assert next_chat(ben)["text"] == "me too"


def test_only_the_host_mutes_or_switches_spectator_chat(client):
    _, _, players, spectator = table(client)
    ana, ben, cy = players
    for sender in (ben, spectator):
        sender.send({"type": "mute", "sender": cy.state["you"]["player"]})
        assert sender.next_error()["code"] == "not_host"
        sender.send({"type": "spectator_chat", "on": False})
        assert sender.next_error()["code"] == "not_host"
    says(cy, "not muted")
    assert next_chat(ana)["text"] == "not muted"
    ana.send({"type": "mute", "sender": "2222222222"})
    assert ana.next_error()["code"] == "unknown_sender"
    ana.send({"type": "mute", "sender": ana.state["you"]["player"]})
    assert ana.next_error()["code"] == "bad_request"
    ana.send({"type": "mute", "sender": "<script>"})
    assert ana.next_error()["code"] == "bad_request"
    ana.send({"type": "spectator_chat", "on": "no"})
    assert ana.next_error()["code"] == "bad_request"


def test_the_host_turns_spectator_chat_off_and_on(client):
    _, _, players, spectator = table(client)
    ana, ben, _ = players
    ana.send({"type": "spectator_chat", "on": False})
    for peer in [*players, spectator]:
        assert next_of(peer, "chat_status") == {"type": "chat_status", "spectator_chat": False, "muted": []}
    says(spectator, "hello?")
    assert spectator.next_error()["code"] == "spectator_chat_off"
    spectator.send({"type": "react", "reaction": "sad"})
    assert spectator.next_error()["code"] == "spectator_chat_off"
    says(ben, "players still talk")
    nothing_came_before([*players, spectator], "players still talk")
    ana.send({"type": "spectator_chat", "on": True})
    assert next_of(spectator, "chat_status")["spectator_chat"] is True
    says(spectator, "thanks")
    assert next_chat(ben)["text"] == "thanks"


def test_a_host_without_a_seat_chats_as_a_spectator_and_is_never_switched_off(client):
    code, tokens = open_room(client, NAMES[:2])
    host = connect(client, code, tokens[0])
    host.send({"type": "leave"})
    host.until(lambda s: len(s["seats"]) == 1)
    ben = connect(client, code, tokens[1])
    history(ben)
    host.send({"type": "spectator_chat", "on": False})
    says(host, "still here")
    line = next_chat(ben)
    assert line["from"]["spectator"] is True and line["from"]["host"] is True and line["text"] == "still here"


def test_a_connection_whose_seat_was_freed_is_not_in_the_room(client):
    _, _, players, spectator = table(client)
    ana, ben, _ = players
    ana.send({"type": "remove", "player": ben.state["you"]["player"]})
    ben.until(lambda s: len(s["seats"]) == 2)
    says(ben, "but I was here")
    assert ben.next_error()["code"] == "not_in_room"
    says(ana, "marker")
    nothing_came_before([ana, spectator], "marker")


def test_too_fast_is_rate_limited_per_sender_without_closing(make_client):
    client = make_client(rate_limits=True, limit_chat="3/minute")
    _, tokens, players, spectator = table(client)
    ana, ben, _ = players
    second_tab = connect(client, str(ben.state["code"]), ben.token)
    history(second_tab)
    for number in range(3):
        says(ben if number % 2 == 0 else second_tab, f"line {number}")  # one sender, two tabs
    for peer in [*players, second_tab, spectator]:
        assert [next_chat(peer)["text"] for _ in range(3)] == ["line 0", "line 1", "line 2"]
    for tab in (ben, second_tab):
        says(tab, "one too many")
        error = tab.next_error()
        assert error["code"] == "rate_limited" and "too fast" in error["message"]
    says(ana, "others may still write")  # the limit is the sender's, not the address's
    nothing_came_before([*players, spectator], "others may still write")
    assert ben.latest()["phase"] == "lobby" and not ben.closed  # the connection is still open


def test_the_last_fifty_lines_come_after_the_state_on_every_connect(client):
    code, tokens, players, spectator = table(client)
    ana = players[0]
    for number in range(HISTORY + 5):
        says(ana, f"line {number}")
    for number in range(HISTORY + 5):
        assert next_chat(spectator)["text"] == f"line {number}"
    late = connect(client, code)
    kept = history(late)
    assert [line["text"] for line in kept["messages"]] == [f"line {n}" for n in range(5, HISTORY + 5)]
    assert kept["spectator_chat"] is True and kept["muted"] == []
    assert late.received[0]["type"] == "state"
    ana.close()
    again = connect(client, code, tokens[0])
    assert history(again)["messages"] == kept["messages"]


def test_the_chat_never_carries_anything_of_a_hand(client):
    code, tokens, players, spectator = table(client, preset="quick")
    ana, ben, cy = players
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    hands = set()
    for peer in players:
        hands |= set(peer.until_version(ana.version)["you"]["hand"])
    for peer, reaction in zip(players, REACTION_CODES, strict=False):
        says(peer, "good luck everyone")
        peer.send({"type": "react", "reaction": reaction})
    says(spectator, "watching")
    late = connect(client, code)
    history(late)
    play_match(players, spectator, random.Random(5))
    for peer in [*players, spectator, late]:
        chat = [message for message in peer.received if message["type"].startswith("chat")]
        assert chat, peer.token
        for message in chat:
            assert not card_codes(message) & hands, message
            for line in message.get("messages", [message]) if message["type"] != "chat_status" else []:
                assert set(line["from"]) == SENDER_FIELDS and set(line) <= {"type", "id", "from", "text",
                                                                             "reaction"}
    assert state["phase"] == "playing"


def test_the_chat_is_not_stored_with_the_match(make_client, tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    client = make_client(url)
    code, tokens, players, spectator = table(client, preset="quick", rules={"match_length": 1})
    ana = players[0]
    ana.send({"type": "start"})
    says(ana, "zanzibar quokka")
    ana.send({"type": "react", "reaction": "good_luck"})
    final = play_match(players, spectator, random.Random(11))
    says(players[1], "xylophone marmot")
    next_chat(spectator)
    record = client.get(f"/api/matches/{final['match_id']}/record").text
    with sqlite3.connect(tmp_path / "chat.db") as database:
        stored = "\n".join(database.iterdump())
    for text in ("zanzibar", "xylophone", "good_luck"):
        assert text not in record and text not in stored
    assert "Ana" in stored  # the dump holds the room and its match


def test_chat_history_and_mutes_are_gone_after_a_restart(make_client, tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'restart.db'}"
    first = make_client(url)
    code, tokens, players, spectator = table(first, preset="quick")
    ana, ben, _ = players
    ana.send({"type": "start"})
    ana.until(lambda s: s["phase"] == "playing")
    says(ana, "before the restart")
    ana.send({"type": "mute", "sender": ben.state["you"]["player"]})
    next_of(ben, "chat_status")
    stop(first)

    second = make_client(url)
    ben = connect(second, code, tokens[1])
    kept = history(ben)
    assert kept["messages"] == [] and kept["muted"] == [] and ben.state["phase"] == "playing"
    says(ben, "after the restart")
    assert next_chat(ben)["text"] == "after the restart"


# ---------------------------------------------------------------------- the page's socket


def page_frames(client: TestClient, code: str, *, lang: str, viewer: str | None = None,
                token: str | None = None) -> Any:
    """A page socket of ``client`` in language ``lang``, with the viewer and player cookies given."""
    client.cookies.clear()
    client.cookies.set("cucumber_lang", lang)
    if viewer:
        client.cookies.set(VIEWER_COOKIE, viewer)
    if token:
        client.cookies.set(f"cucumber_{code}", token)
    return client.websocket_connect(f"/r/{code}/ws")


def next_page_line(socket: Any) -> str:
    """The next frame that appends a chat line."""
    while True:
        frame = socket.receive_text()
        if 'id="chat-log"' in frame:
            return frame


def test_page_viewers_read_reactions_in_their_language_and_markup_as_text(client):
    code, tokens, players, spectator = table(client)
    ana = players[0]
    with page_frames(client, code, lang="da", viewer="secret-da") as danish, \
            page_frames(client, code, lang="it", viewer="secret-it") as italian:
        ana.send({"type": "react", "reaction": "well_played"})
        assert "Godt spillet!" in next_page_line(danish)
        assert "Ben giocato!" in next_page_line(italian)
        ana.send({"type": "react", "reaction": "thumbs_up"})
        assert 'aria-label="tommel op"' in next_page_line(danish) and "👍" in next_page_line(italian)
        says(ana, '<b>x</b> <script>alert(1)</script> https://example.org/')
        frame = next_page_line(danish)
        assert "&lt;b&gt;x&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;" in frame
        assert "<b>" not in frame and "<script" not in frame and "href" not in frame
        assert 'hx-swap-oob="beforeend"' in frame
    assert next_chat(spectator)["reaction"] == "well_played"  # JSON readers get the code


def test_a_page_spectator_keeps_its_id_and_its_mute_across_a_reconnect(client):
    code, tokens, players, spectator = table(client)
    ana = players[0]
    with page_frames(client, code, lang="en", viewer="browser-one") as page:
        page.send_json({"type": "chat", "text": "from the page", "HEADERS": {}})
        assert "from the page" in next_page_line(page)
    line = next_chat(ana)
    assert next_chat(spectator) == line
    assert line["from"]["id"] == viewer_id("browser-one") and line["from"]["spectator"] is True
    ana.send({"type": "mute", "sender": line["from"]["id"]})
    next_of(ana, "chat_status")
    with page_frames(client, code, lang="de", viewer="browser-one") as page:
        welcome = ""
        while 'id="chat-log"' not in welcome:
            welcome = page.receive_text()
        assert "from the page" in welcome and 'hx-swap-oob="true"' in welcome  # the list, whole
        page.send_json({"type": "chat", "text": "again", "HEADERS": {}})
        frame = page.receive_text()
        while 'id="flash"' not in frame:
            frame = page.receive_text()
        assert 'data-code="muted"' in frame and "stummgeschaltet" in frame
    says(ana, "marker")
    assert next_chat(spectator)["text"] == "marker"


def test_the_room_page_gives_a_browser_its_viewer_cookie_once(client):
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    first = client.get(f"/r/{code}")
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{VIEWER_COOKIE}=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    again = client.get(f"/r/{code}")
    assert VIEWER_COOKIE not in again.headers.get("set-cookie", "")
    assert 'id="chat-log"' in first.text and 'role="log"' in first.text and 'aria-live="polite"' in first.text


def test_the_host_page_gets_its_controls_and_others_do_not(client):
    code, tokens, players, spectator = table(client)
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    host_page = client.get(f"/r/{code}").text
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[1])
    ben_page = client.get(f"/r/{code}").text
    assert "Turn spectator chat off" in host_page and "chat-host" in host_page
    assert "Turn spectator chat off" not in ben_page and "chat-host" not in ben_page
