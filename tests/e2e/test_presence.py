"""Presence that tells the truth: a page kept in the back/forward cache, hidden or frozen is not
counted at the table, and it comes back by itself when it is shown again.

These run in a Chromium whose back/forward cache is on (as in people's browsers), against a
server whose away grace is 3 seconds, so that pages beat every second.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.client import Connection
from tests.e2e.conftest import SHORT_GRACE_SECONDS
from tests.e2e.helpers import LiveServer, Tab, check_pages, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e

BEAT = SHORT_GRACE_SECONDS / 3  # the page's heartbeat period with that grace
SOON = 1.5  # seconds: much less than the three silent beats after which the server would tell by itself

LOOK = """state => {
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => state});
  Object.defineProperty(document, 'hidden', {configurable: true, get: () => state === 'hidden'});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
"""Make the page believe it is hidden or visible (a headless page is always visible), as a browser tells it."""


def seat(answer: dict[str, Any], index: int) -> dict[str, Any]:
    return answer["state"]["seats"][index]


def leave_for_past_matches(tab: Tab) -> float:
    """Follow the "Past matches" link, as a player looking something up; returns when it was clicked."""
    clicked = time.monotonic()
    tab.page.click("header nav >> text=Past matches")
    tab.page.wait_for_url("**/matches")
    return clicked


def come_back(tab: Tab) -> None:
    """Go back to the table and wait until it is live.

    The room page is ``Cache-Control: private, no-store`` (it holds a hand), so the browser loads it afresh
    rather than restoring it from the back/forward cache; either way the page must be live again."""
    tab.page.go_back(wait_until="commit")  # a page restored from the cache sends no load event
    tab.wait_live()


def anas_turn(open_tab: Any, server: LiveServer) -> tuple[str, Tab, Connection, dict[str, Any]]:
    """A quick match of Ana (her page, host) and Ben (the protocol), played by Ben until it is Ana's
    turn: the room's code, her page, Ben, and the room once her page shows it."""
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    # Her page is live before Ben sits down: a host still away when the 3-second grace ends, with another
    # player there, hands the hosting on to them, and a slow browser start would make Ben the host.
    ana.goto(f"/r/{code}")
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana.page.click("#controls button.start")
    while True:
        state = ben.wait(lambda now: now["phase"] == "playing" and now["turn"] is not None)
        if state["turn"] == 0:
            return code, ana, ben, sync_pages(server, code, [ana])
        seen = ben.version
        ben.play_lowest()
        ben.wait(lambda now, seen=seen: ben.version > seen)


def test_a_player_who_goes_to_past_matches_is_gone_at_once_played_for_then_back(
        open_cached_tab, presence_server: LiveServer) -> None:
    server = presence_server
    code, ana, ben, before = anas_turn(open_cached_tab, server)
    assert before["state"]["turn"] == 0 and before["state"]["turn_seconds"] is None  # her turn, no clock

    clicked = leave_for_past_matches(ana)
    server.wait_room(code, lambda now: not seat(now, 0)["connected"], timeout=SOON)
    assert time.monotonic() - clicked < SOON  # the page closed its socket: no waiting for silence
    played_for = server.wait_room(code, lambda now: seat(now, 0)["away"]
                                  and seat(now, 0)["cards_left"] < seat(before, 0)["cards_left"],
                                  timeout=SHORT_GRACE_SECONDS + 3)
    assert not seat(played_for, 0)["connected"]

    come_back(ana)
    answer = server.wait_room(code, lambda now: seat(now, 0)["connected"] and not seat(now, 0)["away"])
    while not check_pages(sync_pages(server, code, [ana]), {0: ana}, []):
        pass  # the table moved on meanwhile: look again
    assert ana.snapshot()["version"] >= answer["version"]
    assert ana.page_errors == [] and ana.console_errors == []
    ben.close()


def test_a_spectator_who_goes_to_past_matches_is_no_longer_counted(open_cached_tab,
                                                                   presence_server: LiveServer) -> None:
    server = presence_server
    code = server.post("/api/rooms", {"name": "Ana"})["code"]
    watcher = open_cached_tab("spectator")
    watcher.goto(f"/r/{code}")
    server.wait_room(code, lambda now: now["state"]["spectators"] == 1)

    clicked = leave_for_past_matches(watcher)
    server.wait_room(code, lambda now: now["state"]["spectators"] == 0, timeout=SOON)
    assert time.monotonic() - clicked < SOON

    come_back(watcher)
    server.wait_room(code, lambda now: now["state"]["spectators"] == 1)
    sync_pages(server, code, [watcher])
    assert watcher.page_errors == [] and watcher.console_errors == []


def test_a_hidden_page_stops_beating_and_is_counted_gone_a_frozen_one_at_once_both_come_back(
        open_cached_tab, presence_server: LiveServer) -> None:
    server = presence_server
    code, ana, ben, _ = anas_turn(open_cached_tab, server)
    ana.page.evaluate("() => { window.opened = 0; document.addEventListener('htmx:wsOpen', () => window.opened++); }")

    # Hidden (another tab in front): the page stops beating, the server closes it after three
    # silent beats (4408) and counts her gone from her last beat, so she is away at once.
    hidden = time.monotonic()
    ana.page.evaluate(LOOK, "hidden")
    gone = server.wait_room(code, lambda now: not seat(now, 0)["connected"], timeout=3 * BEAT + 3)
    assert time.monotonic() - hidden > BEAT  # it was the silence, not the page, that ended it
    assert seat(gone, 0)["away"]  # silent for three beats already: the grace is over
    ana.page.wait_for_selector('#connection[data-state="closed"]', state="attached")
    time.sleep(2 * BEAT)
    assert not seat(server.room(code), 0)["connected"]  # no reconnecting while hidden
    assert ana.page.evaluate("() => window.opened") == 0

    # Shown again: it reconnects at once, and keeps beating.
    ana.page.evaluate(LOOK, "visible")
    server.wait_room(code, lambda now: seat(now, 0)["connected"] and not seat(now, 0)["away"], timeout=SOON + 1)
    time.sleep(4 * BEAT)
    assert seat(server.room(code), 0)["connected"]

    # Frozen (a browser freezes pages it keeps in the background): the page closes its socket first.
    frozen = time.monotonic()
    ana.page.evaluate("() => document.dispatchEvent(new Event('freeze'))")
    server.wait_room(code, lambda now: not seat(now, 0)["connected"], timeout=SOON)
    assert time.monotonic() - frozen < SOON
    ana.page.evaluate("() => document.dispatchEvent(new Event('resume'))")
    server.wait_room(code, lambda now: seat(now, 0)["connected"], timeout=SOON + 1)
    sync_pages(server, code, [ana])
    assert ana.page_errors == [] and ana.console_errors == []
    ben.close()
