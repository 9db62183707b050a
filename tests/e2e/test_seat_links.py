"""A seat moves to another browser mid-match: Ben's link opens on his laptop, which plays on; his phone watches."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.helpers import LiveServer, check_pages, play_until, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e


def cards_played(state: dict[str, Any]) -> int:
    """Cards played so far in the deal being played."""
    return sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])


def test_ben_opens_his_link_in_another_browser_and_plays_on_while_the_first_is_turned_away(
        open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    seated = server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    ana = protocol_player(server, code, host["token"])
    phone, laptop = open_tab("Ben's phone"), open_tab("Ben's laptop")
    sign_in(phone, code, seated["token"])
    phone.goto(f"/r/{code}")
    ana.send({"type": "start"})
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")

    # The first trick is played; Ben still holds two cards of the first deal.
    answer = play_until(server, code, {1: phone}, {0: ana},
                        lambda now: now["state"]["deal"] == 1 and cards_played(now["state"]) == 2)
    before = phone.snapshot()
    ben = answer["state"]["seats"][1]["player"]
    assert len(before["hand"]) == 2

    phone.page.click("#seats .seat.you button.device-link")
    phone.page.wait_for_selector('#seat-link .qr svg[role="img"][aria-label]')
    url = phone.page.inner_text("#seat-link .seat-link-url code")
    assert url.startswith(f"{server.url}/r/{code}/take#")
    assert phone.page.get_attribute("#seat-link .copy-link", "data-url") == url
    secret = url.split("#")[1]
    ana.drain()
    assert secret not in json.dumps(ana.state) and secret not in json.dumps(server.room(code))  # for Ben alone

    # The laptop opens the link: the secret leaves the address bar, and one click takes the seat.
    laptop.goto(url)
    assert laptop.page.evaluate("() => location.hash") == ""
    assert laptop.page.locator("form.take-form label.take-secret").is_hidden()
    laptop.page.click("form.take-form button[type=submit]")
    laptop.page.wait_for_url(f"{server.url}/r/{code}")
    laptop.wait_live()

    # The phone is told and turned into a spectator's page; its spent link is gone.
    phone.page.wait_for_selector('#flash[data-code="seat_moved"]')
    phone.page.wait_for_selector("#seat-link .qr", state="detached")
    answer = sync_pages(server, code, [phone, laptop])
    assert answer["state"]["seats"][1]["player"] == ben  # the same player, on another device
    assert phone.snapshot()["hand"] == [] and phone.page.locator("#seats .seat.you").count() == 0
    after = laptop.snapshot()
    assert [held["card"] for held in after["hand"]] == [held["card"] for held in before["hand"]]
    assert (after["turn"], after["trick"], after["played"]) == (before["turn"], before["trick"], before["played"])
    assert check_pages(answer, {1: laptop}, [phone])

    # Ben plays the rest of the deal from the laptop; the phone watches.
    answer = play_until(server, code, {1: laptop}, {0: ana},
                        lambda now: now["state"]["phase"] != "playing" or now["state"]["deal"] > 1,
                        watchers=(phone,))
    assert answer["state"]["seats"][1]["player"] == ben
    assert phone.snapshot()["hand"] == []
    assert laptop.problems() == [] and phone.problems() == []
    ana.close()
