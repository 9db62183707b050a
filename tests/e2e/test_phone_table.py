"""The table on one phone screen, upright and sideways, and a page that does not shift as it loads.

At 360 × 640, 390 × 844, 430 × 932, 640 × 360 and 844 × 390, with 2, 4 and 7 seats, in English and
German, with names of 20 characters, mid-trick and at a deal's end: the status, every seat (name,
score and threshold, lives, cards left, dealer, whose turn, away), the trick, the earlier tricks' cards
in front of their players and the whole hand are inside the screen without scrolling, and nothing of it
overlaps; names end in an ellipsis rather than break; cards and buttons are at least 44 × 44 px.
Screenshots of each are written to ``tests/e2e/screenshots/phone-table/`` (ignored by git).

The room page's layout shifts (``PerformanceObserver``, ``layout-shift``), seated and watching, in the
lobby and in play, with the socket's first frame held back until the page has painted: at most 0.05.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import serve
from tests.e2e.helpers import LiveServer, Tab, audit, play_until, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e

VIEWPORTS = [(360, 640), (390, 844), (430, 932), (640, 360), (844, 390)]
PHONE = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
HOST = "Maximiliankowalewski"
NAMES = ["WWWWWWWWWWWWWWWWWWWW", "Bartholomäus Schmidt", "Wolfeschlegelsteinha", "MARGARETHE WOLFGANGS",
         "Mmmmmmmmmmmmmmmmmmmm", "Åse Marie Wøllmannsø"]
"""The others, each of 20 characters, the widest letters among them, with and without a space."""

LAYOUT_JS = """() => {
  const view = {width: innerWidth, height: innerHeight};
  const box = e => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
  const shown = e => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const label = e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')}`
    + (e.dataset.seat ? `[seat ${e.dataset.seat}]` : '') + (e.dataset.card ? `[${e.dataset.card}]` : '');
  // The pieces that must be seen, each with the group it belongs to (pieces of one group may touch).
  const pieces = [];
  const add = (e, group) => { if (shown(e)) pieces.push({e, group, name: label(e), box: box(e)}); };
  add(document.getElementById('status'), 'status');
  document.querySelectorAll('.roombar h1, .panel-tab').forEach(e => add(e, 'bar'));
  const seats = [...document.querySelectorAll('#seats [data-seat]')];
  const seatParts = '.name, .points, .lives, .held, .dealer, .tag.away, .played';
  seats.forEach(seat => add(seat, 'seat ' + seat.dataset.seat));
  document.querySelectorAll('#trick .trick-cards > .play').forEach((e, i) => add(e, 'play ' + i));
  document.querySelectorAll('#hand button[data-card]').forEach(e => add(e, 'hand ' + e.dataset.card));
  add(document.querySelector('#summary:not([hidden])'), 'summary');
  const outside = pieces.filter(p => p.box.left < -0.5 || p.box.top < -0.5 || p.box.right > view.width + 0.5
                                     || p.box.bottom > view.height + 0.5).map(p => p.name);
  const cross = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
                          && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const overlaps = [];
  for (let i = 0; i < pieces.length; i++) for (let j = i + 1; j < pieces.length; j++) {
    const [a, b] = [pieces[i], pieces[j]];
    if (a.group !== b.group && !a.e.contains(b.e) && !b.e.contains(a.e) && cross(a.box, b.box))
      overlaps.push(`${a.name} × ${b.name}`);
  }
  // Inside each seat: its parts, each inside the seat, none over another, every card of its pile inside.
  const inSeat = [];
  for (const seat of seats) {
    const outer = box(seat);
    const parts = [...seat.querySelectorAll(seatParts)].filter(shown);
    for (const part of [...parts, ...seat.querySelectorAll('.played .card')]) {
      const b = box(part);
      if (b.left < outer.left - 0.5 || b.right > outer.right + 0.5
          || b.top < outer.top - 0.5 || b.bottom > outer.bottom + 0.5)
        inSeat.push(`seat ${seat.dataset.seat}: ${label(part)} outside`);
    }
    for (const [a, b] of parts.flatMap((a, i) => parts.slice(i + 1).map(b => [a, b])))
      if (!a.contains(b) && !b.contains(a) && cross(box(a), box(b)))
        inSeat.push(`seat ${seat.dataset.seat}: ${label(a)} × ${label(b)}`);
  }
  // Names: one line each, cut with an ellipsis when too long, and whole in the seat's accessible name.
  const names = [...document.querySelectorAll('#seats .seat .name, #trick .by')].filter(shown);
  const broken = names.filter(e => {
    const range = document.createRange();
    range.selectNodeContents(e.matches('.by') ? e.firstChild : e);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
    const cut = e.scrollWidth > e.clientWidth + 1;
    return lines > 1 || (cut && getComputedStyle(e).textOverflow !== 'ellipsis');
  }).map(e => e.textContent);
  const unnamed = seats
    .filter(seat => !seat.getAttribute('aria-label').startsWith(seat.querySelector('.name').textContent))
    .map(seat => seat.dataset.seat);
  const targets = [...document.querySelectorAll('#hand button[data-card], .roombar button')].filter(shown)
    .filter(e => { const b = box(e); return b.width < 44 || b.height < 44; }).map(label);
  // Each piece of a seat: true when shown, false when there but not shown, null when not there.
  const seen = (seat, selector) => seat.querySelector(selector) ? shown(seat.querySelector(selector)) : null;
  const seatInfo = seats.map(seat => ({
    seat: seat.dataset.seat, name: seen(seat, '.name'), points: seen(seat, '.points'), lives: seen(seat, '.lives'),
    held: seen(seat, '.held'), dealer: seen(seat, '.dealer'), away: seen(seat, '.tag.away'),
    turn: seat.classList.contains('turn'),
  }));
  const page = document.scrollingElement;
  return {outside, overlaps, inSeat, broken, unnamed, targets, seatInfo,
          scrolls: page.scrollHeight > innerHeight + 1 || page.scrollWidth > innerWidth + 1,
          trickShown: shown(document.getElementById('trick')),
          handCards: document.querySelectorAll('#hand button[data-card]').length,
          piles: document.querySelectorAll('#seats .played .card').length};
}"""


def check_one_screen(tab: Tab, where: str, *, seats: int, holding: bool) -> None:
    """Everything of the table inside the screen (scrolled to the top), nothing over anything else."""
    tab.page.evaluate("() => window.scrollTo(0, 0)")
    seen = tab.page.evaluate(LAYOUT_JS)
    assert not seen["scrolls"], f"{where}: the page scrolls"
    assert seen["outside"] == [], f"{where}: outside the screen: {seen['outside']}"
    assert seen["overlaps"] == [], f"{where}: overlapping: {seen['overlaps']}"
    assert seen["inSeat"] == [], f"{where}: inside the seats: {seen['inSeat']}"
    assert seen["broken"] == [], f"{where}: names broken or cut without an ellipsis: {seen['broken']}"
    assert seen["unnamed"] == [], f"{where}: seats whose accessible name lacks the name: {seen['unnamed']}"
    assert seen["targets"] == [], f"{where}: smaller than 44 × 44 px: {seen['targets']}"
    assert seen["trickShown"], where
    assert len(seen["seatInfo"]) == seats, where
    for seat in seen["seatInfo"]:
        assert seat["name"] and seat["points"] and seat["lives"], (where, seat)
        assert False not in (seat["held"], seat["dealer"], seat["away"]), (where, seat)
    assert sum(seat["dealer"] is True for seat in seen["seatInfo"]) == 1, where
    assert [seat["away"] for seat in seen["seatInfo"]][-1] is True, where  # the last seat stepped away
    if holding:
        assert seen["handCards"] > 0, where
        assert sum(seat["turn"] for seat in seen["seatInfo"]) == 1, where


@pytest.fixture(scope="module")
def still_server(e2e_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A live server whose pause after a deal is long enough to look at the deal's end on five screens."""
    yield from serve(tmp_path_factory.mktemp("still-server"), deal_pause=60)


def shoot_each_screen(tab: Tab, folder: Path, name: str, *, seats: int, holding: bool) -> list[str]:
    """At each of ``VIEWPORTS``: check the one-screen table and write its screenshot; returns the files."""
    written = []
    for width, height in VIEWPORTS:
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        path = folder / f"{name}-{width}x{height}.png"
        tab.page.screenshot(path=str(path), animations="disabled")
        written.append(str(path))
        check_one_screen(tab, f"{name} at {width}×{height}", seats=seats, holding=holding)
    return written


@pytest.mark.parametrize(("seats", "language"), list(itertools.product([2, 4, 7], ["en", "de"])))
def test_the_whole_table_fits_one_phone_screen_upright_and_sideways(
        open_tab, still_server: LiveServer, screenshots: Path, seats: int, language: str) -> None:
    server = still_server
    folder = screenshots / "phone-table"
    folder.mkdir(exist_ok=True)
    host = server.post("/api/rooms", {"name": HOST, "preset": "agurk"})
    code = host["code"]
    width, height = VIEWPORTS[0]
    tab = open_tab(f"{seats}-{language}", live=server, viewport={"width": width, "height": height}, **PHONE)
    tab.context.add_cookies([{"name": "cucumber_lang", "value": language, "url": server.url}])
    sign_in(tab, code, host["token"])
    tab.goto(f"/r/{code}")
    others = {seat: protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": name})["token"])
              for seat, name in enumerate(NAMES[:seats - 1], start=1)}
    sync_pages(server, code, [tab])
    tab.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    others[seats - 1].send({"type": "step_away"})  # away: the server's stand-in plays for them
    server.wait_room(code, lambda now: now["state"]["seats"][seats - 1]["away"])
    playing = {seat: player for seat, player in others.items() if seat != seats - 1}
    # Mid-trick in the second trick: cards on the table, someone still to play, a card in each pile.
    play_until(server, code, {0: tab}, playing,
               lambda now: now["state"]["trick_number"] == 2 and 0 < len(now["state"]["trick"]) < seats)
    tab.page.evaluate("() => window.scrollTo(0, 0)")
    name = f"{language}-{seats}-seats"
    written = shoot_each_screen(tab, folder, f"{name}-mid-trick", seats=seats, holding=True)
    play_until(server, code, {0: tab}, playing, lambda now: now["state"]["turn"] is None)
    tab.page.wait_for_selector('#status[data-stage="deal_over"]')
    written += shoot_each_screen(tab, folder, f"{name}-deal-end", seats=seats, holding=False)
    print(f"\nscreenshots: {folder} ({len(written)} files)")
    found = audit(tab)
    assert found == [], "; ".join(found)
    assert tab.problems() == []
    for player in others.values():
        player.close()


SHIFTS_JS = """(() => {
  window.shifts = [];
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      window.shifts.push({value: entry.value, moved: (entry.sources || []).map(source => source.node
        ? `${source.node.nodeName.toLowerCase()}#${source.node.id || ''}.${source.node.className || ''}` : '?')});
    }
  }).observe({type: 'layout-shift', buffered: true});
})()"""
"""Records the page's layout shifts (``window.shifts``: each one's value and the elements it moved)."""


def shifts_while_loading(tab: Tab, path: str) -> list[dict[str, Any]]:
    """Open ``path`` with the socket's frames held back until the page has loaded and painted, then let them
    through; returns the layout shifts the page recorded, from its start until it settled."""
    held: list[str | bytes] = []
    routes: list[Any] = []

    def route(socket: Any) -> None:
        to_server = socket.connect_to_server()
        routes.append(socket)
        to_server.on_message(lambda message: socket.send(message) if not held_back else held.append(message))

    held_back = True
    tab.page.route_web_socket(re.compile(r"/ws$"), route)
    tab.page.goto(tab.server.url + path)
    tab.page.wait_for_load_state("load")
    for _ in range(50):  # the first frame is there, held back
        if held:
            break
        tab.page.wait_for_timeout(100)
    assert held, f"{tab.label}: no frame came"
    tab.page.wait_for_timeout(500)
    held_back = False
    for message in held:
        routes[-1].send(message)
    tab.wait_live()
    tab.page.wait_for_timeout(800)
    shifts = list(tab.page.evaluate("() => window.shifts"))
    tab.page.unroute_all(behavior="ignoreErrors")
    return shifts


@pytest.mark.parametrize("screen", [{"width": 390, "height": 844}, {"width": 1366, "height": 768}],
                         ids=["phone", "desktop"])
def test_the_room_page_hardly_shifts_as_it_loads_seated_or_watching_in_the_lobby_and_in_play(
        open_tab, server: LiveServer, screen: dict[str, int]) -> None:
    host = server.post("/api/rooms", {"name": HOST, "preset": "agurk"})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": NAMES[0]})["token"])
    ana = protocol_player(server, code, host["token"])
    options: dict[str, Any] = dict(PHONE, viewport=screen) if screen["width"] < 800 else {"viewport": screen}
    found = {}
    for moment in ("lobby", "play"):
        if moment == "play":
            ana.send({"type": "start"})
            server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
        for who in ("seated", "watching"):
            tab = open_tab(f"{who} in the {moment}", **options)
            tab.page.add_init_script(SHIFTS_JS)
            if who == "seated":
                sign_in(tab, code, host["token"])
            shifts = shifts_while_loading(tab, f"/r/{code}")
            found[f"{who} in the {moment}"] = (round(sum(shift["value"] for shift in shifts), 4), shifts)
            assert tab.problems() == []
    ana.close()
    ben.close()
    print({key: total for key, (total, _) in found.items()})
    assert all(total <= 0.05 for total, _ in found.values()), found


PANELS = {"seats": "#seats", "chat": "#chat", "scores": "#scores", "rules": "#rules", "more": "#more"}


def test_on_a_phone_every_panel_is_one_tap_or_one_key_away_and_the_chat_counts_what_came_meanwhile(
        open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": HOST, "preset": "quick"})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": NAMES[1]})["token"])
    ana = open_tab("Ana", viewport={"width": 390, "height": 844}, **PHONE)
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    sync_pages(server, code, [ana])
    page = ana.page
    assert page.locator("header.site").is_hidden()  # the table has the screen; the site's links are a tap away
    table = ["#status", "#seats", "#trick"]
    for panel, selector in PANELS.items():
        tab = page.locator(f'.panel-tab[data-panel="{panel}"]')
        assert tab.get_attribute("aria-expanded") == "false"
        assert page.locator(selector).is_visible() == (panel == "seats")  # the seats are on the table too
        tab.click()  # one tap
        assert tab.get_attribute("aria-expanded") == "true"
        assert page.locator(selector).is_visible(), panel
        assert page.evaluate("(selector) => document.activeElement === document.querySelector(selector)", selector)
        assert all(page.locator(part).is_hidden() for part in table if part != selector), panel
        found = audit(ana)
        assert found == [], f"{panel}: " + "; ".join(found)
        page.keyboard.press("Escape")  # the table is back, and the keyboard on the tab that opened the panel
        assert tab.get_attribute("aria-expanded") == "false"
        assert page.evaluate("(panel) => document.activeElement.dataset.panel === panel", panel)
        assert all(page.locator(part).is_visible() for part in table)
    assert page.locator("#more .site-links a").count() == 3 and page.locator("#more form.language select").count() == 1

    # With the keyboard alone: Enter on a tab opens its panel, Enter again closes it.
    page.locator('.panel-tab[data-panel="rules"]').focus()
    page.keyboard.press("Enter")
    assert page.locator("#rules").is_visible() and page.locator("#hand").is_hidden()
    page.locator('.panel-tab[data-panel="rules"]').focus()
    page.keyboard.press("Enter")
    assert page.locator("#rules").is_hidden() and page.locator("#hand").is_visible()

    # Chat lines that come while the chat is not shown are counted on its tab, and read when it opens.
    unread = page.locator('.panel-tab[data-panel="chat"] .unread')
    assert unread.is_hidden()
    ben.send({"type": "chat", "text": "Hello from the sofa"})
    page.wait_for_function("() => document.querySelector('.unread-count').textContent === '1'")
    ben.send({"type": "react", "reaction": "good_luck"})
    page.wait_for_function("() => document.querySelector('.unread-count').textContent === '2'")
    assert unread.is_visible()
    assert unread.text_content() == "Unread messages: 2"  # as a screen reader says it
    page.click('.panel-tab[data-panel="chat"]')
    assert unread.is_hidden()
    assert "Hello from the sofa" in page.inner_text("#chat-log")
    page.fill("#chat-text", "Hi Ben")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#chat-log').textContent.includes('Hi Ben')")
    assert unread.is_hidden()  # read as it comes, with the chat open
    page.click('.panel-tab[data-panel="chat"]')

    # The seat actions are among the players: a link for another device opens with its QR code.
    assert page.locator("#seats .seat.you button.device-link").is_hidden()
    page.click('.panel-tab[data-panel="seats"]')
    page.click("#seats .seat.you button.device-link")
    page.wait_for_selector('#seat-link .qr svg[role="img"]')
    assert page.locator("#more").is_visible() and page.locator("#seat-link").is_visible()
    assert page.locator('.panel-tab[data-panel="more"]').get_attribute("aria-expanded") == "true"
    page.click('.panel-tab[data-panel="seats"]')
    page.click("#seats .seat.you button.step-away")
    server.wait_room(code, lambda now: now["state"]["seats"][0]["away"])
    page.click('.panel-tab[data-panel="seats"]')
    page.wait_for_selector("#seats .seat.you button.come-back")
    assert page.locator("#seats .seat.you button.come-back").is_visible()  # on the table itself: back in one tap
    ben.close()
    assert ana.problems() == []
