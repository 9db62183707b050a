"""The host's controls in the lobby: bots fill the table, and the turn clock stays settable when it is full."""

from __future__ import annotations

import pytest

from app.game.rules import MAX_PLAYERS
from tests.e2e.helpers import LiveServer, sign_in

pytestmark = pytest.mark.e2e


def test_with_every_seat_taken_the_host_still_sets_the_turn_clock(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")

    # The host fills every other seat with a bot from the page's form.
    for seats in range(2, MAX_PLAYERS + 1):
        ana.page.click("#controls form.add-bot button[type=submit]")
        ana.page.wait_for_function("n => document.querySelectorAll('#seats .seat').length === n", arg=seats)
    assert ana.page.inner_text("#seats .seats-title .hint") == f"{MAX_PLAYERS} of {MAX_PLAYERS} seats taken"
    assert ana.page.locator("#controls form.add-bot").count() == 0  # no seat left for a bot

    clock = ana.page.locator("#controls form.clock-form")
    assert clock.is_visible()
    clock.locator("select[name=seconds]").select_option("30")
    clock.locator("button[type=submit]").click()
    server.wait_room(code, lambda now: now["state"]["turn_seconds"] == 30)
    ana.page.wait_for_selector("#status .clock-note")
    assert "30 seconds a turn" in ana.page.inner_text("#status .clock-note")
    assert ana.page.locator("#controls form.clock-form select[name=seconds]").input_value() == "30"
    assert ana.page.locator("#controls button.start").is_enabled()
    assert ana.problems() == []
