"""Bots at the table, the turn clock and absent players: the table never waits forever."""

from __future__ import annotations

import dataclasses
import random
import time

from app.client import Connection
from app.game.record import replay
from tests.api.conftest import connect, open_room


def seat_bots(host: Connection, strengths: list[str]) -> None:
    """The host seats a bot of each strength, one after the other."""
    for strength in strengths:
        host.send({"type": "add_bot", "strength": strength})
        host.until(lambda s, n=strength: any(seat["bot"] == n for seat in s["seats"]))


def test_one_person_and_three_bots_play_to_the_end(client):
    code, tokens = open_room(client, ["Ana"], preset="quick")
    ana = connect(client, code, tokens[0])
    seat_bots(ana, ["easy", "normal", "hard"])
    assert [seat["bot"] for seat in ana.state["seats"]] == [None, "easy", "normal", "hard"]
    ana.send({"type": "start"})
    rng = random.Random(1)
    state = ana.until(lambda s: s["phase"] == "playing")
    while state["phase"] != "finished":
        if state["turn"] == 0 and state["you"]["legal"]:
            ana.send({"type": "play", "card": rng.choice(state["you"]["legal"])})
        state = ana.next_state()
    record = client.get(f"/api/matches/{state['match_id']}/record").json()
    assert list(replay(record).winners) == state["winners"]


def test_a_room_of_bots_started_through_the_api_finishes_on_its_own(client):
    code, tokens = open_room(client, ["Host"], preset="quick")
    host = connect(client, code, tokens[0])
    seat_bots(host, ["easy", "normal", "hard"])
    host.send({"type": "leave"})
    state = host.next_state()
    assert state["you"] == {"seat": None, "player": None, "host": True, "hand": [], "legal": [], "reasons": {}}
    host.send({"type": "start"})
    final = host.until(lambda s: s["phase"] == "finished")
    assert final["winners"] and client.get(f"/api/matches/{final['match_id']}/record").status_code == 200


def test_a_bot_sees_only_its_own_view(monkeypatch, client):
    from app.game.views import MatchView
    from app.rooms import autoplay

    seen = []
    original = autoplay.choose_card

    def spy(view, strength, rng, budget=None):
        seen.append(view)
        return original(view, strength, rng, budget)

    monkeypatch.setattr(autoplay, "choose_card", spy)
    code, tokens = open_room(client, ["Host"], preset="quick")
    host = connect(client, code, tokens[0])
    host.send({"type": "add_bot", "strength": "normal"})
    host.send({"type": "add_bot", "strength": "normal"})
    host.send({"type": "leave"})
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] == "finished")
    assert seen and all(isinstance(view, MatchView) and view.you is not None for view in seen)
    for view in seen:
        others = [seat for seat in view.seats if seat.seat != view.you.seat]
        assert all(not hasattr(seat, "hand") for seat in others)


def test_when_the_clock_runs_out_the_server_plays_and_the_match_goes_on(make_client):
    client = make_client()
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, _ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "set_clock", "seconds": 5})
    ana.until(lambda s: s["turn_seconds"] == 5)
    room = client.app.state.registry.get(code)
    room.lobby = dataclasses.replace(room.lobby, turn_seconds=1)  # below the host's minimum, to keep the test short
    ana.send({"type": "start"})
    state = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    assert state["turn_remaining"] is not None
    started = time.monotonic()
    after = ana.until(lambda s: s["phase"] == "playing" and (
        len(s["trick"]) + sum(len(seat["played"]) for seat in s["seats"])) == 1)
    assert time.monotonic() - started < 5
    assert after["turn"] != state["turn"] and after["trick"][0]["seat"] == state["turn"]


def ben_away(make_client):
    """Ana and Ben in a started quick match, Ben gone past the grace period; returns the client, code, tokens, Ana."""
    client = make_client(away_grace_seconds=0.3)
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "start"})
    ana.until(lambda s: s["phase"] == "playing")
    ana.send({"type": "hand_to_bot", "seat": 1, "strength": "easy"})
    assert ana.next_error()["code"] == "player_present"  # Ben is here: his seat stays his
    ben.close()
    state = ana.until(lambda s: s["seats"][1]["away"])
    assert not state["seats"][1]["connected"]
    return client, code, tokens, ana


def test_an_absent_player_is_played_by_a_bot_until_they_return(make_client):
    client, code, tokens, ana = ben_away(make_client)
    # Ana plays her turns; Ben's are played for him.
    rng = random.Random(2)
    seen = len(ana.received)
    for _ in range(8):
        state = ana.until(lambda s: s["phase"] == "finished" or s["turn"] == 0)
        if state["phase"] == "finished":
            break
        state = ana.latest()
        if state["turn"] == 0:
            ana.send({"type": "play", "card": rng.choice(state["you"]["legal"])})
    assert any(play["seat"] == 1 for message in ana.received[seen:] if message["type"] == "state"
               for play in message["state"]["trick"]), "nobody played for Ben"
    back = connect(client, code, tokens[1])
    assert back.state["seats"][1]["away"] is False and back.state["seats"][1]["connected"] is True
    # Ben is back: when his turn comes, nobody plays for him, even after the grace period.
    state = ana.latest()
    while state["phase"] == "playing" and state["turn"] != 1:
        if state["turn"] == 0:
            ana.send({"type": "play", "card": rng.choice(state["you"]["legal"])})
            ana.next_state()
        state = ana.latest()
    if state["phase"] == "playing":
        before = back.latest()
        time.sleep(0.6)
        assert back.latest() == before and before["turn"] == 1


def test_the_host_can_hand_an_away_players_seat_to_a_bot(make_client):
    client, code, tokens, ana = ben_away(make_client)
    ben = ana.state["seats"][1]["player"]
    ana.send({"type": "hand_to_bot", "player": ben, "strength": "easy"})
    ana.send({"type": "hand_to_bot", "player": ben, "strength": "hard"})  # a double click
    assert ana.next_error()["code"] == "seat_changed"  # the bot is a new player
    state = ana.latest()
    assert (state["seats"][1]["name"], state["seats"][1]["bot"]) == ("Ben", "easy")
    assert state["seats"][1]["player"] != ben
    rng = random.Random(3)
    while state["phase"] != "finished":
        state = ana.latest()
        if state["turn"] == 0:
            ana.send({"type": "play", "card": rng.choice(state["you"]["legal"])})
        state = ana.next_state()


def test_leaving_after_a_match_returns_the_room_to_the_lobby(client):
    code, tokens = open_room(client, ["Host", "Ben"], preset="quick")
    host = connect(client, code, tokens[0])
    seat_bots(host, ["easy"])
    host.send({"type": "leave"})
    host.send({"type": "remove", "seat": 0})  # Ben, who never connected; the bot takes seat 0
    host.until(lambda s: [seat["bot"] for seat in s["seats"]] == ["easy"])
    seat_bots(host, ["normal"])
    host.send({"type": "start"})
    final = host.until(lambda s: s["phase"] == "finished")
    assert final["standings"]
    host.send({"type": "remove", "seat": 0})
    state = host.until(lambda s: len(s["seats"]) == 1)
    assert state["phase"] == "lobby" and state["standings"] == [] and state["last_deal"] is None
    assert client.get(f"/r/{code}").status_code == 200
    assert client.get(f"/api/rooms/{code}").status_code == 200


def test_hosting_passes_on_when_the_host_is_gone_for_the_grace_period(make_client):
    client = make_client(away_grace_seconds=0.2)
    code, tokens = open_room(client, ["Ana", "Ben"])
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    assert ben.state["you"]["host"] is False
    ana.close()
    state = ben.until(lambda s: s["you"]["host"])
    assert state["host"] == 1
    ben.send({"type": "add_bot", "strength": "easy"})
    assert len(ben.until(lambda s: len(s["seats"]) == 3)["seats"]) == 3


def test_when_everyone_has_gone_the_table_waits_for_them(make_client):
    client = make_client(away_grace_seconds=0.1)
    code, tokens = open_room(client, ["Ana", "Ben"], preset="quick")
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "start"})
    before = ana.until(lambda s: s["phase"] == "playing" and s["turn"] is not None)
    ana.close()
    ben.close()
    time.sleep(0.5)
    again = connect(client, code, tokens[0])
    assert again.state["trick"] == before["trick"] and again.state["turn"] == before["turn"]
    assert again.state["you"]["hand"] == before["you"]["hand"]
