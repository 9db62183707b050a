"""A real server killed with ``kill -9`` mid-trick comes back with every match as the players last saw it."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from app.game.record import replay
from tests.server.conftest import Server, open_socket, rising

pytestmark = pytest.mark.server

# What a player sees that must be the same before and after a restart (presence may differ).
SAME = ["phase", "rules", "deal", "trick_number", "dealer", "turn", "leader", "trick", "previous_trick", "winners",
        "last_deal", "standings", "match_id"]


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    seats = [{key: value for key, value in seat.items() if key not in ("connected", "away")} for seat in state["seats"]]
    return {**{key: state[key] for key in SAME}, "seats": seats, "you": state["you"]}


def progress(state: dict[str, Any]) -> tuple[int, int]:
    """How far a match is: the deal and the cards played in it (grows with every play)."""
    played = sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])
    if state["phase"] == "finished" or state["turn"] is None:
        played = 10**6  # the deal is complete
    return state["deal"], played


def open_table(server: Server, names: list[str]) -> tuple[str, list[str]]:
    answer = server.post("/api/rooms", {"name": names[0], "preset": "quick"}).json()
    tokens = [answer["token"]]
    for name in names[1:]:
        tokens.append(server.post(f"/api/rooms/{answer['code']}/players", {"name": name}).json()["token"])
    return answer["code"], tokens


class Table:
    """The players of one room; plays random legal cards and logs every card played, by deal."""

    def __init__(self, server: Server, code: str, tokens: list[str], seed: int) -> None:
        self.server, self.code, self.tokens = server, code, tokens
        self.clients = [open_socket(server, code, token) for token in tokens]
        self.rng = random.Random(seed)
        self.log: dict[int, list[tuple[int, str]]] = {}

    def latest(self) -> dict[str, Any]:
        return self.clients[0].until(lambda s: s["phase"] == "finished" or s["turn"] is not None)

    def play_one(self) -> dict[str, Any]:
        state = self.latest()
        seat = state["turn"]
        mover = self.clients[seat]
        mine = mover.until(lambda s, v=self.clients[0].version: mover.version >= v)
        card = self.rng.choice(mine["you"]["legal"])
        mover.send({"type": "play", "card": card})
        self.log.setdefault(state["deal"], []).append((seat, card))
        before = progress(state)
        return self.clients[0].until(lambda s: progress(s) > before and (
            s["phase"] == "finished" or s["turn"] is not None))

    def sync_all(self) -> list[dict[str, Any]]:
        version = self.clients[0].version
        return [client.until(lambda s, c=client: c.version >= version) for client in self.clients]

    def reconnect(self) -> None:
        self.clients = [open_socket(self.server, self.code, token) for token in self.tokens]


def test_a_match_interrupted_by_kill_9_finishes_after_a_restart(make_server, empty_url):
    server = make_server(empty_url)
    code, tokens = open_table(server, ["Ana", "Ben", "Cy"])
    other_code, other_tokens = open_table(server, ["Dag", "Eva"])
    table = Table(server, code, tokens, seed=11)
    table.clients[0].send({"type": "start"})
    state = table.latest()
    while not (state["deal"] >= 2 and len(state["trick"]) == 1):  # into the second deal, mid-trick
        state = table.play_one()
    seen = [comparable(state) for state in table.sync_all()]
    assert seen[state["turn"]]["you"]["legal"] and seen[0]["last_deal"] is not None
    version = table.clients[0].version

    server.kill()
    server.start()

    table.reconnect()
    assert [comparable(client.state) for client in table.clients] == seen
    assert table.clients[0].version > version  # versions keep growing across restarts
    lobby = open_socket(server, other_code, other_tokens[0]).state
    assert [seat["name"] for seat in lobby["seats"]] == ["Dag", "Eva"] and lobby["phase"] == "lobby"

    while state["phase"] != "finished":
        state = table.play_one()
    final = table.sync_all()[0]
    record = server.get(f"/api/matches/{final['match_id']}/record").json()
    match = replay(record)
    assert match.finished and list(match.winners) == final["winners"]
    assert list(match.scores) == [seat["score"] for seat in final["seats"]]
    # The stored record is what the players saw: every card, in order, from the seat that played it.
    assert [deal["plays"] for deal in record["deals"]] == [
        [card for _, card in table.log[number]] for number in sorted(table.log)]
    for deal, number in zip(record["deals"], sorted(table.log)):
        for seat, hand in enumerate(deal["hands"]):
            assert sorted(hand) == sorted(card for player, card in table.log[number] if player == seat)
    listed = server.get("/api/matches").json()
    assert final["match_id"] in [item["id"] for item in listed["matches"]]


def test_a_restarted_server_keeps_seats_and_refuses_strangers(make_server, empty_url):
    server = make_server(empty_url)
    code, tokens = open_table(server, ["Ana", "Ben"])
    before = open_socket(server, code, tokens[1]).state
    server.kill()
    server.start()
    again = open_socket(server, code, tokens[1])
    assert again.state["you"]["seat"] == 1
    assert [seat["player"] for seat in again.state["seats"]] == [seat["player"] for seat in before["seats"]]
    assert again.state["you"]["player"] == before["you"]["player"]
    stranger = open_socket(server, code, None)
    stranger.send({"type": "start"})
    assert stranger.next_error()["code"] == "not_host"


def test_a_finished_match_is_still_on_show_after_a_restart(make_server, empty_url):
    server = make_server(empty_url)
    code, tokens = open_table(server, ["Ana", "Ben"])
    table = Table(server, code, tokens, seed=3)
    table.clients[0].send({"type": "start"})
    state = table.latest()
    while state["phase"] != "finished":
        state = table.play_one()
    seen = comparable(table.sync_all()[0])
    server.kill()
    server.start()
    again = open_socket(server, code, tokens[0])
    assert comparable(again.state) == seen
    again.send({"type": "start"})  # play again works as before
    assert again.until(lambda s: s["phase"] == "playing")["standings"] == []


def test_versions_only_grow_across_a_restart_with_the_clock_set_back(make_server, empty_url):
    server = make_server(empty_url, clock_shift=600)  # ten minutes ahead, then ten minutes behind
    code, tokens = open_table(server, ["Ana", "Ben"])
    table = Table(server, code, tokens, seed=4)
    table.clients[0].send({"type": "start"})
    for _ in range(3):
        table.play_one()
    table.sync_all()
    before = [client.versions for client in table.clients]

    server.kill()
    server.clock_shift = -600
    server.start()

    table.reconnect()
    for _ in range(3):
        table.play_one()
    table.sync_all()
    for seen, client in zip(before, table.clients, strict=True):
        versions = seen + client.versions
        assert rising(versions), versions
        assert client.versions[0] > seen[-1] and max(versions) < 2**53
    assert before[0][0] > (time.time_ns() + 600 * 10**9) // 1000  # above the clock-based versions of old
