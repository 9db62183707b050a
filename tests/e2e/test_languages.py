"""Each person reads the table in their own language: a whole match with a Dane, a Swede and a German
watching; the choice kept across reloads and reconnects; and every language fits a 360 px phone.

Screenshots of each language on a phone are written to ``tests/e2e/screenshots/`` for people to review.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from app.wording.language import LANGUAGES
from tests.e2e.helpers import LiveServer, Tab, play_until, protocol_player, sign_in, sync_pages
from tests.e2e.test_layout import check_fit, shoot
from tests.words import english_left

pytestmark = pytest.mark.e2e

NAMES = ("Ana", "Björn", "Wolfeschlegelsteinha", "Benedikte Sørensen", "Cy", "Kristoffer Mikkelsen")
PHONE_360 = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True,
             "has_touch": True}

OVERFLOW_JS = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.getClientRects().length && e.clientWidth > 0 && !e.closest('.table-scroll, select'))
  .filter(e => [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()))
  .filter(e => getComputedStyle(e).overflowX === 'visible' && e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().slice(0, 40)}" `
            + `${e.scrollWidth}>${e.clientWidth}`)"""
"""Elements whose own text runs out of their box (a long word that does not wrap)."""

LED_CUT_JS = """() => [...document.querySelectorAll('#trick .by small')].filter(mark => {
    const own = mark.getBoundingClientRect(), by = mark.closest('.by').getBoundingClientRect();
    return own.width === 0 || own.left < by.left - 0.5 || own.right > by.right + 0.5 || own.bottom > by.bottom + 0.5;
  }).map(mark => mark.closest('.by').textContent.trim())"""
"""The marks of the card that led the trick that are cut off by the name's ellipsis (a player's names are
cut to fit below their card; the mark is not)."""


SUMMARY_JS = """() => [+document.getElementById('status').dataset.version,
                       document.getElementById('summary').innerText]"""
"""The room version the page shows and the text of its deal summary, read at one instant."""


def words_left(tab: Tab) -> list[str]:
    """The English words the tab's page still shows (none, in a page in another language)."""
    return english_left(tab.page.content(), names=NAMES)


def switch_language(tab: Tab, code: str) -> None:
    """Choose ``code`` with the switcher at the top of the page, as a person would (on a phone's table page, in
    the panel of the room's link and settings)."""
    settings = tab.page.locator('.panel-tab[data-panel="more"]:visible[aria-expanded="false"]')
    if settings.count():
        settings.click()
    form = tab.page.locator("form.language:visible")
    form.locator("select").select_option(code)
    with tab.page.expect_navigation():
        form.locator("button").click()
    if tab.page.locator("main#room").count():
        tab.wait_live()


def lang_of(tab: Tab) -> str:
    """The language the tab's page says it is in (``<html lang>``)."""
    return tab.page.get_attribute("html", "lang")


def test_a_dane_and_a_swede_play_a_whole_match_each_in_their_language_and_a_german_watches(
        open_tab, slow_server: LiveServer) -> None:
    server = slow_server  # the pause between deals is long enough to read each deal's summary
    ana = open_tab("Ana (da)", live=server, locale="da-DK")  # the browser's language chooses on the first visit
    ana.goto("/")
    assert lang_of(ana) == "da" and ana.page.inner_text("h1") == "Agurk"
    ana.page.fill("input[name=name]", "Ana")
    ana.page.check("input[name=preset][value=custom]")
    ana.page.click("details > summary")
    ana.page.select_option("select[name=hand_size]", "3")
    ana.page.fill("input[name=threshold]", "15")  # above any one penalty (14): two deals at least
    ana.page.select_option("select[name=lives]", "1")
    ana.page.click("form.rules-form button[type=submit]")
    ana.page.wait_for_url("**/r/*")
    ana.wait_live()
    code = ana.page.get_attribute("main#room", "data-code")
    assert "Venter på spillere" in ana.page.inner_text("#status")

    bjorn = open_tab("Björn (sv)", live=server)  # an English browser: he switches on the room's page
    bjorn.goto(f"/r/{code}")
    assert lang_of(bjorn) == "en"
    switch_language(bjorn, "sv")
    assert lang_of(bjorn) == "sv" and bjorn.page.url.endswith(f"/r/{code}")
    bjorn.page.fill("#join input[name=name]", "Björn")
    bjorn.page.click("#join button[type=submit]")
    bjorn.page.wait_for_selector("#join[hidden]", state="attached")
    bjorn.wait_live()
    watcher = open_tab("spectator (de)", live=server, locale="de-DE")
    watcher.goto(f"/r/{code}")
    tabs = {"da": ana, "sv": bjorn, "de": watcher}
    sync_pages(server, code, list(tabs.values()))
    for language, tab in tabs.items():
        assert lang_of(tab) == language and words_left(tab) == [], (language, words_left(tab))
    assert ana.page.inner_text("#controls button.start") == "Start spillet"

    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    players = {0: ana, 1: bjorn}
    rng = random.Random(7)
    deals_checked = set()
    while True:
        answer = sync_pages(server, code, list(tabs.values()))
        state = answer["state"]
        if state["phase"] == "finished":
            break
        if state["turn"] is None:  # between deals: the summary, in each reader's language
            # Each tab's summary is read with its version at one instant; should the next deal come first, the
            # summary is checked at a later deal.
            read = {language: tab.page.evaluate(SUMMARY_JS) for language, tab in tabs.items()}
            if state["deal"] not in deals_checked and all(seen[0] == answer["version"] for seen in read.values()):
                deals_checked.add(state["deal"])
                summaries = {language: seen[1] for language, seen in read.items()}
                assert "Runde" in summaries["da"] and "Giv" in summaries["sv"] and "Runde" in summaries["de"]
                for tab in tabs.values():
                    assert words_left(tab) == [], (tab.label, words_left(tab))
            server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
            continue
        tab = players[state["turn"]]
        shot = tab.snapshot()
        if not any(card["playable"] for card in shot["hand"]):
            continue  # the page has the version but not yet the turn's hand
        waiting = players[1 - state["turn"]].snapshot()["hand"]
        if waiting:  # the other player's disabled cards say why in their own language
            reason = waiting[0]["reason"]
            assert reason.startswith("vent på din tur" if tab is bjorn else "vänta på din tur"), reason
        legal = sorted(card["card"] for card in shot["hand"] if card["playable"])
        tab.card(rng.choice(legal)).click()
        server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)

    assert deals_checked, "no deal's summary was read before the next deal came"
    headlines = {language: tab.page.inner_text("#summary h2") for language, tab in tabs.items()}
    assert headlines == {"da": "Slutstilling", "sv": "Slutställning", "de": "Endstand"}
    assert ana.page.inner_text("#controls button.start") == "Spil igen"
    for tab in tabs.values():
        assert words_left(tab) == [], (tab.label, words_left(tab))
        assert tab.problems() == []


def test_the_choice_survives_reloads_and_reconnects(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    tab = open_tab("switcher")
    tab.goto("/")
    assert lang_of(tab) == "en"
    switch_language(tab, "de")
    assert lang_of(tab) == "de" and tab.page.url == f"{server.url}/"
    tab.page.reload()
    assert lang_of(tab) == "de" and "Tisch eröffnen" in tab.page.inner_text("main")
    sign_in(tab, code, host["token"])
    tab.goto(f"/r/{code}")
    assert lang_of(tab) == "de" and "Warten auf Spieler" in tab.page.inner_text("#status")
    assert tab.page.inner_text("#connection") == "verbunden"

    # The network goes and comes back: the page opens a new socket, which speaks German again.
    opened = tab.sockets_opened
    tab.context.set_offline(True)
    tab.page.wait_for_selector('#connection[data-state="closed"]', state="attached")
    assert tab.page.inner_text("#connection") in ("offline", "verbinde neu …")
    tab.context.set_offline(False)
    tab.page.wait_for_selector('#connection[data-state="open"]', state="attached")
    assert tab.sockets_opened > opened
    server.post(f"/api/rooms/{code}/players", {"name": "Cy"})
    tab.page.wait_for_function("() => document.querySelectorAll('#seats .seat').length === 2")
    assert "2 am Tisch" in tab.page.inner_text("#status") and words_left(tab) == []

    # Another person's browser asks for Italian: the first visit is Italian, and so is every reload.
    italian = open_tab("browser (it)", locale="it-IT")
    italian.goto(f"/r/{code}")
    italian.page.reload()
    italian.wait_live()
    assert lang_of(italian) == "it" and "In attesa di giocatori" in italian.page.inner_text("#status")
    assert tab.problems() == [] and italian.problems() == []


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_every_language_fits_a_360_pixel_phone(open_tab, server: LiveServer, screenshots: Path, code: str) -> None:
    tab = open_tab(f"360-{code}", **PHONE_360)
    tab.context.add_cookies([{"name": "cucumber_lang", "value": code, "url": server.url}])

    def check(where: str) -> None:
        shoot(tab, screenshots, f"360-{code}-{where}")
        check_fit(tab, where, phone=True)
        assert tab.page.evaluate(OVERFLOW_JS) == [], (code, where)

    tab.goto("/")
    assert lang_of(tab) == code
    tab.page.click("details > summary")  # every option of the rules form, open
    check("home")

    host = server.post("/api/rooms", {"name": "Wolfeschlegelsteinha", "preset": "parlett"})
    room = host["code"]
    sign_in(tab, room, host["token"])
    others: dict[int, Any] = {}
    for seat, name in enumerate(["Benedikte Sørensen", "Kristoffer Mikkelsen"], start=1):
        others[seat] = protocol_player(server, room, server.post(f"/api/rooms/{room}/players", {"name": name})["token"])
    tab.goto(f"/r/{room}")
    sync_pages(server, room, [tab])
    tab.page.click('.panel-tab[data-panel="rules"]')  # on a phone the rules are behind their tab
    tab.page.click("#rules details > summary")  # the host's rules form, open
    check("lobby")
    tab.page.click('.panel-tab[data-panel="rules"]')  # the table again

    tab.page.click("#controls button.start")
    server.wait_room(room, lambda now: now["state"]["phase"] == "playing")
    play_until(server, room, {0: tab}, others,
               lambda now: now["state"]["turn"] == 0 and now["state"]["trick_number"] >= 2)
    check("table")
    # "You led", then a long name that led. Which seats lead depends on the cards, dealt at random, but each
    # deal's first trick is led from the dealer's left and the deal passes on (docs/rules.md §2.3, §2.9), so
    # in any 3 deals in a row every seat leads one. No match of this preset ends before its 3rd deal (14
    # points a deal at most, out at 30): if one ends before the trick wanted, the next match has it.
    for leader, led in (("you", lambda seat: seat == 0), ("other", lambda seat: seat != 0)):
        while True:
            answer = play_until(server, room, {0: tab}, others,
                                lambda now, led=led: now["state"]["phase"] == "finished"
                                or (bool(now["state"]["trick"]) and led(now["state"]["trick"][0]["seat"])))
            if answer["state"]["phase"] != "finished":
                break
            tab.page.click("#controls button.start")
            server.wait_room(room, lambda now: now["state"]["phase"] == "playing")
        assert tab.page.locator("#trick .by small").count() == 1
        shoot(tab, screenshots, f"360-{code}-led-by-{leader}")
        assert tab.page.evaluate(LED_CUT_JS) == [], (code, leader)
    for player in others.values():
        player.close()
    assert tab.problems() == []
