"""The table on a phone and on a desktop: everything fits across, cards are big enough to tap.

Screenshots of the lobby, the table mid-deal, the deal summary and the match
end are written to ``tests/e2e/screenshots/`` for people to review.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.client import Connection
from app.wording.language import LANGUAGES, translations
from tests.e2e.helpers import LiveServer, Tab, play_until, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 768}}
OTHERS = ["Benedikte Sørensen", "Cy", "Wolfeschlegelsteinha", "Dagny"]
"""Other players: a long name with a space, a short one, 20 letters without a break."""

FIT_JS = """() => {
  const page = document.scrollingElement;
  const width = page.clientWidth;
  const outside = [...document.querySelectorAll('body *')]
    .filter(e => e.getClientRects().length && !e.closest('.table-scroll'))
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([, box]) => box.left < -0.5 || box.right > width + 0.5)
    .map(([e]) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} ${e.textContent.trim().slice(0, 30)}`)
    .slice(0, 6);
  const wide = [...document.querySelectorAll('body, body *')]
    .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible')
    .map(e => `${e.tagName}.${e.className} ${e.scrollWidth}>${e.clientWidth}`).slice(0, 12);
  const inside = (inner, outer) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5;
  const shown = e => e.getClientRects().length > 0;
  const spill = [...document.querySelectorAll('#seats .seat')].filter(shown).flatMap(seat => {
    const box = seat.getBoundingClientRect();
    return [...seat.querySelectorAll('.card, .meter, .stats')].filter(shown)
      .filter(e => !inside(e.getBoundingClientRect(), box))
      .map(e => `seat ${seat.dataset.seat}: ${e.dataset.card || e.className}`);
  });
  const cards = [...document.querySelectorAll('#hand .card-button')].filter(shown);
  const buttons = cards.map(e => e.getBoundingClientRect());
  return {
    scrollWidth: page.scrollWidth, clientWidth: page.clientWidth, outside, wide, spill,
    smallest: buttons.length ? Math.min(...buttons.map(b => Math.min(b.width, b.height))) : null,
    rows: new Set(cards.map(e => e.offsetTop)).size,  // raised cards are moved, not laid out elsewhere
  };
}"""


def check_fit(tab: Tab, where: str, *, phone: bool) -> None:
    """No horizontal scrolling, nothing outside the viewport across, and finger-sized cards in one row."""
    fit = tab.page.evaluate(FIT_JS)
    assert fit["scrollWidth"] <= fit["clientWidth"], f"{where}: the page scrolls across: {fit}"
    assert fit["outside"] == [], f"{where}: outside the screen: {fit['outside']}"
    assert fit["spill"] == [], f"{where}: outside their seat: {fit['spill']}"
    if fit["smallest"] is not None:
        assert fit["smallest"] >= 44, (where, fit)  # a finger-sized target
        assert fit["rows"] == 1, (where, fit)  # the whole hand in one row


def shoot(tab: Tab, folder: Path, name: str) -> None:
    """Screenshots for review, after animations settle: what the screen shows, and the whole page.

    For the whole page the hand is not kept at the bottom of the screen (a
    full-page capture would show it in the middle of the table).
    """
    tab.page.evaluate("() => window.scrollTo(0, 0)")
    tab.page.wait_for_timeout(350)
    tab.page.screenshot(path=str(folder / f"{name}.png"))
    # A constructed style sheet, not a <style> tag, which the page's policy refuses; nor a
    # style attribute, which htmx would copy to a #hand swapped in meanwhile.
    tab.page.evaluate("""() => { const sheet = new CSSStyleSheet();
        sheet.replaceSync('.hand { position: static !important; }'); document.adoptedStyleSheets = [sheet]; }""")
    tab.page.screenshot(path=str(folder / f"{name}-full.png"), full_page=True)
    tab.page.evaluate("() => { document.adoptedStyleSheets = []; }")


@pytest.mark.parametrize(("device", "scheme"), [("phone", "light"), ("phone", "dark"),
                                                ("desktop", "light"), ("desktop", "dark")])
def test_the_table_fits_phones_and_desktops(open_tab, slow_server: LiveServer, screenshots: Path,
                                            device: str, scheme: str) -> None:
    options: dict[str, Any] = dict(PHONE if device == "phone" else DESKTOP, color_scheme=scheme)
    phone = device == "phone"
    label = f"{device}-{scheme}"
    server = slow_server
    host = server.post("/api/rooms", {"name": "Ana", "preset": "agurk", "rules": {"match_length": 2}})
    code = host["code"]
    ana = open_tab(label, live=server, **options)
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    others = {seat: protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": name})["token"])
              for seat, name in enumerate(OTHERS, start=1)}
    sync_pages(server, code, [ana])
    shoot(ana, screenshots, f"{label}-1-lobby")
    check_fit(ana, "lobby", phone=phone)

    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    pages = {0: ana}
    answer = play_until(server, code, pages, others,
                        lambda now: now["state"]["turn"] == 0 and now["state"]["trick_number"] >= 3)
    assert ana.page.locator("#hand .card-button").count() == answer["state"]["seats"][0]["cards_left"] == 5
    ana.page.locator("#hand .card-button.playable").first.focus()
    shoot(ana, screenshots, f"{label}-2-mid-deal")
    check_fit(ana, "mid-deal", phone=phone)

    play_until(server, code, pages, others, lambda now: now["state"]["turn"] is None)
    ana.page.wait_for_selector('#status[data-stage="deal_over"]')
    assert ana.page.locator("#summary .summary-lines li").count() >= 2
    shoot(ana, screenshots, f"{label}-3-deal-summary")
    check_fit(ana, "deal summary", phone=phone)

    play_until(server, code, pages, others, lambda now: now["state"]["phase"] == "finished")
    shoot(ana, screenshots, f"{label}-4-match-end")
    check_fit(ana, "match end", phone=phone)
    assert ana.problems() == []
    for player in others.values():
        player.close()


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_the_other_pages_fit_phones_and_desktops(open_tab, server: LiveServer, screenshots: Path, device: str) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 1}})
    code = host["code"]
    players = {0: protocol_player(server, code, host["token"]),
               1: protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])}
    players[0].send({"type": "start"})
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    finished = play_until(server, code, {}, players, lambda now: now["state"]["phase"] == "finished")
    for player in players.values():
        player.close()

    tab = open_tab(device, **(PHONE if device == "phone" else DESKTOP))
    for name, path in [("home", "/"), ("rules", "/rules"), ("matches", "/matches"),
                       ("replay", f"/matches/{finished['state']['match_id']}")]:
        tab.goto(path)
        tab.page.wait_for_load_state("load")
        shoot(tab, screenshots, f"{device}-page-{name}")
        check_fit(tab, name, phone=device == "phone")
    tab.page.keyboard.press("ArrowRight")  # the replay steps through the first trick
    assert "after trick 1" in tab.page.inner_text(".replay-position")
    assert tab.problems() == []


SEVEN = ["Annemarie 1", "Annemarie 2", "Wolfeschlegelsteinha", "Bo", "Annemarie 3", "Cy"]
"""The others at a full table: names alike but for their end, and 20 letters without a break."""

TRICK_JS = """() => {
  const plays = [...document.querySelectorAll('#trick .trick-cards > .play')];
  const names = plays.map(play => play.querySelector('.by'));
  const hand = document.getElementById('hand').getBoundingClientRect();
  return {
    plays: plays.length,
    rows: new Set(plays.map(play => Math.round(play.getBoundingClientRect().top))).size,
    broken: names.filter(by => {
      const range = document.createRange();
      range.selectNodeContents(by.firstChild);
      const lines = new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
      return lines > 1 || (by.scrollWidth > by.clientWidth + 1 && getComputedStyle(by).textOverflow !== 'ellipsis');
    }).map(by => by.textContent),
    names: names.map(by => by.firstChild.textContent.trim()),
    trickBottom: document.querySelector('#trick .trick-cards').getBoundingClientRect().bottom,
    handTop: hand.top,
  };
}"""


HEADLINE_ROWS_JS = """(text) => {
  const headline = document.querySelector('#status .headline'), range = document.createRange();
  headline.textContent = text;
  range.selectNodeContents(headline);
  return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
}"""
"""The lines the status headline takes once it says ``text`` (the page's own headline is replaced)."""


def seven_on_a_phone(open_tab: Any, server: LiveServer, label: str, viewport: dict[str, int], others: list[str],
                     language: str | None = None) -> tuple[Tab, str, dict[int, Connection]]:
    """A match of the agurk preset started by Ana on a phone's page of ``viewport`` (in ``language``, else
    English), with ``others`` seated after her over the protocol; returns her tab, the room code and them."""
    host = server.post("/api/rooms", {"name": "Ana", "preset": "agurk"})
    code = host["code"]
    ana = open_tab(label, viewport=viewport, device_scale_factor=2, is_mobile=True, has_touch=True)
    if language is not None:
        ana.context.add_cookies([{"name": "cucumber_lang", "value": language, "url": server.url}])
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    players = {seat: protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": name})["token"])
               for seat, name in enumerate(others, start=1)}
    sync_pages(server, code, [ana])
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    return ana, code, players


def test_a_trick_of_seven_fits_a_small_phone_in_one_row_above_the_hand_each_name_on_one_line(
        open_tab, server: LiveServer, screenshots: Path) -> None:
    ana, code, others = seven_on_a_phone(open_tab, server, "phone-seven", {"width": 375, "height": 667}, SEVEN)
    answer = play_until(server, code, {0: ana}, others, lambda now: len(now["state"]["trick"]) == 6)
    ana.page.evaluate("() => window.scrollTo(0, 0)")
    shoot(ana, screenshots, "phone-seven-trick")
    trick = ana.page.evaluate(TRICK_JS)
    names = ["Ana", *SEVEN]
    assert trick["plays"] == 7  # six cards and the slot of the seat to play
    assert trick["names"] == [
        "You" if play["seat"] == 0 else names[play["seat"]] for play in answer["state"]["trick"]] + [
        "You" if answer["state"]["turn"] == 0 else names[answer["state"]["turn"]]]
    assert trick["rows"] == 1, trick
    assert trick["broken"] == [], trick  # a name too long ends in an ellipsis, never breaks; whole in the text
    assert trick["trickBottom"] <= trick["handTop"], trick  # not under the hand kept at the bottom of the screen
    check_fit(ana, "a trick of seven", phone=True)
    assert ana.problems() == []
    # Whoever's turn it is, the headline keeps to one line, in every language and on a phone as narrow as
    # 360 pixels too: a second line would push the trick under the hand.
    longest = max(SEVEN, key=len)
    for width in (375, 360):
        ana.page.set_viewport_size({"width": width, "height": 667})
        for language in LANGUAGES:
            waiting = translations(language).gettext("Waiting for %(name)s") % {"name": longest}
            assert ana.page.evaluate(HEADLINE_ROWS_JS, waiting) == 1, (width, waiting)
    for player in others.values():
        player.close()


WIDE = ["WWWWWWWWWWWWWWWWWWWW", "Maximiliankowalewski", "Bartholomewkristians", "MARGARETHE WOLFGANGS",
        "Mmmmmmmmmmmmmmmmmmmm", "Åse Marie Wøllmannsø"]
"""The others at a full table, each 20 characters of the widest letters: names cut short under their cards."""

TRICK_IN_VIEW_JS = """() => {
  const trick = document.getElementById('trick').getBoundingClientRect();
  return {top: trick.top, bottom: trick.bottom, handTop: document.getElementById('hand').getBoundingClientRect().top,
          scrolled: window.scrollY};
}"""


def trick_in_view(tab: Tab, *, scrolled: bool) -> dict[str, float]:
    """Where the trick and the hand are on the screen, asserting that the whole trick shows above the hand, and
    with ``scrolled`` that the page scrolled to show it; returns what it measured (px: ``top``, ``bottom``,
    ``handTop``, ``scrolled``)."""
    # The hand is laid out by the frame that brought the turn; a swap still being settled measures 0 at first.
    # After a reload on a loaded machine (the whole suite runs two halves at once) that took more than 2 s.
    tab.page.wait_for_function("() => document.getElementById('hand').getBoundingClientRect().top > 0",
                               timeout=10_000)
    seen = tab.page.evaluate(TRICK_IN_VIEW_JS)
    assert seen["top"] >= 0 and seen["bottom"] <= seen["handTop"], seen
    assert seen["scrolled"] > 0 or not scrolled, seen
    return seen


@pytest.mark.parametrize("height", [568, 480])
def test_on_a_small_phone_the_whole_trick_comes_into_view_above_the_hand_when_your_turn_comes(
        open_tab, server: LiveServer, screenshots: Path, height: int) -> None:
    """At 320 × 568 the table fits the screen, or nearly; at 320 × 480 it does not, and the page scrolls to the
    trick, the hand staying at the bottom of the screen."""
    scrolls = height < 568
    ana, code, others = seven_on_a_phone(open_tab, server, f"small-phone-seven-{height}",
                                         {"width": 320, "height": height}, WIDE, language="de")  # long words
    for turns in range(2):
        play_until(server, code, {0: ana}, others,
                   lambda now: now["state"]["turn"] == 0 and len(now["state"]["trick"]) >= 3)
        trick_in_view(ana, scrolled=scrolls)
        ana.page.wait_for_timeout(350)  # the cards' motion
        ana.page.screenshot(path=str(screenshots / f"small-phone-seven-{height}-turn-{turns}.png"))  # as scrolled
        ana.page.evaluate("() => window.scrollTo(0, 0)")  # scrolled away: the next turn brings it back
        seen = server.room(code)["version"]
        ana.page.locator("#hand .card-button.playable").first.click()
        # Played (she may lead the next trick at once, having closed and taken this one).
        server.wait_room(code, lambda now, seen=seen: now["version"] > seen)
    ana.page.evaluate("() => window.scrollTo(0, 0)")
    ana.page.reload()  # not at her turn: reloaded at the top of the page, the page opens on the table
    ana.wait_live()
    sync_pages(server, code, [ana])
    trick_in_view(ana, scrolled=scrolls)
    assert ana.problems() == []
    for player in others.values():
        player.close()
