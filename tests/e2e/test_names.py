"""Names made of markup show as text on every page and run nothing."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import LiveServer, Tab, sign_in, sync_pages

pytestmark = pytest.mark.e2e

NAMES = ["<script>x</script>", "<b onclick=alert(1)>", '"><img src=/x>&amp;']
"""Each at most 20 characters: a script, a handler, and an attribute break-out with an image and an entity."""

MARKUP_JS = """() => ({
  elements: document.querySelectorAll(
    'main b, main img, main [onclick], main [onerror], main script:not([src]):not([type="application/json"])').length,
  html: document.querySelector('main').innerHTML,
})"""


def assert_names_are_text(tab: Tab, where: str) -> None:
    """No element made from a name, each name found as text, nothing run, nothing requested."""
    found = tab.page.evaluate(MARKUP_JS)
    assert found["elements"] == 0, (tab.label, where)
    for raw in ("<b onclick", "<img src=/x", "<script>x"):
        assert raw not in found["html"], (tab.label, where, raw)
    text = tab.page.inner_text("main")
    for name in NAMES:
        assert name in text, (tab.label, where, name)
    assert tab.problems() == [], where


def test_markup_names_show_as_text_everywhere_and_run_nothing(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": NAMES[0], "preset": "quick", "rules": {"threshold": 10, "lives": 1}})
    code = host["code"]
    tokens = [host["token"]]
    tokens += [server.post(f"/api/rooms/{code}/players", {"name": name})["token"] for name in NAMES[1:]]
    assert [seat["name"] for seat in server.room(code)["state"]["seats"]] == NAMES
    tabs = []
    for seat, token in enumerate(tokens):
        tab = open_tab(f"seat {seat}")
        sign_in(tab, code, token)
        tab.goto(f"/r/{code}")
        tabs.append(tab)
    watcher = open_tab("spectator")
    watcher.goto(f"/r/{code}")
    everyone = [*tabs, watcher]
    for tab in everyone:
        assert tab.page.locator("#seats .seat .name").all_inner_texts() == NAMES, tab.label
        tab.page.locator("#seats .seat .name").nth(1).click()  # a handler in the name would run now
        assert_names_are_text(tab, "lobby")

    tabs[0].page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    checked_mid_deal = False
    while True:
        answer = sync_pages(server, code, everyone)
        state = answer["state"]
        if state["phase"] == "finished":
            break
        if state["turn"] is None:
            server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
            continue
        if state["trick"] and not checked_mid_deal:
            for tab in everyone:  # names in the trick, the turn, the reasons of unplayable cards
                assert_names_are_text(tab, "mid-deal")
            waiting = tabs[(state["turn"] + 1) % 3].page.locator("#hand .card-button").first
            reason = waiting.get_attribute("data-reason")
            assert reason == "wait for your turn", reason  # whose turn it is, the status says
            checked_mid_deal = True
        tabs[state["turn"]].page.locator("#hand .card-button.playable").first.click()
        server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
    assert checked_mid_deal
    for tab in everyone:  # the summary, the standings and the winner's headline
        assert tab.page.locator("#summary .standings td.name").count() == 3
        assert_names_are_text(tab, "match end")

    # The history pages and the replay script show them as text too.
    watcher.page.goto(f"{server.url}/matches")
    for name in NAMES:
        assert name in watcher.page.inner_text("table.matches"), name
    watcher.page.goto(f"{server.url}/matches/{state['match_id']}")
    watcher.page.wait_for_selector(".replay-hand .name")
    names_in_replay = watcher.page.locator(".replay-hand .name").all_inner_texts()
    assert {name.removesuffix(" (dealer)") for name in names_in_replay} <= set(NAMES)
    assert_names_are_text(watcher, "match page")


def test_a_name_of_twenty_emoji_is_typed_whole_and_a_longer_name_is_refused_with_its_reason(
        open_tab, server: LiveServer) -> None:
    tab = open_tab("emoji")
    tab.goto("/")
    box = tab.page.locator("input[name=name]")
    box.press_sequentially("Wolfeschlegelsteinhau")  # 21 letters: the box takes them, the server refuses them
    tab.page.click("form.rules-form button[type=submit]")
    assert "at most 20 characters" in tab.page.inner_text("main")
    assert tab.page.input_value("input[name=name]") == "Wolfeschlegelsteinhau"  # kept, to be mended
    name = "🥒" * 20  # each two UTF-16 units, which is what a browser's maxlength counts
    tab.page.fill("input[name=name]", "")
    box.press_sequentially(name)
    assert tab.page.input_value("input[name=name]") == name
    tab.page.click("form.rules-form button[type=submit]")
    tab.page.wait_for_url("**/r/*")
    code = tab.page.get_attribute("main#room", "data-code")
    assert [seat["name"] for seat in server.room(code)["state"]["seats"]] == [name]
    assert all("422" in line for line in tab.problems()), tab.problems()  # the refusal, and nothing else


def test_a_name_half_typed_in_the_join_box_outlives_the_room_changing_and_a_refused_one_stays_to_mend(
        open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    cy = open_tab("Cy")
    cy.goto(f"/r/{code}")
    cy.wait_live()
    cy.page.fill("#join input[name=name]", "Cyri")  # still typing when Ben sits down
    server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    sync_pages(server, code, [cy])
    assert cy.page.input_value("#join input[name=name]") == "Cyri"
    cy.page.fill("#join input[name=name]", "BEN")  # taken: refused, and kept in the box to mend
    cy.page.click("#join button[type=submit]")
    assert "taken" in cy.page.inner_text("main")
    cy.wait_live()
    sync_pages(server, code, [cy])
    assert cy.page.input_value("#join input[name=name]") == "BEN"
    assert all("409" in line for line in cy.problems()), cy.problems()
