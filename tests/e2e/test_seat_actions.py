"""Seat buttons do what one click means: a double click on "Remove Ben" removes Ben alone, on "Add" seats one
bot, and on "Take a seat" seats one player, in this browser, however fast the table changes under the pointer."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import LiveServer, Tab, sign_in

pytestmark = pytest.mark.e2e


def names(server: LiveServer, code: str) -> list[str]:
    """The seated names, in seat order, as the server has them."""
    return [seat["name"] for seat in server.room(code)["state"]["seats"]]


def settle(tab: Tab, text: str) -> None:
    """Send a chat line from ``tab`` and wait until it is back: the server has then dealt with every frame
    the page sent before it (a socket's frames are handled in order)."""
    box = tab.page.locator("#chat-text")
    box.fill(text)
    box.press("Enter")
    tab.page.wait_for_function(
        """said => [...document.querySelectorAll('#chat-log .chat-said')].some(e => e.textContent.trim() === said)""",
        arg=text)


def second_click_at(tab: Tab, x: float, y: float) -> None:
    """The second click of a double click, at ``(x, y)``: the browser counts it as the run's second."""
    tab.page.mouse.move(x, y)
    tab.page.mouse.down(click_count=2)
    tab.page.mouse.up(click_count=2)


def test_a_double_click_on_remove_ben_removes_only_ben(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    for name in ("Ben", "Cy", "Dag", "Eve"):
        server.post(f"/api/rooms/{code}/players", {"name": name})
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    seats = server.room(code)["state"]["seats"]
    ben, cy, dag, eve = (seat["player"] for seat in seats[1:])
    assert ana.page.locator(f'#seats .seat[data-player="{ben}"]').get_attribute("data-seat") == "1"

    # The table changes before the second click comes: Cy's "Remove" is where Ben's was, and stays.
    box = ana.page.locator(f'#seats .seat[data-player="{ben}"] button.remove').bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    ana.page.mouse.click(x, y)
    ana.page.wait_for_selector(f'#seats .seat[data-player="{ben}"]', state="detached")
    under = ana.page.evaluate("([x, y]) => document.elementFromPoint(x, y).getAttribute('aria-label')", [x, y])
    assert under == "Remove Cy"
    second_click_at(ana, x, y)
    settle(ana, "after the second click")
    assert names(server, code) == ["Ana", "Cy", "Dag", "Eve"]
    assert ana.page.locator(f'#seats .seat[data-player="{cy}"]').get_attribute("data-seat") == "1"

    # A double click as fast as the browser makes it, wherever the table is when its second click comes.
    ana.page.locator(f'#seats .seat[data-player="{cy}"] button.remove').dblclick()
    ana.page.wait_for_selector(f'#seats .seat[data-player="{cy}"]', state="detached")
    settle(ana, "after the double click")
    assert names(server, code) == ["Ana", "Dag", "Eve"]

    # Two clicks sent from one page before the first is carried out, by script: the server refuses the second.
    ana.page.evaluate("player => { const b = document.querySelector(`#seats .seat[data-player='${player}'] "
                      "button.remove`); b.click(); b.click(); }", dag)
    ana.page.wait_for_selector('#flash[data-code="seat_changed"]')  # the second found Dag gone
    assert names(server, code) == ["Ana", "Eve"]
    assert ana.page.locator("#seats .seat").count() == 2
    assert ana.page.locator(f'#seats .seat[data-player="{eve}"]').get_attribute("data-seat") == "1"
    assert ana.problems() == []


def test_a_double_click_on_add_seats_one_bot(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana"})
    code = host["code"]
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    add = ana.page.locator("form.add-bot button[type=submit]")
    add.dblclick()
    server.wait_room(code, lambda now: len(now["state"]["seats"]) == 2)
    ana.page.wait_for_selector("#seats .seat >> nth=1")
    settle(ana, "after the double click")
    assert len(server.room(code)["state"]["seats"]) == 2
    assert ana.page.locator("#seats .seat").count() == 2

    # The second click of a double click that comes once the form says two seats: still one bot.
    box = add.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    ana.page.mouse.click(x, y)
    server.wait_room(code, lambda now: len(now["state"]["seats"]) == 3)
    ana.page.wait_for_selector("#seats .seat >> nth=2")
    second_click_at(ana, x, y)
    settle(ana, "after the second click")
    assert len(server.room(code)["state"]["seats"]) == 3

    # Two submits from one page before the first is carried out, by script: the server refuses the second.
    ana.page.evaluate("() => { const b = document.querySelector('form.add-bot button[type=submit]'); "
                      "b.click(); b.click(); }")
    ana.page.wait_for_selector('#flash[data-code="seat_changed"]')  # the second found the bot seated
    assert len(server.room(code)["state"]["seats"]) == 4

    # A single click still adds one more.
    add.click()
    server.wait_room(code, lambda now: len(now["state"]["seats"]) == 5)
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
