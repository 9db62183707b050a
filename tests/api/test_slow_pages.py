""""Your tables" and the small read of one table it is built from: what each browser may learn of a table
(whose turn, the deadline, whether it is awaited), never a hand or a token, kept by nobody."""

from __future__ import annotations

import re

import anyio

from app.api.room_pages import translate_page_message
from app.wording.language import LANGUAGES, speaking, translations
from tests.api.conftest import connect, open_room


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

    ana = connect(client, code, tokens[0])
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


def slow_settings(page: str) -> str:
    """The slow table's settings region of a room page (empty when the page has none)."""
    start = page.find('<section id="slow"')
    return page[start:page.index("</section>", start)] if start >= 0 else ""


def test_a_slow_tables_page_offers_notifications_only_with_push_on_and_the_webhook_only_to_its_host(make_client):
    for push in (False, True):
        client = make_client(vapid_subject="mailto:ops@cucumber.cards" if push else None,
                             webhook_hosts="http://127.0.0.1:9/")
        code, (ana, ben) = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 24})
        host = connect(client, code, ana)
        host.send({"type": "set_webhook", "url": "http://127.0.0.1:9/api/webhooks/1/x"})
        host.latest()
        assert [m for m in host.received if m["type"] == "error"] == []
        seated(client, code, ana)
        region = slow_settings(client.get(f"/r/{code}").text)
        assert 'data-pace="24"' in region and 'data-seated="yes"' in region
        assert ('class="notify-button"' in region) is push
        if push:
            assert f'data-push-path="/r/{code}/push"' in region and 'data-key-path="/api/push/key"' in region
        assert 'name="from"' in region and 'name="days"' in region
        assert 'value="http://127.0.0.1:9/api/webhooks/1/x"' in region  # the host's own
        seated(client, code, ben)
        region = slow_settings(client.get(f"/r/{code}").text)
        assert 'name="from"' in region and "webhook" not in region and "127.0.0.1:9" not in region
        client.cookies.clear()
        watching = slow_settings(client.get(f"/r/{code}").text)
        assert 'data-pace="24"' in watching and 'data-seated' not in watching and 'name="from"' not in watching
        host.close()


def test_a_live_tables_page_has_no_slow_settings(client):
    code, (ana,) = open_room(client, ["Ana"])
    seated(client, code, ana)
    page = client.get(f"/r/{code}").text
    assert '<section id="slow" class="slow-settings" hx-swap-oob="true" hidden>' in page
    assert 'data-awake="match"' in page


def test_the_tables_vacation_form_sends_its_days_as_a_number():
    assert translate_page_message({"type": "set_vacation", "days": "3", "HEADERS": {}}) == {
        "type": "set_vacation", "days": 3}
    assert translate_page_message({"type": "set_vacation", "days": "three"})["days"] == "three"  # refused later


def test_a_slow_table_asleep_in_the_database_is_woken_by_its_read(client):
    code, (ana, ben) = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 24})
    host = connect(client, code, ana)
    host.send({"type": "start"})
    turn = host.until(lambda state: state["phase"] == "playing")["turn"]
    deadline = host.state["deadline"]
    host.close()
    registry = client.app.state.registry
    room = registry.get(code)
    asleep = False
    for _ in range(3000):  # the room stores its turn first; the connection's close is seen a moment later
        asleep = client.portal.call(registry.sleep, code, room)
        if asleep:
            break
        client.portal.call(anyio.sleep, 0.01)
    assert asleep and registry.get(code) is None
    seated(client, code, [ana, ben][turn])
    read = client.get(f"/r/{code}/turn").json()
    assert read["your_turn"] is True and read["deadline"] == deadline and read["pace"] == {"turn_hours": 24}
    assert registry.get(code) is not None
