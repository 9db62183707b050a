"""Seat buttons do what one click means: a double click on "Remove Ben" removes Ben alone, on "Add" seats one
bot, and on "Take a seat" seats one player, in this browser."""

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


def test_a_double_click_on_add_seats_one_bot(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    ana.page.locator("form.add-bot button[type=submit]").dblclick()
    server.wait_room(code, lambda now: len(now["state"]["seats"]) == 2)
    ana.page.wait_for_selector('#flash[data-code="seat_changed"]')  # the second click found the bot seated
    ana.page.wait_for_selector("#seats .seat >> nth=1")
    assert len(server.room(code)["state"]["seats"]) == 2
    assert ana.page.locator("#seats .seat").count() == 2

    # The form now says two seats: one more click seats one more bot.
    ana.page.locator("form.add-bot button[type=submit]").click()
    server.wait_room(code, lambda now: len(now["state"]["seats"]) == 3)
    assert ana.problems() == []


SUBMIT_TWICE = """() => {
  const form = document.querySelector("#join form");
  let posted = 0;
  const count = (event) => { if (!event.defaultPrevented) posted += 1; };
  window.addEventListener("submit", count);  // after the page's own listeners: the event bubbles up to it last
  form.requestSubmit();
  form.requestSubmit();
  window.removeEventListener("submit", count);
  return posted;
}"""


def test_a_second_click_on_take_a_seat_while_the_first_is_on_its_way_posts_nothing_more(
        open_tab, server: LiveServer) -> None:
    code = server.post("/api/rooms", {"name": "Ana"})["code"]
    ben = open_tab("Ben")
    ben.goto(f"/r/{code}")
    ben.page.fill("#join input[name=name]", "Ben")
    # On a slow network the first post is still on its way when an impatient second click comes. A second
    # post would replace the first in the browser: the server would seat Ben from the first, refuse the
    # second (the name is taken), and the browser would keep only that refusal, without the seat's cookie.
    assert ben.page.evaluate(SUBMIT_TWICE) == 1
    ben.page.wait_for_selector("#seats .seat.you")  # the page this browser landed on is seated
    ben.page.wait_for_load_state("load")
    assert names(server, code) == ["Ana", "Ben"]
    assert ben.page.locator("#seats .seat.you").get_attribute("data-seat") == "1"
    assert ben.problems() == []
