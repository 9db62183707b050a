"""Cards that are no longer playable: the server refuses them, the page says why, nothing else changes."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.e2e.helpers import LiveServer, check_pages, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e

TWO_CLICKS_JS = """([first, second]) => {
  document.querySelector(`#hand [data-card="${first}"]`).click();
  document.querySelector(`#hand [data-card="${second}"]`).click();
}"""


def test_a_second_quick_click_and_a_stale_page_show_the_servers_error(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana = open_tab("Ana")
    sign_in(ana, code, host["token"])

    # A second page of Ana's (another window), whose updates can be held back to make it stale.
    held: list[str | bytes] = []
    holding = {"on": False}
    routes: list[Any] = []
    stale = ana.context.new_page()

    def lag(route: Any) -> None:
        upstream = route.connect_to_server()
        routes.append(route)

        def from_server(message: str | bytes) -> None:
            if holding["on"] and 'id="flash"' not in str(message):
                held.append(message)
            else:
                route.send(message)

        upstream.on_message(from_server)
        route.on_message(upstream.send)

    stale.route_web_socket(f"**/r/{code}/ws", lag)
    sent: list[str] = []  # what Ana's page sends
    ana.page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(str(frame))))
    ana.goto(f"/r/{code}")
    stale.goto(f"{server.url}/r/{code}")
    stale.wait_for_selector('#connection[data-state="open"]', state="attached")
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")

    def ana_leads_next() -> dict[str, Any]:
        """Let Ben play until Ana is to lead a trick with two cards or more; returns the room."""
        while True:
            answer = sync_pages(server, code, [ana])
            state = answer["state"]
            if state["turn"] == 0 and not state["trick"] and state["seats"][0]["cards_left"] >= 2:
                return answer
            if state["turn"] == 1:
                ben.wait(lambda now: now["turn"] == 1)
                ben.play_lowest()
            elif state["turn"] == 0:
                ana.page.locator("#hand .card-button.playable").first.click()
            server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)

    # 1. Two quick clicks on two cards: the first card is played; the second, clicked while the first was on
    # its way, is never sent (the server would refuse it as stale: part 3).
    answer = ana_leads_next()
    first, second = [card["card"] for card in ana.snapshot()["hand"]][:2]
    ana.page.evaluate(TWO_CLICKS_JS, [first, second])
    server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
    time.sleep(0.3)
    after = sync_pages(server, code, [ana])
    assert after["version"] == answer["version"] + 1
    assert after["state"]["trick"] == [{"seat": 0, "card": first}]
    assert second in [card["card"] for card in ana.snapshot()["hand"]]
    assert check_pages(after, {0: ana}, [])
    # Compare the card field itself: the frame also carries the page's address, and a room code such as
    # "E4G2D" holds a card code.
    plays = [frame for frame in map(json.loads, sent) if frame.get("type") == "play"]
    assert [frame for frame in plays if frame.get("card") == second] == []
    assert ana.page.inner_text("#flash") == ""
    assert ana.page.locator("#hand .card-button.sent").count() == 0

    # 2. A card that was never playable: the page explains and sends nothing.
    blocked = ana.page.locator('#hand .card-button[aria-disabled="true"]').first
    reason = blocked.get_attribute("data-reason")
    blocked.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled
    assert reason and ana.page.inner_text("#flash") == reason[0].upper() + reason[1:]
    time.sleep(0.2)
    assert server.room(code)["version"] == after["version"]

    # 3. A stale page: Ana plays in one window while the other still shows the card as playable.
    answer = ana_leads_next()
    card = ana.snapshot()["hand"][0]["card"]
    holding["on"] = True
    ana.card(card).click()
    server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
    version = server.room(code)["version"]
    stale.locator(f'#hand .card-button.playable[data-card="{card}"]').click()
    stale.wait_for_selector("#flash[data-code]")
    assert stale.get_attribute("#flash", "data-code") == "stale_play"
    # The protocol's words start lower-case (they go inside sentences too); shown alone, as a sentence does.
    assert stale.inner_text("#flash").startswith("The table has moved on")
    assert stale.locator("#hand .card-button.sent").count() == 0  # the card drops back into the hand
    time.sleep(0.2)
    assert server.room(code)["version"] == version
    assert server.room(code)["state"]["trick"] == [{"seat": 0, "card": card}]

    # Once the held updates arrive, the stale page shows what the other one shows.
    holding["on"] = False
    for message in held:
        routes[-1].send(message)
    stale.wait_for_function("v => +document.getElementById('status').dataset.version >= v", arg=version)
    assert stale.evaluate("() => [...document.querySelectorAll('#hand .card-button')].map(b => b.dataset.card)") == [
        held_card["card"] for held_card in ana.snapshot()["hand"]]
    ben.close()
