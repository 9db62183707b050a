"""Coming back: a reload mid-trick, and a network that drops and returns, both end in sync;
reconnects wait a random pause."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import LiveServer, Tab, check_pages, protocol_player, sign_in, sync_pages

pytestmark = pytest.mark.e2e


def test_a_reload_mid_trick_and_a_dropped_network_come_back_in_sync(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ben_seat = server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    cy = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Cy"})["token"])
    ana, ben = open_tab("Ana"), open_tab("Ben")
    sign_in(ana, code, host["token"])
    sign_in(ben, code, ben_seat["token"])
    for tab in (ana, ben):
        tab.goto(f"/r/{code}")
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    players: dict[int, Tab] = {0: ana, 1: ben}

    def play_one(answer: dict) -> None:
        """Whoever is to play plays (a browser player by clicking); waits for the server to move on."""
        turn = answer["state"]["turn"]
        if turn is None:  # not started yet, or between deals: wait for what comes next
            pass
        elif turn == 2:
            cy.wait(lambda now: now["turn"] == 2)
            cy.play_lowest()
        else:
            players[turn].page.locator("#hand .card-button.playable").first.click()
        server.wait_room(code, lambda now: now["version"] > answer["version"])

    # Play until a trick is under way and a browser player is to play.
    while True:
        answer = sync_pages(server, code, [ana, ben])
        state = answer["state"]
        if state["trick"] and state["turn"] in players:
            break
        play_one(answer)
    assert check_pages(answer, players, [])

    # Reload the page of the player to play, then the other's: same hand, same turn, same trick.
    for tab in (players[state["turn"]], players[1 - state["turn"]]):
        before = tab.snapshot()
        tab.page.reload()
        tab.wait_live()
        sync_pages(server, code, [tab])
        after = tab.snapshot()
        assert after["hand"] == before["hand"], tab.label
        assert (after["turn"], after["trick"], after["played"]) == (before["turn"], before["trick"], before["played"])
    answer = sync_pages(server, code, [ana, ben])
    assert check_pages(answer, players, [])

    # The player who is not to play loses the network while play goes on, then gets it back.
    mover = state["turn"]
    dropped = players[1 - mover]
    dropped.page.evaluate("() => { window.sameDocument = true; }")
    dropped.context.set_offline(True)
    dropped.page.wait_for_selector('#connection[data-state="closed"]', state="attached")  # the page says so
    sockets = dropped.sockets_opened
    watching = players[mover]
    plays_missed = 0
    while (plays_missed < 2 and answer["state"]["turn"] is not None
           and players.get(answer["state"]["turn"]) is not dropped):
        play_one(answer)
        plays_missed += 1
        answer = sync_pages(server, code, [watching])
    assert plays_missed >= 1
    assert dropped.snapshot()["version"] < server.room(code)["version"]  # it really missed them
    dropped.context.set_offline(False)
    answer = sync_pages(server, code, [ana, ben])
    assert dropped.page.evaluate("() => window.sameDocument") is True  # no reload happened
    assert dropped.sockets_opened == sockets + 1  # a fresh connection: it does not count on frames sent meanwhile
    assert check_pages(answer, players, [])
    assert dropped.snapshot()["connection"] == "open"
    cy.close()


def test_reconnects_wait_a_random_pause_below_a_ceiling_that_doubles_up_to_ten_seconds(open_tab,
                                                                                       server: LiveServer) -> None:
    tab = open_tab("Ana")
    tab.goto(f"/r/{server.post('/api/rooms', {'name': 'Ana'})['code']}")
    retries = [0, 1, 2, 3, 4, 5, 12]
    drawn = tab.page.evaluate("retries => retries.map(retry => Array.from({length: 400}, "
                              "() => htmx.config.wsReconnectDelay(retry)))", retries)
    for retry, pauses in zip(retries, drawn):
        ceiling = min(10_000, 500 * 2 ** retry)
        assert all(0 <= pause < ceiling for pause in pauses), retry
        # Spread over the whole range ("full jitter"), so that pages do not come back together.
        assert min(pauses) < 0.1 * ceiling and max(pauses) > 0.9 * ceiling, retry

