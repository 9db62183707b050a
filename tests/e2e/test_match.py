"""A whole match in three players' browsers and a spectator's, played only by clicking legal cards."""

from __future__ import annotations

import json
import random

import pytest

from app.game.record import replay
from app.game.standings import placings
from tests.e2e.helpers import (
    LiveServer,
    Tab,
    check_pages,
    play_with_keyboard,
    standings_on_page,
    sync_pages,
)

pytestmark = pytest.mark.e2e


def open_table_from_home(tab: Tab) -> str:
    """Ana opens a table on the home page with short custom rules; returns the room code."""
    page = tab.page
    tab.goto("/")
    page.fill("input[name=name]", "Ana")
    page.check("input[name=preset][value=custom]")
    page.click("details > summary")
    page.select_option("select[name=hand_size]", "3")
    page.fill("input[name=threshold]", "10")
    page.select_option("select[name=lives]", "1")
    page.click("form button[type=submit]")
    page.wait_for_url("**/r/*")
    tab.wait_live()
    return page.get_attribute("main#room", "data-code")


def join_from_link(tab: Tab, link: str, name: str) -> None:
    """Someone opens the shared link and takes a seat with the page's form."""
    tab.goto(link)
    tab.page.fill("#join input[name=name]", name)
    tab.page.click("#join button[type=submit]")
    tab.page.wait_for_selector("#join[hidden]", state="attached")
    tab.wait_live()


def test_three_players_and_a_spectator_play_a_whole_match(open_tab, server: LiveServer) -> None:
    ana = open_tab("Ana")
    ana.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    code = open_table_from_home(ana)
    rules = server.room(code)["state"]["rules"]
    assert (rules["hand_size"], rules["threshold"], rules["lives"]) == (3, 10, 1)

    # The link to share: shown on the page, and copied by the button.
    link = ana.page.get_attribute(".room-link", "href")
    assert link == f"{server.url}/r/{code}"
    ana.page.click(".copy-link")
    ana.page.wait_for_function("() => document.querySelector('.copy-link').textContent === 'Copied!'")
    assert ana.page.evaluate("() => navigator.clipboard.readText()") == link

    ben, cy = open_tab("Ben"), open_tab("Cy")
    join_from_link(ben, link, "Ben")
    join_from_link(cy, link, "Cy")
    watcher = open_tab("spectator")
    # Without a clipboard the button offers the link in a prompt.
    watcher.context.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    watcher.goto(link)
    with watcher.page.expect_event("dialog"):
        watcher.page.click(".copy-link")
    assert watcher.dialogs and watcher.dialogs[-1][0] == "prompt" and watcher.dialogs[-1][2] == link
    assert watcher.page.locator("#join form").count() == 1  # a visitor may still take a seat
    assert [seat["name"] for seat in server.room(code)["state"]["seats"]] == ["Ana", "Ben", "Cy"]

    # Only the host has the start button; the others wait.
    assert ben.page.locator("#controls button.start").count() == 0
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    players = {0: ana, 1: ben, 2: cy}
    tabs = [ana, ben, cy, watcher]

    rng = random.Random(2024)
    clicked: list[str] = []
    deals_seen = set()
    checked = 0
    while True:
        answer = sync_pages(server, code, tabs)
        state = answer["state"]
        if not check_pages(answer, players, [watcher]):
            continue  # the next deal began while the pages were read
        checked += 1
        if state["phase"] == "finished":
            break
        assert state["phase"] == "playing"
        deals_seen.add(state["deal"])
        if state["turn"] is None:  # between deals: the summary shows until the next deal
            summary = ana.page.inner_text("#summary")
            if ana.snapshot()["version"] == answer["version"]:  # the next deal may have come meanwhile
                assert "Deal" in summary
            server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)
            continue
        tab = players[state["turn"]]
        legal = sorted(card["card"] for card in tab.snapshot()["hand"] if card["playable"])
        card = rng.choice(legal)
        if len(clicked) % 3 == 1:
            play_with_keyboard(tab, card)
        else:
            tab.card(card).click()
        clicked.append(card)
        server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)

    assert checked > len(clicked)  # every turn was compared, and the end
    # Not one message to the spectator held a hand.
    assert watcher.frames and not any("card-button" in frame or "hand-cards" in frame for frame in watcher.frames)

    # Each card clicked went out with the match, the deal and the cards played of the state it was clicked in
    # (the hand's container gives them to its buttons).
    plays = [message for tab in players.values() for message in map(json.loads, tab.sent)
             if message.get("type") == "play"]
    assert sorted(message["card"] for message in plays) == sorted(clicked)
    for message in plays:
        assert message["match"] == state["match_id"] and message["deal"] >= 1 and message["played"] >= 0, message

    # The stored record holds exactly the cards clicked, and replays to the standings every page shows.
    record = server.get(f"/api/matches/{state['match_id']}/record")
    assert [card for deal in record["deals"] for card in deal["plays"]] == clicked
    match = replay(record)
    assert match.finished and len(record["deals"]) == len(deals_seen)
    places = placings(match)
    expected = sorted((places[seat], match.players[seat], match.scores[seat]) for seat in range(3))
    assert list(match.winners) == state["winners"]
    winner_names = [match.players[seat] for seat in match.winners]
    for tab in tabs:
        assert sorted(standings_on_page(tab)) == expected, tab.label
        headline = tab.page.inner_text("#status .headline")
        assert all(name in headline for name in winner_names), (tab.label, headline)
        assert tab.page.locator(f'#summary a[href="/matches/{state["match_id"]}"]').count() == 1, tab.label
    assert ana.page.inner_text("#controls button.start") == "Play again"
    for tab in (ben, cy, watcher):
        assert tab.page.locator("#controls button.start").count() == 0, tab.label

    # The match link leads to the replay page of this match.
    watcher.page.click(f'#summary a[href="/matches/{state["match_id"]}"]')
    watcher.page.wait_for_url(f"**/matches/{state['match_id']}")
    assert all(name in watcher.page.inner_text("p.winners") for name in winner_names)
