"""The host's seat buttons hit the player they name: a double click on "Remove Ben" removes Ben alone."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import LiveServer, sign_in

pytestmark = pytest.mark.e2e


def names(server: LiveServer, code: str) -> list[str]:
    """The seated names, in seat order, as the server has them."""
    return [seat["name"] for seat in server.room(code)["state"]["seats"]]


def test_a_double_click_on_remove_ben_removes_only_ben(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    for name in ("Ben", "Cy", "Dag"):
        server.post(f"/api/rooms/{code}/players", {"name": name})
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    seats = server.room(code)["state"]["seats"]
    ben, cy = seats[1]["player"], seats[2]["player"]
    assert ana.page.locator(f'#seats .seat[data-player="{ben}"]').get_attribute("data-seat") == "1"

    ana.page.locator(f'#seats .seat[data-player="{ben}"] button.remove').dblclick()
    server.wait_room(code, lambda now: len(now["state"]["seats"]) < 4)
    ana.page.wait_for_selector(f'#seats .seat[data-player="{ben}"]', state="detached")
    ana.page.wait_for_selector('#flash[data-code="seat_changed"]')  # the second click found Ben gone
    assert names(server, code) == ["Ana", "Cy", "Dag"]
    assert ana.page.locator(f'#seats .seat[data-player="{cy}"]').get_attribute("data-seat") == "1"

    # Two clicks sent from one page before the first is carried out, by script: the same.
    ana.page.evaluate("player => { const b = document.querySelector(`#seats .seat[data-player='${player}'] "
                      "button.remove`); b.click(); b.click(); }", cy)
    server.wait_room(code, lambda now: len(now["state"]["seats"]) < 3)
    ana.page.wait_for_selector(f'#seats .seat[data-player="{cy}"]', state="detached")
    assert names(server, code) == ["Ana", "Dag"]
    assert ana.page.locator("#seats .seat").count() == 2
    assert ana.problems() == []
