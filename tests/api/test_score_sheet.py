"""The score sheet in the JSON state: the engine's penalties and totals, the same for everyone, no hand in it."""

from __future__ import annotations

import json
import random

from app.game.history import deal_by_deal
from app.game.score_sheet import score_sheet
from app.game.standings import penalties_per_deal
from tests.api.conftest import connect, open_room
from tests.api.test_protocol import card_codes, play_match

NAMES = ["Ana", "Ben", "Cy"]


def test_the_sheet_after_two_deals_is_the_engines_and_the_records(client):
    code, tokens = open_room(client, NAMES, preset="quick", rules={"match_length": 2})
    peers = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    assert peers[0].state["score_sheet"] == []
    peers[0].send({"type": "start"})
    final = play_match(peers, spectator, random.Random(3))
    assert final["phase"] == "finished"

    sheet = final["score_sheet"]
    assert [line["deal"] for line in sheet] == [1, 2]
    # Everyone reads the same sheet: the players and the spectator, over the socket and over HTTP.
    for peer in [*peers, spectator]:
        assert peer.latest()["score_sheet"] == sheet
    assert client.get(f"/api/rooms/{code}").json()["state"]["score_sheet"] == sheet

    match = client.app.state.registry.get(code).match
    engine = score_sheet(match)
    assert [[seat["penalty"] for seat in line["seats"]] for line in sheet] == penalties_per_deal(match)
    assert [[seat["total"] for seat in line["seats"]] for line in sheet] == [list(line.totals) for line in engine]
    assert [[seat["lives"] for seat in line["seats"]] for line in sheet] == [list(line.lives) for line in engine]
    assert [seat["total"] for seat in sheet[-1]["seats"]] == [seat["score"] for seat in final["seats"]]

    # The stored record, replayed deal by deal, says the same.
    record = client.get(f"/api/matches/{final['match_id']}/record").json()
    steps = deal_by_deal(record)
    for line, step in zip(sheet, steps, strict=True):
        paid = {seat: points for seat, points, _, _ in step.summary.penalties}
        assert [seat["penalty"] for seat in line["seats"]] == [paid.get(seat, 0) for seat in range(len(NAMES))]
        assert [seat["total"] for seat in line["seats"]] == list(step.scores)
        assert [(play["seat"], play["card"]) for play in line["last_trick"]] == [
            (seat, card.code) for seat, card in step.tricks[-1].plays]
        assert line["trick_winner"] == step.tricks[-1].winner and line["dealer"] == step.dealer


def test_the_sheet_shows_only_cards_played_face_up(client):
    code, tokens = open_room(client, NAMES, preset="quick")
    peers = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    peers[0].send({"type": "start"})
    host = peers[0]
    rng = random.Random(5)
    state = host.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    while len(state["score_sheet"]) < 3:
        if state["turn"] is not None:
            mover = peers[state["turn"]].until_version(host.version)
            peers[state["turn"]].send({"type": "play", "card": rng.choice(mover["you"]["legal"])})
        state = host.next_state()
    assert state["phase"] == "playing"
    record_deals = client.app.state.registry.get(code).match.history
    last_tricks = [{card.code for _, card in deal.current_trick()} for deal in record_deals]
    for peer in [*peers, spectator]:
        for message in peer.received:
            if message["type"] != "state":
                continue
            sheet = message["state"]["score_sheet"]
            for number, line in enumerate(sheet):
                # Only the last trick of each completed deal: every card of it was played face up.
                assert card_codes(line) == last_tricks[number]


def states_until(socket, version: int) -> list[dict]:
    """The state messages a raw socket receives, as sent, until the one of ``version``."""
    states: list[dict] = []
    while not states or states[-1]["version"] < version:
        message = json.loads(socket.receive_text())
        if message["type"] == "state":
            states.append(message)
    return states


def test_a_socket_gets_the_sheet_whole_at_first_at_a_sync_and_for_a_new_match_and_else_the_deals_added(client):
    code, tokens = open_room(client, NAMES, preset="quick", rules={"match_length": 2})
    peers = [connect(client, code, token) for token in tokens]
    spectator = connect(client, code)
    with client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
        watcher.send_json({"type": "hello"})
        peers[0].send({"type": "start"})
        final = play_match(peers, spectator, random.Random(4))
        states = [message["state"] for message in states_until(watcher, peers[0].version)]
        assert states[0]["score_sheet"] == [] and "score_sheet_added" not in states[0]
        later = states[1:]
        assert all("score_sheet" not in state and "score_sheet_added" in state for state in later)
        added = [state["score_sheet_added"] for state in later if state["score_sheet_added"]]
        assert added == [[line] for line in final["score_sheet"]]  # each deal's line once, at its end

        watcher.send_json({"type": "sync"})
        (synced,) = states_until(watcher, peers[0].version)
        assert synced["state"]["score_sheet"] == final["score_sheet"] and "score_sheet_added" not in synced["state"]
        peers[0].send({"type": "start"})  # the next match: its sheet starts again
        peers[0].until(lambda s: s["match_id"] != final["match_id"])
        (started,) = states_until(watcher, peers[0].version)
        assert started["state"]["score_sheet"] == [] and "score_sheet_added" not in started["state"]
