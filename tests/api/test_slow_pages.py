""""Your tables" and the small read of one table it is built from: what each browser may learn of a table
(whose turn, the deadline, whether it is awaited), never a hand or a token, kept by nobody."""

from __future__ import annotations

import re

from app.wording.language import LANGUAGES, speaking, translations
from tests.api.conftest import Peer, open_room


def said(code: str, message: str) -> str:
    with speaking(code):
        return translations(code).gettext(message)


def seated(client, code: str, token: str) -> None:
    """Give ``client`` the seat cookie of ``token`` at room ``code``, scoped as the server scopes it."""
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", token, domain="testserver.local", path=f"/r/{code}")


def test_the_tables_page_is_the_same_for_everyone_in_each_language_and_names_no_table(client):
    code, _ = open_room(client, ["Ana", "Ben"])
    for language in LANGUAGES:
        answer = client.get("/tables", headers={"Accept-Language": language})
        assert answer.status_code == 200
        assert answer.headers["cache-control"] == "public, max-age=30"
        assert answer.headers["vary"] == "Cookie, Accept-Language"
        page = answer.text
        assert f'<html lang="{language}"' in page
        assert f"<h1>{said(language, 'Your tables')}</h1>" in page
        assert 'data-turn-path="/r/CODE/turn"' in page and 'data-room-path="/r/CODE"' in page
        assert re.search(r'<script src="/static/tables\.(?:[^"./]+\.)?js" defer></script>', page)
        assert '<meta name="robots" content="noindex">' in page
        assert code not in page  # the list is the browser's own, made in the browser


def test_the_home_page_links_your_tables(client):
    assert '<a href="/tables">Your tables</a>' in client.get("/").text


def test_a_tables_read_says_whose_turn_and_whether_it_waits_for_this_browser_and_is_kept_by_nobody(client):
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    seated(client, code, tokens[0])
    lobby = client.get(f"/r/{code}/turn")
    assert lobby.status_code == 200
    assert lobby.headers["cache-control"] == "private, no-store"
    assert lobby.json() == {"code": code, "phase": "lobby", "pace": None, "deadline": None, "turn": None,
                            "seated": True, "your_turn": False}

    ana = Peer(client, code, tokens[0])
    ana.send({"type": "start"})
    turn = ana.until(lambda state: state["phase"] == "playing")["turn"]
    ana.close()
    names = ["Ana", "Ben"]
    for seat, token in enumerate(tokens):
        seated(client, code, token)
        read = client.get(f"/r/{code}/turn").json()
        assert read["phase"] == "playing" and read["turn"] == names[turn]
        assert read["seated"] is True and read["your_turn"] is (seat == turn)
        assert set(read) == {"code", "phase", "pace", "deadline", "turn", "seated", "your_turn"}
        assert token not in str(read)
    # A browser without a seat there learns only what everyone may.
    client.cookies.clear()
    stranger = client.get(f"/r/{code}/turn").json()
    assert stranger["seated"] is False and stranger["your_turn"] is False
    # Another room's cookie is not sent to this room's path, and is not taken for a seat here.
    other, other_tokens = open_room(client, ["Cy"])
    seated(client, other, other_tokens[0])
    assert client.get(f"/r/{code}/turn").json()["seated"] is False


def test_a_closed_or_unknown_table_reads_as_missing(client):
    answer = client.get("/r/ZZZZZ/turn")
    assert answer.status_code == 404
    assert answer.json()["error"] == "no_such_room"
    assert answer.headers["cache-control"] == "private, no-store"
