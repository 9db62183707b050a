"""The visitor's language: chosen by the switcher or the browser, kept in a cookie, spoken by every page,
the table's socket and the JSON API, each reader in their own."""

from __future__ import annotations

import json

import pytest

from app.api.language import LANGUAGE_COOKIE, local_path
from app.wording.errors import request_problems
from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, speaking
from tests.api.conftest import connect, open_room
from tests.words import english_left, readable

NAMES = ("Ana", "Ben", "Cy")


def finished_match(client):
    """Two bots play a short match to the end in a room Ana hosts; returns the room code and the match id."""
    code, tokens = open_room(client, ["Ana"], preset="quick")
    host = connect(client, code, tokens[0])
    for strength in ("easy", "normal"):
        host.send({"type": "add_bot", "strength": strength})
    host.send({"type": "leave"})
    host.send({"type": "start"})
    final = host.until(lambda s: s["phase"] == "finished")
    host.close()
    return code, final["match_id"]


def pages(client, code, match_id):
    """Every page of the site, as a browser with cookies (the host of room ``code``) sees it."""
    return {
        "home": client.get("/"),
        "rules": client.get("/rules"),
        "matches": client.get("/matches"),
        "empty page of matches": client.get("/matches?page=9"),
        "match": client.get(f"/matches/{match_id}"),
        "no such match": client.get("/matches/zzzzzzzzzzzz"),
        "room after the match": client.get(f"/r/{code}"),
        "no such room": client.get("/r/ZZZZZ"),
        "home with an error": client.post("/rooms", data={"name": " ", "preset": "agurk"}),
        "refused": client.post("/rooms", data={"name": "X"}, headers={"Origin": "https://elsewhere.example"}),
    }


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_every_page_speaks_the_visitors_language(client, code):
    room, match_id = finished_match(client)
    client.cookies.set(LANGUAGE_COOKIE, code)
    for name, answer in pages(client, room, match_id).items():
        assert f'<html lang="{code}" dir="ltr">' in answer.text, name
        assert f'<option value="{code}" lang="{code}" selected>' in answer.text, name  # the switcher
        if code != DEFAULT_LANGUAGE:
            assert english_left(answer.text, names=NAMES) == [], (name, readable(answer.text))


def test_the_english_pages_say_what_the_word_check_looks_for(client):
    room, match_id = finished_match(client)
    seen = set()
    for answer in pages(client, room, match_id).values():
        seen.update(english_left(answer.text, names=NAMES))
    assert {"past", "matches", "rules", "replay", "table", "threshold", "easy"} <= seen


def test_the_replay_and_the_history_name_bots_in_the_readers_language(client):
    room, match_id = finished_match(client)
    client.cookies.set(LANGUAGE_COOKIE, "sv")
    page = client.get(f"/matches/{match_id}").text
    data = json.loads(page.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    assert data["players"] == ["Lätt bot 1", "Normal bot 1"]
    assert data["cards"]["AS"] == {"rank": "E", "suit": "♠", "name": "Spader ess"}
    assert "Lätt bot 1" in client.get("/matches").text
    record = client.get(f"/api/matches/{match_id}/record").json()
    assert record["players"] == ["Easy bot 1", "Normal bot 1"]  # the record keeps the names as stored


@pytest.mark.parametrize(("header", "code"), [("da-DK,da;q=0.9,en;q=0.8", "da"), ("pt-BR,it;q=0.5", "it"),
                                              ("fr-FR", "en"), (None, "en")])
def test_a_first_visit_speaks_the_browsers_language(client, header, code):
    headers = {"Accept-Language": header} if header else {}
    assert f'<html lang="{code}"' in client.get("/", headers=headers).text


def test_the_switcher_keeps_the_choice_in_a_cookie_that_beats_the_browser(client):
    answer = client.post("/language", data={"lang": "sv", "next": "/rules?x=1"}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/rules?x=1"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{LANGUAGE_COOKIE}=sv;") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    page = client.get("/rules", headers={"Accept-Language": "de"})
    assert '<html lang="sv"' in page.text and "Så spelar man" in page.text
    assert '<input type="hidden" name="next" value="/rules">' in page.text


def test_the_switcher_ignores_a_language_not_spoken_here(client):
    answer = client.post("/language", data={"lang": "fr", "next": "/"}, follow_redirects=False)
    assert answer.status_code == 303 and "set-cookie" not in answer.headers


@pytest.mark.parametrize(("target", "safe"), [
    ("/r/K7QXM", "/r/K7QXM"), ("/matches?page=2", "/matches?page=2"), ("https://evil.example/", "/"),
    ("//evil.example/x", "/"), ("/\\evil.example", "/"), ("javascript:alert(1)", "/"), ("", "/"),
    ("/r/x\ny", "/"), ("r/K7QXM", "/"),
])
def test_the_switcher_goes_back_only_to_a_page_of_this_site(client, target, safe):
    assert local_path(target) == safe
    answer = client.post("/language", data={"lang": "de", "next": target}, follow_redirects=False)
    assert answer.headers["location"] == safe


def test_the_switcher_refuses_a_post_from_another_site(client):
    answer = client.post("/language", data={"lang": "de", "next": "/"}, headers={"Origin": "https://evil.example"},
                         follow_redirects=False)
    assert answer.status_code == 403 and "set-cookie" not in answer.headers


def test_the_switcher_on_a_forms_answer_returns_to_the_page_the_form_was_on(client):
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    page = client.post(f"/r/{code}/join", data={"name": " "}, headers={"Referer": f"http://testserver/r/{code}"})
    assert page.status_code == 422
    assert f'<input type="hidden" name="next" value="/r/{code}">' in page.text
    elsewhere = client.post("/rooms", data={"name": " "}, headers={"Referer": "https://evil.example/r/X"})
    assert '<input type="hidden" name="next" value="/">' in elsewhere.text


def test_the_json_api_speaks_accept_language_and_keeps_its_codes(client):
    answer = client.post("/api/rooms/ZZZZZ/players", json={"name": "Ana"}, headers={"Accept-Language": "de"})
    assert answer.json() == {"error": "no_such_room",
                             "message": "es gibt keinen Tisch mit diesem Code (vielleicht wurde er geschlossen)"}
    client.cookies.set(LANGUAGE_COOKIE, "da")  # the page's cookie is not the API's business
    answer = client.post("/api/rooms", json={"name": " "})
    assert answer.json() == {"error": "invalid_name", "message": "enter a name"}
    bad_rules = client.post("/api/rooms", json={"name": "Ana", "rules": {"threshold": 200}},
                            headers={"Accept-Language": "it"})
    assert bad_rules.json()["error"] == "invalid_rules"
    assert bad_rules.json()["message"] == "threshold deve essere un numero intero da 10 a 100, non 200"


def test_each_protocol_client_reads_in_the_language_of_its_hello(client):
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, ben, watcher = connect(client, code, tokens[0], lang="sv"), connect(client, code, tokens[1], lang="es-ES"), \
        connect(client, code)
    assert ana.state["rules_text"][0] == "3 kort var; bara sista sticket ger poäng."
    assert ben.state["rules_text"][0] == "3 cartas por jugador; solo puntúa la última baza."
    assert watcher.state["rules_text"][0] == "3 cards each; only the last trick scores."
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    waiting = [ana, ben][1 - state["turn"]]
    mine = waiting.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    card = mine["you"]["hand"][0]
    waiting.send({"type": "play", "card": card})
    error = waiting.next_error()
    assert error["code"] == "not_your_turn"
    assert mine["you"]["reasons"][card] == {ana: "vänta på din tur", ben: "espera tu turno"}[waiting]
    assert error["message"] == {ana: "det är Bens tur", ben: "le toca a Ana"}[waiting]
    for peer in (ana, ben, watcher):
        peer.close()


def test_the_table_page_and_its_socket_speak_the_cookies_language(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    client.cookies.set(LANGUAGE_COOKIE, "da")
    assert "Venter på spillere" in client.get(f"/r/{code}").text
    headers = {"HX-Request": "true", "HX-Trigger": None}
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        first = socket.receive_text()
        assert "Venter på spillere" in first and english_left(first, names=NAMES) == []
        socket.send_json({"type": "set_clock", "seconds": "30", "HEADERS": headers})
        assert "Betænkningstid: 30 sekunder pr. tur" in socket.receive_text()
        socket.send_json({"type": "set_rules", "preset": "custom", "hand_size": "9", "HEADERS": headers})
        flash = socket.receive_text()
        assert 'id="flash"' in flash and 'data-code="invalid_rules"' in flash
        assert "hand_size skal være et helt tal fra 3 til 7, ikke 9" in flash


@pytest.mark.parametrize(("request_", "english", "german"), [
    ({"json": {"name": "Ana", "preset": 5}}, "preset does not have a value of the right kind",
     "preset hat keinen Wert der richtigen Art"),
    ({"json": {"name": "Ana", "extra": 1}}, "extra is not a field of this request",
     "extra ist kein Feld dieser Anfrage"),
    ({"json": ["Ana"]}, "the request's body must be a JSON object", "der Inhalt der Anfrage muss ein JSON-Objekt sein"),
    ({"content": "{", "headers": {"content-type": "application/json"}}, "the request's body is not valid JSON",
     "der Inhalt der Anfrage ist kein gültiges JSON"),
])
def test_a_request_that_does_not_fit_its_route_is_refused_in_the_readers_language(client, request_, english, german):
    for language, words in (("en", english), ("de", german)):
        headers = {**request_.get("headers", {}), "Accept-Language": language}
        answer = client.post("/api/rooms", **{**request_, "headers": headers})
        assert answer.status_code == 422
        assert answer.json() == {"error": "bad_request", "message": words}


def test_each_fault_of_a_request_is_named_once_with_its_field():
    faults = [{"type": "missing", "loc": ("body", "name")}, {"type": "int_parsing", "loc": ("query", "page")},
              {"type": "int_parsing", "loc": ("query", "page")}, {"type": "dict_type", "loc": ("body",)},
              {"type": "json_invalid", "loc": ("body", 1)}]
    with speaking("sv"):
        assert [str(fault) for fault in request_problems(faults)] == [
            "name saknas", "page har inte ett värde av rätt slag", "page har inte ett värde av rätt slag",
            "förfrågans innehåll måste vara ett JSON-objekt", "förfrågans innehåll är inte giltig JSON"]
