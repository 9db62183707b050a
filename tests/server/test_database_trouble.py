"""The database goes away during a match: the play is refused, nothing breaks, and play resumes."""

from __future__ import annotations

import pytest

from app.game.record import replay
from tests.server.test_restart import Table, open_table

pytestmark = pytest.mark.server


def test_a_play_during_an_outage_is_refused_and_the_match_finishes_after_it(make_server, troubled_database):
    url, outage = troubled_database
    server = make_server(url)
    code, tokens = open_table(server, ["Ana", "Ben", "Cy"])
    other_code, _ = open_table(server, ["Dag", "Eva"])
    table = Table(server, code, tokens, seed=5)
    table.clients[0].send({"type": "start"})
    state = table.latest()
    for _ in range(4):
        state = table.play_one()
    seat = state["turn"]
    mover = table.clients[seat]
    mine = mover.until(lambda s: mover.version >= table.clients[0].version)
    card = mine["you"]["legal"][0]

    with outage():
        version = mover.version
        mover.send({"type": "play", "card": card})
        error = mover.next_error()
        assert error["code"] == "storage_unavailable"
        mover.send({"type": "sync"})
        assert mover.next_state()["trick"] == mine["trick"]
        assert mover.version == version
        # The server and the other room are fine.
        assert server.get("/healthz").status_code == 200
        assert server.get(f"/api/rooms/{other_code}").json()["state"]["phase"] == "lobby"

    mover.send({"type": "play", "card": card})
    table.log.setdefault(state["deal"], []).append((seat, card))
    state = table.clients[0].until(lambda s: {"seat": seat, "card": card} in s["trick"] + s["previous_trick"]
                                   or s["phase"] == "finished" or s["deal"] > state["deal"])
    state = table.latest()
    while state["phase"] != "finished":
        state = table.play_one()
    record = server.get(f"/api/matches/{state['match_id']}/record")
    assert record.status_code == 200
    match = replay(record.json())
    assert list(match.winners) == state["winners"]
    assert [deal["plays"] for deal in record.json()["deals"]] == [
        [played for _, played in table.log[number]] for number in sorted(table.log)]
