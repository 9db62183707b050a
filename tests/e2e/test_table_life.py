"""Table life in the browser: the score sheet, the turn clock's count, the turn cue and sound, cards in
motion (and none under reduced motion), stepping away from a seat, and the room link's QR code.

Every new state is audited with axe-core. Screenshots of the score sheet on a 360 px phone and a
1366 px desktop, light and dark, are written to ``tests/e2e/screenshots/`` for people to review.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zxingcpp
from PIL import Image

from app.client import Connection
from app.game.history import deal_by_deal
from app.pages.rendering import qr_svg
from tests.e2e.helpers import LiveServer, Tab, audit, play_until, protocol_player, sign_in, sync_pages
from tests.e2e.test_languages import OVERFLOW_JS, PHONE_360
from tests.e2e.test_layout import DESKTOP, OTHERS, check_fit, shoot

pytestmark = pytest.mark.e2e

SHEET_JS = """() => [...document.querySelectorAll('#scoresheet tr[data-deal]')].map(row =>
  [...row.querySelectorAll('td')].map(cell => [+cell.dataset.penalty, +cell.dataset.total]))"""
"""The score sheet on the page: per deal, per seat, ``[penalty, total]``."""

MOTION_RECORDER_JS = """(() => {
  window.motions = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const motion = animate.apply(this, args);
    window.motions.push({motion, target: this});
    return motion;
  };
  window.runningMotions = 0;
  const sample = () => {
    const running = document.getAnimations()
      .filter(a => a.playState === 'running' && String(a.id).startsWith('motion'));
    window.runningMotions = Math.max(window.runningMotions, running.length);
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
})()"""
"""Records every Web Animations call of the page, and the most motions ever seen running at one frame."""


def accessible(tab: Tab) -> None:
    """The page passes the axe-core audit as it is now."""
    found = audit(tab)
    assert found == [], f"{tab.label}: " + "; ".join(found)


def open_table(server: LiveServer, open_tab: Callable[..., Tab], *, others: tuple[str, ...] = ("Ben",),
               rules: dict[str, Any] | None = None, init: str | None = None,
               **options: Any) -> tuple[str, Tab, dict[int, Connection]]:
    """A room with Ana hosting from a page (seat 0) and ``others`` seated over the protocol; not started."""
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick", **({"rules": rules} if rules else {})})
    code = host["code"]
    players = {seat: protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": name})["token"])
               for seat, name in enumerate(others, start=1)}
    ana = open_tab("Ana", **options)
    if init:
        ana.page.add_init_script(init)
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    return code, ana, players


def start(server: LiveServer, code: str, ana: Tab) -> None:
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing" and now["state"]["turn"] is not None)


def close(players: dict[int, Connection]) -> None:
    for player in players.values():
        player.close()


# ---------------------------------------------------------------- the score sheet

def test_the_score_sheet_after_two_deals_is_the_stored_records(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, rules={"match_length": 2})
    watcher = open_tab("Watcher")
    watcher.goto(f"/r/{code}")
    assert ana.page.locator("#scoresheet").is_hidden()
    start(server, code, ana)

    answer = play_until(server, code, {0: ana}, others, lambda now: len(now["state"]["score_sheet"]) == 1,
                        watchers=(watcher,))
    first = [[[seat["penalty"], seat["total"]] for seat in line["seats"]] for line in answer["state"]["score_sheet"]]
    for tab in (ana, watcher):
        assert tab.page.locator("#scoresheet").is_visible(), tab.label
        assert tab.page.evaluate(SHEET_JS) == first, tab.label
    accessible(ana)
    accessible(watcher)

    final = play_until(server, code, {0: ana}, others, lambda now: now["state"]["phase"] == "finished",
                       watchers=(watcher,))
    record = server.get(f"/api/matches/{final['state']['match_id']}/record")
    steps = deal_by_deal(record)
    stored = []
    for step in steps:
        paid = {seat: points for seat, points, _, _ in step.summary.penalties}
        stored.append([[paid.get(seat, 0), step.scores[seat]] for seat in range(len(record["players"]))])
    assert len(stored) == 2 and stored[:1] == first
    for tab in (ana, watcher):
        assert tab.page.evaluate(SHEET_JS) == stored, tab.label
        # The last deal's last trick, opened: who played what, in order, and who took it. Its summary shows the
        # marker that says it opens (a summary laid out otherwise than as a list item has none).
        summary = tab.page.locator("#last-trick-details > summary")
        assert summary.evaluate("e => getComputedStyle(e).display") == "list-item"
        assert summary.evaluate("e => getComputedStyle(e, '::marker').content") != "none"
        summary.click()
        trick = tab.page.locator("#last-trick-details li")
        assert [(int(trick.nth(i).get_attribute("data-seat")), trick.nth(i).get_attribute("data-code"))
                for i in range(trick.count())] == [(seat, card.code) for seat, card in steps[-1].tricks[-1].plays]
        winner = steps[-1].tricks[-1].winner
        assert "took the trick" in tab.page.locator(f'#last-trick-details li[data-seat="{winner}"]').inner_text()
        accessible(tab)
    close(others)
    assert ana.problems() == [] and watcher.problems() == []


@pytest.mark.parametrize(("width", "scheme"), [(360, "light"), (360, "dark"), (1366, "light"), (1366, "dark")])
def test_the_open_score_sheet_fits(open_tab, server: LiveServer, screenshots: Path, width: int, scheme: str) -> None:
    options = dict(PHONE_360 if width == 360 else DESKTOP, color_scheme=scheme)
    # Five players: on a phone the sheet is wider than the screen and scrolls inside its box.
    code, ana, others = open_table(server, open_tab, others=tuple(OTHERS), **options)
    start(server, code, ana)
    play_until(server, code, {0: ana}, others,
               lambda now: len(now["state"]["score_sheet"]) >= 1 and now["state"]["turn"] == 0)
    if width == 360:
        ana.page.click('.panel-tab[data-panel="scores"]')  # on a phone the sheet is behind its tab
    ana.page.click("#last-trick-details > summary")
    ana.page.locator("#scoresheet").scroll_into_view_if_needed()
    shoot(ana, screenshots, f"score-sheet-{width}-{scheme}")
    check_fit(ana, f"{width} {scheme}", phone=width == 360)
    assert ana.page.evaluate(OVERFLOW_JS) == [], (width, scheme)
    # Words for screen readers only are absolutely positioned: inside the sheet's scrolling box, so that
    # those of a cell scrolled out of view never widen the page.
    assert ana.page.evaluate("() => [...document.querySelectorAll('#scoresheet .table-scroll .visually-hidden')]"
                             ".every(e => e.offsetParent && e.offsetParent.closest('.table-scroll'))")
    accessible(ana)
    close(others)
    assert ana.problems() == []


# ---------------------------------------------------------------- your turn: the clock, the title, the sound

def test_the_turn_clock_counts_down_for_everyone(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab)
    watcher = open_tab("Watcher")
    watcher.goto(f"/r/{code}")
    ana.page.select_option("#controls .clock-form select", "30")
    ana.page.click("#controls .clock-form button")
    server.wait_room(code, lambda now: now["state"]["turn_seconds"] == 30)
    start(server, code, ana)
    sync_pages(server, code, [ana, watcher])
    for tab in (ana, watcher):
        count = tab.page.locator("#status .clock-count")
        assert count.is_visible(), tab.label
        first = int(count.inner_text())
        assert 0 < first <= 30
        tab.page.wait_for_function("n => +document.querySelector('#status .clock-count').textContent < n", arg=first,
                                   timeout=5000)
    accessible(watcher)
    close(others)


YOUR_TURN_TITLE = re.compile(r"^● Your turn · Table [A-Z0-9]+ · Cucumber$")


def test_the_tab_title_says_when_it_is_your_turn(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab)
    assert not YOUR_TURN_TITLE.match(ana.page.title())
    start(server, code, ana)
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    assert YOUR_TURN_TITLE.match(ana.page.title()), ana.page.title()
    # Ana plays (as often as the turn comes back to her) until it is Ben's turn: no cue then.
    play_until(server, code, {0: ana}, others, lambda now: now["state"]["turn"] == 1)
    assert not ana.page.title().startswith("●") and ana.page.title().startswith("Table "), ana.page.title()
    close(others)


TONES_JS = """(() => {
  window.tones = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.tones += 1; return start.apply(this, args); };
})()"""
"""Counts the tones the page starts (Web Audio oscillators)."""


def test_the_turn_sound_is_off_until_turned_on_and_is_remembered(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, init=TONES_JS)
    button = ana.page.locator("button.turn-sound")
    assert button.is_visible() and button.get_attribute("aria-pressed") == "false"
    assert ana.page.evaluate("() => localStorage.getItem('cucumber.turnSound')") is None
    start(server, code, ana)
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    assert ana.page.evaluate("() => window.tones") == 0  # off: no tone when the turn came
    button.focus()
    ana.page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    assert ana.page.evaluate("() => localStorage.getItem('cucumber.turnSound')") == "on"
    assert ana.page.evaluate("() => window.tones") == 1  # a sample of the tone
    accessible(ana)

    ana.page.reload()
    ana.wait_live()
    assert ana.page.locator("button.turn-sound").get_attribute("aria-pressed") == "true"
    # Play on until the turn passes to Ben, then comes back to Ana: the tone sounds once.
    play_until(server, code, {0: ana}, others, lambda now: now["state"]["turn"] == 1)
    assert ana.page.evaluate("() => window.tones") == 0
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    ana.page.wait_for_function("() => window.tones === 1")
    ana.page.locator("button.turn-sound").click()
    assert ana.page.evaluate("() => localStorage.getItem('cucumber.turnSound')") == "off"
    watcher = open_tab("Watcher")
    watcher.goto(f"/r/{code}")
    assert watcher.page.locator("button.turn-sound").count() == 0  # spectators have no turn
    close(others)
    assert ana.problems() == []


AWAKE_JS = """(() => {
  window.locks = [];
  window.vibrations = [];
  const request = type => {
    const sentinel = new EventTarget();
    sentinel.type = type;
    sentinel.released = false;
    sentinel.release = () => {
      if (!sentinel.released) {
        sentinel.released = true;
        window.locks.push('release');
        sentinel.dispatchEvent(new Event('release'));
      }
      return Promise.resolve();
    };
    window.locks.push('request ' + type);
    return Promise.resolve(sentinel);
  };
  Object.defineProperty(navigator, 'wakeLock', {value: {request}, configurable: true});
  Object.defineProperty(navigator, 'vibrate', {value: pattern => { window.vibrations.push(pattern); return true; },
                                               configurable: true});
})()"""
"""The page's Screen Wake Lock and Vibration APIs, recording what it asks of them (``window.locks``:
"request screen" and "release"; ``window.vibrations``: the patterns)."""

SHOWN_JS = """(shown) => {
  Object.defineProperty(document, 'visibilityState', {value: shown ? 'visible' : 'hidden', configurable: true});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
"""Tells the page it is hidden (``false``) or shown (``true``), as the browser would."""


def locks(tab: Tab) -> list[str]:
    return list(tab.page.evaluate("() => window.locks"))


def test_the_screen_stays_awake_through_your_match_while_shown_and_you_may_feel_your_turn(
        open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, init=AWAKE_JS, rules={"match_length": 3})
    watcher = open_tab("Watcher")
    watcher.page.add_init_script(AWAKE_JS)
    watcher.goto(f"/r/{code}")
    assert locks(ana) == []  # in the lobby the screen may sleep
    vibrate = ana.page.locator("button.turn-vibrate")
    assert vibrate.is_visible() and vibrate.get_attribute("aria-pressed") == "false"

    start(server, code, ana)
    ana.page.wait_for_function("() => window.locks.length === 1")
    assert locks(ana) == ["request screen"]
    ana.page.evaluate(SHOWN_JS, False)  # the tab is hidden: the lock goes
    assert locks(ana) == ["request screen", "release"]
    ana.page.evaluate(SHOWN_JS, True)  # and comes back with the page
    ana.page.wait_for_function("() => window.locks.length === 3")
    assert locks(ana)[-1] == "request screen"

    # The vibration is off until turned on: Ana's turns come without one.
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    assert ana.page.evaluate("() => window.vibrations") == []
    vibrate.click()
    assert vibrate.get_attribute("aria-pressed") == "true"
    assert ana.page.evaluate("() => localStorage.getItem('cucumber.turnVibrate')") == "on"
    assert ana.page.evaluate("() => window.vibrations.length") == 1  # what it feels like
    accessible(ana)
    play_until(server, code, {0: ana}, others, lambda now: now["state"]["turn"] == 1)
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    ana.page.wait_for_function("() => window.vibrations.length === 2")

    # (At a slow table the screen stays awake only while it is your turn: tests/e2e/test_slow_page.py.)

    # The match ends: the screen may sleep again. A spectator never kept it awake.
    play_until(server, code, {0: ana}, others, lambda now: now["state"]["phase"] == "finished")
    ana.page.wait_for_function("() => window.locks.at(-1) === 'release'")
    assert locks(watcher) == [] and watcher.page.locator("button.turn-vibrate").count() == 0
    ana.page.reload()
    ana.wait_live()
    assert ana.page.locator("button.turn-vibrate").get_attribute("aria-pressed") == "true"  # remembered
    close(others)
    assert ana.problems() == [] and watcher.problems() == []


# ---------------------------------------------------------------- motion

FREE_TO_CLICK_JS = """() => {
  const running = document.getAnimations().filter(a => a.playState === 'running' && String(a.id).startsWith('motion'));
  const card = document.querySelector('#hand .card-button.playable');
  if (!running.length || !card) return null;
  const box = card.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {running: running.length, free: !!hit && hit.closest('.card-button') === card};
}"""


def test_a_played_card_moves_and_clicks_stay_possible(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, init=MOTION_RECORDER_JS)
    start(server, code, ana)
    answer = play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
    card = ana.page.locator("#hand .card-button.playable").first.get_attribute("data-card")
    ana.page.locator(f'#hand .card-button[data-card="{card}"]').click()
    server.wait_room(code, lambda now: now["version"] > answer["version"])
    # From her hand to the trick, or to her pile when her card ended the trick.
    ana.page.wait_for_function(
        "card => window.motions.some(m => ['motion-play', 'motion-pile'].includes(m.motion.id)"
        " && m.target.querySelector(`[data-card='${card}']`))", arg=card)
    assert ana.page.evaluate("() => window.motions.every(m => m.motion.effect.getTiming().duration <= 300)")
    ana.page.wait_for_function("() => window.runningMotions > 0")
    # Ben plays: his card comes from his seat, while Ana's hand stays free to click.
    play_until(server, code, {0: ana}, others, lambda now: now["state"]["turn"] == 1)
    ben = others[1]
    ben.wait(lambda state: state["turn"] == 1 and bool(state["you"]["legal"]))
    ana.page.evaluate("() => { window.motions = []; }")
    ben.play_lowest()
    ana.page.wait_for_function("() => window.motions.some(m => String(m.motion.id).startsWith('motion'))")
    seen = ana.page.evaluate(FREE_TO_CLICK_JS)
    if seen is not None:  # Ana's turn came with the motion still running: nothing stands over her cards
        assert seen["free"], seen
    assert ana.page.evaluate("() => [...document.querySelectorAll('.in-motion')]"
                             ".every(e => getComputedStyle(e).pointerEvents === 'none')")
    close(others)
    assert ana.problems() == []


HOLD_MOTION_JS = """at => {
  const moving = document.getAnimations().filter(a => String(a.id).startsWith('motion'));
  moving.forEach(a => { a.pause(); a.currentTime = at; });
  return moving.length;
}"""
"""Stops the cards in motion ``at`` ms into their way; returns how many there are."""


PHONE_375 = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}


@pytest.mark.parametrize("options", [
    {**PHONE_375, "locale": "da-DK"},
    {**PHONE_375, "color_scheme": "dark"},
    {"color_scheme": "dark"},
], ids=["phone-da", "phone-dark", "dark"])
def test_cards_on_their_way_pass_the_audit(open_tab, server: LiveServer, options: dict[str, Any]) -> None:
    """A card flying to the trick crosses the seats' light panels: its player's name (light on the felt) and
    a card fading in used to fail the contrast rule for the quarter second they moved."""
    code, ana, others = open_table(server, open_tab, others=("Ben", "Cy"), init=MOTION_RECORDER_JS, **options)
    start(server, code, ana)
    problems: list[str] = []
    for at in (30, 90, 150, 210) * 3:
        answer = play_until(server, code, {0: ana}, others, lambda now: now["state"]["turn"] in others,
                            watchers=(ana,))
        player = others[answer["state"]["turn"]]
        player.wait(lambda now, player=player, version=answer["version"]: player.version >= version
                    and bool(now["you"]["legal"]))
        ana.page.evaluate("() => { window.motions = []; }")
        player.play_lowest()
        ana.page.wait_for_function("() => window.motions.some(m => String(m.motion.id).startsWith('motion'))")
        assert ana.page.evaluate(HOLD_MOTION_JS, at) > 0
        problems += [f"{at} ms: {problem}" for problem in audit(ana, settle=False)]
        ana.page.evaluate("() => document.getAnimations().filter(a => String(a.id).startsWith('motion'))"
                          ".forEach(a => a.finish())")
    close(others)
    assert problems == []
    assert ana.problems() == []


def test_a_card_played_mid_trick_replaces_only_the_seats_it_changed(open_tab, server: LiveServer) -> None:
    """At a table of three, a card played into a trick of one: on Ana's page the seat that played it and the
    seat to play next are new elements; the third seat and the seats' container are the very elements they
    were (and the seats stay in order)."""
    code, ana, others = open_table(server, open_tab, others=("Ben", "Cy"))
    start(server, code, ana)
    answer = play_until(server, code, {0: ana}, others,
                        lambda now: len(now["state"]["trick"]) == 1 and now["state"]["turn"] in others)
    ana.page.evaluate("() => { for (const e of [document.getElementById('seats'), "
                      "...document.querySelectorAll('#seats .seat')]) e.seenBefore = true; }")
    mover = answer["state"]["turn"]
    player = others[mover]
    player.wait(lambda now: player.version >= answer["version"] and now["turn"] == mover)
    player.play_lowest()
    server.wait_room(code, lambda now: now["version"] > answer["version"])
    after = sync_pages(server, code, [ana])
    following = after["state"]["turn"]
    assert following not in (None, mover) and len(after["state"]["trick"]) == 2
    seen = ana.page.evaluate("() => ({container: document.getElementById('seats').seenBefore === true, seats: "
                             "[...document.querySelectorAll('#seats .seat')]"
                             ".map(e => [+e.dataset.seat, e.seenBefore === true])})")
    assert seen == {"container": True, "seats": [[seat, seat not in (mover, following)] for seat in range(3)]}
    close(others)
    assert ana.problems() == []


def test_reduced_motion_moves_nothing(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, init=MOTION_RECORDER_JS)
    ana.page.emulate_media(reduced_motion="reduce")
    start(server, code, ana)
    for _ in range(2):
        answer = play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana,))
        ana.page.locator("#hand .card-button.playable").first.click()
        server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
        sync_pages(server, code, [ana])
        ana.page.wait_for_timeout(100)  # frames for the recorder to sample
    assert ana.page.evaluate("() => window.motions.filter(m => String(m.motion.id).startsWith('motion')).length") == 0
    assert ana.page.evaluate("() => window.runningMotions") == 0
    long_running = ana.page.evaluate("() => document.getAnimations().filter(a => a.playState === 'running'"
                                     " && a.effect.getComputedTiming().duration > 1).length")
    assert long_running == 0
    accessible(ana)
    close(others)


# ---------------------------------------------------------------- leaving by choice

def test_a_player_who_has_to_go_is_played_by_a_bot_at_once_and_comes_back(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab)
    watcher = open_tab("Watcher")
    watcher.goto(f"/r/{code}")
    start(server, code, ana)
    play_until(server, code, {}, others, lambda now: now["state"]["turn"] == 0, watchers=(ana, watcher))
    ana.page.locator("#seats .seat.you button.step-away").click()
    # The server's away grace is ten minutes: only stepping away lets the bot play Ana's card now.
    after = server.wait_room(code, lambda now: now["state"]["turn"] != 0 or now["state"]["trick_number"] > 1,
                             timeout=5)
    assert after["state"]["seats"][0]["stepped_away"] and after["state"]["seats"][0]["away"]
    sync_pages(server, code, [ana, watcher])
    for tab in (ana, watcher):
        tag = tab.page.locator('#seats .seat[data-seat="0"] .tag.away')
        assert tag.is_visible(), tab.label
        accessible(tab)
    back = ana.page.locator("#seats .seat.you button.come-back")
    back.focus()
    ana.page.keyboard.press("Enter")
    server.wait_room(code, lambda now: not now["state"]["seats"][0]["away"])
    ana.page.wait_for_selector("#seats .seat.you button.step-away")
    watcher.page.wait_for_selector('#seats .seat[data-seat="0"] .tag.away', state="detached")
    accessible(ana)
    close(others)
    assert ana.problems() == [] and watcher.problems() == []


def test_the_host_may_hand_on_the_seat_of_a_player_who_stepped_away_and_not_their_own(open_tab,
                                                                                      server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab)
    start(server, code, ana)
    buttons = "#seats .seat button.remove, #seats .seat button.give-seat"
    assert ana.page.locator(buttons).count() == 0  # Ben is here: his seat is his
    others[1].send({"type": "step_away"})
    server.wait_room(code, lambda now: now["state"]["seats"][1]["away"])
    sync_pages(server, code, [ana])
    ben = ana.page.locator('#seats .seat[data-seat="1"]')
    assert ben.locator("button.remove").inner_text() == "Hand to a bot"
    assert ben.locator("button.give-seat").get_attribute("title") == \
        "Make a link that gives Ben's seat to someone else"
    assert ana.page.locator('#seats .seat[data-seat="0"]').locator(buttons).count() == 0
    accessible(ana)
    close(others)
    assert ana.problems() == []


# ---------------------------------------------------------------- inviting

SHARE_JS = """(() => {
  navigator.share = data => { window.shared = data; return Promise.resolve(); };
})()"""


def svg_path(svg: str) -> str:
    """The drawing of a QR code's SVG: its path's ``d``."""
    found = re.search(r'<path[^>]* d="([^"]+)"', svg)
    assert found, svg[:200]
    return found.group(1)


def test_the_qr_code_is_the_room_link(open_tab, server: LiveServer) -> None:
    code, ana, others = open_table(server, open_tab, init=SHARE_JS)
    link = f"{server.url}/r/{code}"
    assert ana.page.locator(".share .copy-link").get_attribute("data-url") == link
    qr = ana.page.locator(".share .invite .qr svg")
    assert qr.is_hidden()
    ana.page.click(".share .invite > summary")
    assert qr.is_visible()
    assert qr.get_attribute("role") == "img" and qr.get_attribute("aria-label") == "QR code of the link to this table"
    # Segno's own drawing of the link, and what a camera reads from the screen.
    assert svg_path(qr.evaluate("e => e.outerHTML")) == svg_path(str(qr_svg(link, "x")))
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.screenshot())).convert("L"))
    assert [barcode.text for barcode in found] == [link]
    accessible(ana)
    # The share button, where the browser has a share sheet.
    ana.page.click(".share .share-link")
    ana.page.wait_for_function("() => !!window.shared")
    assert ana.page.evaluate("() => window.shared.url") == link

    # Another browser, without a share sheet, in Danish: no share button, and the code named in Danish.
    dane = open_tab("Dane")
    dane.context.add_cookies([{"name": "cucumber_lang", "value": "da", "url": server.url}])
    dane.goto(f"/r/{code}")
    assert dane.page.locator(".share .share-link").is_hidden()
    label = dane.page.locator(".share .invite .qr svg").get_attribute("aria-label")
    assert label == "QR-kode til linket til dette bord"
    close(others)
    assert ana.problems() == [] and dane.problems() == []
