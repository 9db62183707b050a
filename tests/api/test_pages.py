"""The HTML pages: home, a room for a player and for a spectator, rules and history."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

from app.bots.strength import BotStrength
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS
from app.pages.assets import ASSETS
from app.rooms.schedule import STAND_IN
from app.wording import card_name
from tests.api.conftest import connect, open_room


def element(page: str, tag: str, element_id: str) -> str:
    """The first ``<tag id="element_id">…</tag>`` of ``page``, whole (its first closing tag of that name ends it)."""
    found = re.search(rf'<{tag} id="{element_id}".*?</{tag}>', page, re.S)
    assert found is not None, f"no <{tag} id={element_id!r}> in the page"
    return found.group(0)


def test_the_home_page_offers_every_preset_and_every_option(client):
    page = client.get("/")
    assert page.status_code == 200
    for preset in ["agurk", "gurka", "parlett", "quick"]:
        assert f'value="{preset}"' in page.text
    for option in ["hand_size", "follow", "ace_lead", "last_trick_tie", "threshold", "lives",
                   "second_life_min_opponents", "penalty_to", "match_length"]:
        assert f'name="{option}"' in page.text
    assert re.search(r'<script src="https://cdn\.jsdelivr\.net/npm/htmx\.org@2\.[^"]+" integrity="sha384-', page.text)


def test_opening_a_table_from_the_form_seats_you_and_goes_to_the_room(client):
    answer = client.post("/rooms", data={"name": "Ana", "preset": "custom", "hand_size": "4", "follow": "must_match",
                                         "ace_lead": "ordinary", "last_trick_tie": "all_tied", "threshold": "40",
                                         "lives": "3", "second_life_min_opponents": "1", "penalty_to": "highest",
                                         "match_length": "5"}, follow_redirects=False)
    assert answer.status_code == 303
    code = answer.headers["location"].rsplit("/", 1)[1]
    rules = client.get(f"/api/rooms/{code}").json()["state"]["rules"]
    assert rules == {"hand_size": 4, "follow": "must_match", "ace_lead": "ordinary", "last_trick_tie": "all_tied",
                     "threshold": 40, "lives": 3, "second_life_min_opponents": 1, "penalty_to": "highest",
                     "match_length": 5}
    page = client.get(answer.headers["location"])
    assert page.status_code == 200 and "Start the match" in page.text


def test_the_host_may_add_a_bot_of_every_strength_the_stand_in_first(client):
    code, _ = open_room(client, ["Host"])  # the client keeps the host's cookie
    page = client.get(f"/r/{code}")
    choices = re.search(r'<select name="strength">(.*?)</select>', page.text).group(1)
    assert re.findall(r'<option value="(\w+)"', choices) == list(BotStrength)
    assert f'<option value="{STAND_IN}" selected>' in choices


def test_a_bad_name_on_the_home_form_shows_the_error(client):
    answer = client.post("/rooms", data={"name": " ", "preset": "agurk"})
    assert answer.status_code == 422 and "enter a name" in answer.text


def started_room(client):
    code, tokens = open_room(client, ["Ana", "Ben", "Cy"])
    host = connect(client, code, tokens[0])
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    return code, tokens


def test_the_table_page_shows_a_player_their_hand_with_the_legal_cards_playable(client):
    code, tokens = started_room(client)
    room = client.app.state.registry.get(code)
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[room.match.turn])
    page = client.get(f"/r/{code}").text
    hand = room.match.hand(room.match.turn)
    legal = room.match.legal_cards(room.match.turn)
    for card in hand:
        assert f'data-card="{card.code}"' in page
    assert page.count('class="card-button playable"') == len(legal)
    # The name is words inside the button, beside the corner it reads out ("7♥"), not an aria-label
    # that would hide the visible text from the name (WCAG 2.5.3).
    assert f'data-card="{legal[0].code}"><span class="visually-hidden">{card_name(legal[0])}, playable</span>' in page
    assert not re.search(r'<button[^>]*card-button[^>]*aria-label', page)
    # A playable card names itself; the hand around it names the state the play is aimed at.
    assert (f'<div class="hand-cards" hx-vals=\'{{"match": "{room.current.match_id}", "deal": 1, "played": 0}}\'>'
            in page)
    assert f'hx-vals=\'{{"type": "play", "card": "{legal[0].code}"}}\'' in page


def test_a_spectator_page_holds_no_hand(client):
    code, _ = started_room(client)
    client.cookies.clear()
    page = client.get(f"/r/{code}").text
    room = client.app.state.registry.get(code)
    assert "card-button" not in page
    for seat in range(3):
        for card in room.match.hand(seat):  # none of these is face up yet
            assert f'data-card="{card.code}"' not in page and card_name(card) not in page
    assert "You are watching" in page


def test_every_seat_on_the_page_carries_its_player_id(client):
    code, _ = started_room(client)
    page = client.get(f"/r/{code}").text
    for seat in client.app.state.registry.get(code).seats:
        assert f'data-player="{seat.player}"' in page


def test_names_are_escaped_everywhere(client):
    code, tokens = open_room(client, ["<b onclick=x>", "<script>y"])
    page = client.get(f"/r/{code}").text
    assert "<b onclick=x>" not in page and "<script>y" not in page
    assert "&lt;b onclick=x&gt;" in page


def test_an_unknown_room_page_is_404(client):
    assert client.get("/r/ZZZZZ").status_code == 404


def test_rules_and_history_pages_render(client):
    rules = client.get("/rules")
    assert rules.status_code == 200 and "9" in rules.text and "worked example" in rules.text.lower()
    assert client.get("/matches").status_code == 200
    assert client.get("/matches/nosuchmatch").status_code == 404


def test_the_page_socket_takes_the_forms_of_the_table(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    headers = {"HX-Request": "true", "HX-Trigger": None}
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        first = socket.receive_text()
        assert 'id="seats"' in first and 'id="rules"' in first
        socket.send_json({"type": "set_clock", "seconds": "30", "HEADERS": headers})
        assert "Turn clock: 30 seconds a turn" in socket.receive_text()
        socket.send_json({"type": "set_rules", "preset": "custom", "hand_size": "4", "follow": "must_match",
                          "ace_lead": "ordinary", "last_trick_tie": "last_played", "threshold": "25",
                          "lives": "1", "second_life_min_opponents": "1", "penalty_to": "highest",
                          "match_length": "elimination", "HEADERS": headers})
        update = socket.receive_text()
        assert "4 cards each" in update and "Reaching 25 points" in update
        socket.send_json({"type": "set_rules", "preset": "custom", "hand_size": "9", "HEADERS": headers})
        error = socket.receive_text()
        assert 'id="flash"' in error and "hand_size" in error
    rules = client.get(f"/api/rooms/{code}").json()["state"]["rules"]
    assert rules["hand_size"] == 4 and rules["threshold"] == 25


def bots_play_a_match(client):
    """A quick match of two bots, the host watching; returns the room's code and its final state."""
    code, tokens = open_room(client, ["Host"], preset="quick")
    host = connect(client, code, tokens[0])
    for strength in ["easy", "normal"]:
        host.send({"type": "add_bot", "strength": strength})
    host.send({"type": "leave"})
    host.send({"type": "start"})
    return code, host.until(lambda s: s["phase"] == "finished")


def test_a_finished_match_is_listed_and_its_replay_page_has_every_deal(client):
    import json as jsonlib

    code, final = bots_play_a_match(client)
    match_id = final["match_id"]
    listing = client.get("/matches")
    assert listing.status_code == 200 and f"/matches/{match_id}" in listing.text
    assert client.get("/api/matches").json()["matches"][0]["id"] == match_id
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    record = client.get(f"/api/matches/{match_id}/record").json()
    data = jsonlib.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>',
                                   page.text, re.S).group(1))
    assert len(data["deals"]) == len(record["deals"])
    for shown, stored in zip(data["deals"], record["deals"]):
        assert [sorted(hand) for hand in shown["hands"]] == [sorted(hand) for hand in stored["hands"]]
        assert [card for trick in shown["tricks"] for _, card in trick["plays"]] == stored["plays"]
    assert page.text.count("<tr><th scope=\"row\">") >= len(record["deals"])
    assert f'/api/matches/{match_id}/record" download' in page.text


def test_someone_who_sits_down_after_a_match_finished_is_not_in_its_score_sheet_or_standings(client):
    code, _ = bots_play_a_match(client)
    client.cookies.clear()
    assert client.post(f"/r/{code}/join", data={"name": "Dag"}, follow_redirects=False).status_code == 303
    page = client.get(f"/r/{code}").text
    sheet = element(page, "section", "scoresheet")
    heading = re.search(r"<thead>(.*?)</thead>", sheet, re.S).group(1)
    assert heading.count("<th") == 3 and "Dag" not in heading  # the deal, then the two who played
    first_line = re.search(r'<tr data-deal="1">(.*?)</tr>', sheet, re.S).group(1)
    assert first_line.count("<td") == 2
    newcomer = element(page, "article", "seat-2")
    assert "Dag" in newcomer and 'class="stats"' not in newcomer and 'class="lives"' not in newcomer
    played = element(page, "article", "seat-1")
    assert 'class="stats"' in played


def test_odd_page_numbers_and_form_numbers_are_handled(client):
    for page in ["0", "-3", "abc", "99999999999999999999", "²"]:
        answer = client.get(f"/matches?page={page}")
        assert answer.status_code == 200 and "text/html" in answer.headers["content-type"]
    assert client.get("/api/matches?page=99999999999999999999").status_code == 422
    answer = client.post("/rooms", data={"name": "Ana", "preset": "custom", "threshold": "²"})
    assert answer.status_code == 422 and "threshold" in answer.text
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        socket.receive_text()
        for message in [{"type": "set_clock", "seconds": "²²"}, {"type": "remove", "seat": "²"},
                        {"type": "set_rules", "preset": "custom", "threshold": "３０"}]:
            socket.send_json(message)
            assert 'id="flash"' in socket.receive_text()
        socket.send_json({"type": "set_clock", "seconds": "30"})
        assert "30 seconds a turn" in socket.receive_text()


def host_page(client, code, token) -> str:
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", token)
    return client.get(f"/r/{code}").text


def test_a_full_table_keeps_the_turn_clock_for_the_host(client):
    names = [f"P{seat}" for seat in range(MAX_PLAYERS)]
    code, tokens = open_room(client, names[:-1])
    page = host_page(client, code, tokens[0])
    assert 'class="clock-form"' in page and 'class="add-bot"' in page
    assert f"{MAX_PLAYERS - 1} of {MAX_PLAYERS} seats taken" in page
    assert client.post(f"/api/rooms/{code}/players", json={"name": names[-1]}).status_code == 201
    page = host_page(client, code, tokens[0])
    # Every seat is taken: no bot can be added, but the host still sets the turn clock.
    assert 'class="clock-form"' in page and 'class="add-bot"' not in page
    assert f"{MAX_PLAYERS} of {MAX_PLAYERS} seats taken" in page
    assert "Start the match" in page and "A match needs" not in page
    client.cookies.clear()
    assert f'action="/r/{code}/join"' not in client.get(f"/r/{code}").text  # nobody else may join


def test_a_spectator_may_join_while_a_seat_is_free(client):
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    assert f'action="/r/{code}/join"' in client.get(f"/r/{code}").text


def test_a_name_refused_on_the_room_page_stays_in_its_box_as_text(client):
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    for name, error in [("ANA", "taken"), ('"><img src=x>' * 2, "at most 20 characters")]:
        answer = client.post(f"/r/{code}/join", data={"name": name})
        assert answer.status_code in (409, 422) and error in answer.text
        box = re.search(r'<input id="join-name"[^>]*>', answer.text)
        assert box is not None and f'value="{escape(name)}"' in box.group(0), name
        assert "<img src=x>" not in answer.text
    assert 'value=""' in re.search(r'<input id="join-name"[^>]*>', client.get(f"/r/{code}").text).group(0)


def test_the_seat_limits_on_the_pages_are_the_engines(client):
    code, tokens = open_room(client, ["Ana"])
    page = host_page(client, code, tokens[0])
    assert f"start when {MIN_PLAYERS} to {MAX_PLAYERS} are seated" in page
    assert f"A match needs {MIN_PLAYERS} to {MAX_PLAYERS} players" in page
    assert f"for {MIN_PLAYERS} to {MAX_PLAYERS} players" in client.get("/").text
    assert f"for {MIN_PLAYERS} to {MAX_PLAYERS} players" in client.get("/rules").text


def test_the_rules_form_shows_the_rooms_options(client):
    code, tokens = open_room(client, ["Ana"], rules={"match_length": 5, "second_life_min_opponents": 3,
                                                     "threshold": 44, "penalty_to": "lowest"})
    page = host_page(client, code, tokens[0])
    assert '<option value="5" selected>5 deals, lowest total wins</option>' in page
    assert '<option value="1">1 deal, lowest total wins</option>' in page
    assert '<option value="3" selected>3</option>' in page and '<option value="1">1 (always)</option>' in page
    assert '<input type="number" name="threshold" min="10" max="100" value="44" required>' in page
    assert '<option value="lowest" selected>the lowest card of the last trick (inverse)</option>' in page


def test_every_response_carries_the_security_headers(client):
    code, _ = open_room(client, ["Ana"])
    answers = [client.get(path) for path in ["/", "/rules", "/matches", "/matches/nosuchmatch", f"/r/{code}",
                                             "/r/ZZZZZ", "/static/app.css", "/api/matches", "/healthz"]]
    answers.append(client.post("/rooms", data={"name": " ", "preset": "agurk"}))
    for answer in answers:
        policy = answer.headers["content-security-policy"]
        assert policy.startswith("default-src 'self'; script-src 'self' https://cdn.jsdelivr.net/"), answer.url
        assert "unsafe" not in policy and "frame-ancestors 'self'" in policy
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"
    assert "'unsafe-inline'" in client.get("/api/docs").headers["content-security-policy"]


def test_pages_have_no_inline_script_style_or_handler(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    host = connect(client, code, tokens[0])
    host.send({"type": "set_clock", "seconds": 30})
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] == "playing")
    client.cookies.set(f"cucumber_{code}", tokens[0])
    for path in ["/", "/rules", "/matches", f"/r/{code}", f"/r/{code}/take"]:
        page = client.get(path).text
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=|javascript:", page, re.I), path
        # Scripts come from files; a data block is not run.
        assert all("src=" in tag or 'type="application/json"' in tag for tag in re.findall(r"<script[^>]*>", page))
    assert "data-vars=" in client.get(f"/r/{code}").text  # the clock and meters, applied by app.js


def seats_of(client, code):
    return [seat["name"] for seat in client.get(f"/api/rooms/{code}").json()["state"]["seats"]]


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://testserver.evil.example"},
    {"Referer": "https://evil.example/page"},
    {"Referer": "not a url"},
])
def test_a_form_post_from_another_site_is_refused_and_changes_nothing(client, headers):
    code, tokens = open_room(client, ["Ana"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0], domain="testserver.local", path=f"/r/{code}")
    join = client.post(f"/r/{code}/join", data={"name": "Eve"}, headers=headers, follow_redirects=False)
    opened = client.post("/rooms", data={"name": "Eve", "preset": "agurk"}, headers=headers, follow_redirects=False)
    api = client.post("/api/rooms", json={"name": "Eve"}, headers=headers)
    for answer in (join, opened):
        assert answer.status_code == 403 and "from another site" in answer.text
        assert "<h1>Not allowed</h1>" in answer.text
        assert "set-cookie" not in answer.headers and "content-security-policy" in answer.headers
    assert api.status_code == 403 and api.json()["error"] == "cross_site" and "set-cookie" not in api.headers
    assert seats_of(client, code) == ["Ana"] and client.get("/healthz").json()["rooms"] == 1
    assert client.cookies.get(f"cucumber_{code}") == tokens[0]


@pytest.mark.parametrize("headers", [
    {},  # a program: neither Origin nor Referer
    {"Origin": "http://testserver"},
    {"Origin": "https://cards.agurk.net"},  # the public URL
    {"Referer": "http://testserver/r/ABCDE"},
])
def test_a_form_post_from_this_site_or_a_program_goes_through(make_client, headers):
    client = make_client(public_url="https://cards.agurk.net")
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    answer = client.post(f"/r/{code}/join", data={"name": "Ben"}, headers=headers, follow_redirects=False)
    assert answer.status_code == 303 and seats_of(client, code) == ["Ana", "Ben"]


def test_a_host_who_gave_up_their_seat_sits_down_again_from_the_page_and_still_hosts(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    host = connect(client, code, tokens[0])
    host.send({"type": "leave"})
    assert host.until(lambda s: len(s["seats"]) == 1)["host"] is None
    answer = client.post(f"/r/{code}/join", data={"name": "Ana"}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == f"/r/{code}"
    assert {cookie.value for cookie in client.cookies.jar} == {tokens[0]}  # the same cookie: still the host's
    state = host.until(lambda s: len(s["seats"]) == 2)
    assert state["host"] == 1 and state["you"]["seat"] == 1 and seats_of(client, code) == ["Ben", "Ana"]
    assert "Start the match" in client.get(f"/r/{code}").text
    again = client.post(f"/r/{code}/join", data={"name": "Ana 2"}, follow_redirects=False)  # a second click
    assert again.status_code == 303 and seats_of(client, code) == ["Ben", "Ana"]
    host.send({"type": "start"})
    assert host.until(lambda s: s["phase"] == "playing")["host"] == 1


def test_a_seated_host_may_leave_their_seat_from_the_page(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[0])
    leave = """hx-vals='{"type": "leave"}'"""
    page = client.get(f"/r/{code}").text
    controls = element(page, "section", "controls")
    assert leave in controls and "You stay host" in controls and "Start the match" in controls
    host = connect(client, code, tokens[0])
    host.send({"type": "leave"})
    host.until(lambda s: len(s["seats"]) == 1)
    controls = element(client.get(f"/r/{code}").text, "section", "controls")
    assert leave not in controls and "Start the match" in controls  # still hosting, with no seat to leave


def test_the_address_a_refused_form_leaves_opens_the_page_again(client):
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    refused = client.post(f"/r/{code}/join", data={"name": "ana"})
    assert refused.status_code == 409 and "already" in refused.text
    again = client.get(f"/r/{code}/join", follow_redirects=False)  # the address bar after the refusal
    assert again.status_code == 303 and again.headers["location"] == f"/r/{code}"
    assert client.head(f"/r/{code}/join", follow_redirects=False).status_code == 303
    assert client.get(f"/r/{code.lower()}/join").status_code == 200  # on to the room page, which corrects the case
    assert client.get("/r/ZZZZZZ/join").status_code == 404  # a room that is gone says so
    assert seats_of(client, code) == ["Ana"]  # opening it again seats nobody

    refused = client.post("/rooms", data={"name": "", "preset": "agurk"})
    assert refused.status_code == 422 and "<h1" in refused.text  # the home page again, with the error
    again = client.get("/rooms", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/"
    assert client.get("/healthz").json()["rooms"] == 1


def test_joining_again_from_a_seated_browser_returns_to_its_seat(client):
    opened = client.post("/rooms", data={"name": "Ana", "preset": "agurk"}, follow_redirects=False)
    code = opened.headers["location"].rsplit("/", 1)[1]
    token = client.cookies.get(f"cucumber_{code}")
    again = client.post(f"/r/{code}/join", data={"name": "Ana two"}, follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == f"/r/{code}"
    assert "set-cookie" not in again.headers and client.cookies.get(f"cucumber_{code}") == token
    assert seats_of(client, code) == ["Ana"]
    assert "Start the match" in client.get(f"/r/{code}").text  # still the host, in the same seat


# Seat links on the pages


def link_box(socket) -> str:
    """Ask for a link over the page's socket; returns the frame with the link box (failing on an error)."""
    socket.send_json({"type": "device_link", "HEADERS": {"HX-Request": "true"}})
    while True:
        frame = socket.receive_text()
        assert 'id="flash"' not in frame, frame
        if 'id="seat-link"' in frame:
            return frame


def test_a_player_gets_a_link_with_a_qr_code_on_their_page_alone(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[1])
    assert "Continue on another device" in client.get(f"/r/{code}").text
    spectator = connect(client, code)
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        socket.receive_text()
        frame = link_box(socket)
    url = re.search(r"<code>(http://testserver/r/" + code + r"/take#[\w-]+)</code>", frame).group(1)
    secret = url.split("#")[1]
    assert f'data-url="{url}"' in frame and "Copy link" in frame
    assert re.search(r'<svg role="img" aria-label="QR code of the link for your seat" [^>]*class="qr-code">'
                     r"<title>QR code of the link for your seat</title>", frame)
    assert not re.search(r"\sstyle=|<script", frame)
    assert "10 minutes" in frame
    spectator.latest()
    assert not any(secret in str(message) for message in spectator.received)
    client.cookies.clear()
    assert "Continue on another device" not in client.get(f"/r/{code}").text  # a spectator has no seat to move


def test_a_link_opens_a_page_that_takes_the_seat_in_this_browser(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    ben = connect(client, code, tokens[1])
    ben.send({"type": "device_link"})
    secret = next(message for message in iter(ben.receive, None) if message["type"] == "link")["secret"]
    client.cookies.clear()
    page = client.get(f"/r/{code}/take")
    assert page.status_code == 200 and 'name="secret"' in page.text and ASSETS.hashed("take.js") in page.text
    assert client.get("/r/ZZZZZ/take").status_code == 404

    # A browser that already has a place here keeps it: the link is not spent.
    client.cookies.set(f"cucumber_{code}", tokens[0])
    refused = client.post(f"/r/{code}/take", data={"secret": secret}, follow_redirects=False)
    assert refused.status_code == 409 and "already has a place at this table" in refused.text
    assert client.cookies.get(f"cucumber_{code}") == tokens[0]

    client.cookies.clear()
    taken = client.post(f"/r/{code}/take", data={"secret": secret}, follow_redirects=False)
    assert taken.status_code == 303 and taken.headers["location"] == f"/r/{code}"
    assert client.cookies.get(f"cucumber_{code}") not in (None, tokens[1])
    assert "Continue on another device" in client.get(f"/r/{code}").text  # seated here now
    client.cookies.clear()
    again = client.post(f"/r/{code}/take", data={"secret": secret}, follow_redirects=False)
    assert again.status_code == 404 and "does not work" in again.text


def test_a_page_whose_seat_moved_watches_and_drops_its_link(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[1])
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        socket.receive_text()
        secret = re.search(r"/take#([\w-]+)", link_box(socket)).group(1)
        client.cookies.clear()
        assert client.post(f"/api/rooms/{code}/take", json={"secret": secret}).status_code == 201
        told = socket.receive_text()
        assert 'data-code="seat_moved"' in told and '<section id="seat-link" class="seat-link" hidden>' in told
        update = socket.receive_text()  # the regions as a spectator sees them
        assert 'id="seat-1"' in update and "Continue on another device" not in update and "you-tag" not in update


def test_the_replay_shows_the_coachs_grades_and_accuracy_once_the_match_is_analysed(client):
    from app.coach.worker import analyse_next

    code, final = bots_play_a_match(client)
    match_id = final["match_id"]
    before = client.get(f"/matches/{match_id}")
    assert "The coach has not analysed this match yet" in before.text and "coach-table" not in before.text
    assert "Hindsight: with all hands shown" in before.text  # hindsight needs no analysis
    assert client.get(f"/api/matches/{match_id}/analysis").json() == {"status": "waiting", "grades": None,
                                                                        "accuracy": None}
    assert client.get("/api/matches/nosuchmatch/analysis").status_code == 404
    storage = client.app.state.storage
    assert analyse_next(storage, "test") == match_id
    assert client.get(f"/api/matches/{match_id}/analysis").json() == storage.match_analysis(match_id)
    page = client.get(f"/matches/{match_id}")
    assert 'class="coach-table"' in page.text and " %</td>" in page.text
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>',
                                page.text, re.S).group(1))
    grades = {(grade["deal"], grade["play"]): grade for grade in storage.match_analysis(match_id)["grades"]}
    for index, deal in enumerate(data["deals"]):
        plays = len(deal["coach"])
        assert plays == sum(len(trick["plays"]) for trick in deal["tricks"]) == len(deal["hindsight"])
        for number, entry in enumerate(deal["coach"]):
            grade = grades[index, number]
            assert entry == {"label": grade["label"], "best": grade["best"], "saved": grade["loss_points"]}
            assert (deal["hindsight"][number] is None) == (grade["label"] == "forced")
    danish = client.get(f"/matches/{match_id}", headers={"Accept-Language": "da"})
    assert "Træneren" in danish.text and "Præcision" in danish.text and '"mistake": "fejl"' in danish.text
