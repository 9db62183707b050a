"""A slow match of four played to its end over Web Push, against a real server process and a fake push service.

Each player is away (their JSON socket opened to play, then closed); a push
tells them their turn, checked by the fake service (VAPID signature, the body
decrypted with keys this test made). Along the way: a turn left to the bot at
its deadline (after its reminder), a player connected through two of their
turns (no push), a subscription answered 410 (deleted), quiet hours kept, and
a ``kill -9`` and restart between a turn's push and its reminder.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.client import Closed, Connection
from tests.notify.fakepush import Browser, Delivery, FakePushService
from tests.server.conftest import Server, open_socket

pytestmark = pytest.mark.server

HOUR = 10.0
"""Seconds a slow hour lasts here: a turn of 1 hour lasts 10 s, its reminder comes at 8 s."""
NAMES = ("Ana", "Ben", "Cy", "Dan")
PAYLOAD_KEYS = {"room", "url", "player", "deadline", "reminder", "lang", "title", "body"}


def moment(state: dict[str, Any]) -> tuple[int, int]:
    """Where a match is: the deal, and the cards played in it."""
    return state["deal"], sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])


def moved_on(before: tuple[int, int]):
    """Whether a state is past the moment ``before``, or the match over."""
    return lambda state: moment(state) > before or state["phase"] != "playing"


def drain(client: Connection) -> None:
    """Read whatever the server has sent to ``client`` so far."""
    while True:
        try:
            client.receive(timeout=0.01)
        except TimeoutError:
            return


def take_turns(client: Connection, seat: int) -> int:
    """Play the first legal card while it is ``seat``'s turn; how many were played. Between two deals it
    waits for the next one: its first turn may be ``seat``'s, while still connected (and so not pushed)."""
    played = 0
    drain(client)
    while client.state["phase"] == "playing" and client.state["turn"] in (seat, None):
        if client.state["turn"] is None:
            client.next_state()
            continue
        client.send({"type": "play", "card": client.state["you"]["legal"][0]})
        client.until(moved_on(moment(client.state)))
        played += 1
    return played


def subscriptions(database: Path, endpoint: str) -> int:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT count(*) FROM push_subscriptions WHERE endpoint = ?", (endpoint,)).fetchone()[0]


def quiet_window(now: datetime) -> tuple[str, str, datetime]:
    """Quiet hours (UTC) that hold now and end at a whole minute 20 to 80 seconds from now."""
    start = now.replace(second=0, microsecond=0)
    end = start + timedelta(minutes=1 if now.second < 40 else 2)
    return start.strftime("%H:%M"), end.strftime("%H:%M"), end


def test_a_slow_match_plays_to_its_end_over_pushes(make_server, tmp_path):
    database = tmp_path / "slow.db"
    with FakePushService() as service:
        server: Server = make_server(f"sqlite:///{database}", slow_hour_seconds=HOUR,
                                     vapid_subject="mailto:ops@cucumber.cards",
                                     push_endpoints=service.allowlist_entry)
        service.vapid_key = server.get("/api/push/key").json()["public_key"]
        opened = server.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 3},
                                            "pace": {"turn_hours": 1}}).json()
        code, tokens = opened["code"], [opened["token"]]
        for name in NAMES[1:]:
            tokens.append(server.post(f"/api/rooms/{code}/players", {"name": name}).json()["token"])
        browsers: dict[str, Browser] = {}
        for name, token in zip(NAMES, tokens, strict=True):
            browsers[name] = service.browser()
            answer = server.post(f"/api/rooms/{code}/push",
                                 {"token": token, "subscription": browsers[name].subscription})
            assert answer.status_code == 201, answer.text
        seat_of = {name: index for index, name in enumerate(NAMES)}

        # Ben's quiet hours hold now, and end within 80 seconds.
        ben = open_socket(server, code, tokens[1])
        start, end, quiet_end = quiet_window(datetime.now(UTC))
        ben.send({"type": "set_quiet_hours", "from": start, "to": end, "time_zone": "UTC"})
        ana = open_socket(server, code, tokens[0])
        ana.send({"type": "start"})
        ana.until(lambda state: state["phase"] == "playing")
        take_turns(ana, 0)
        ana.close()
        ben.close()
        watcher = open_socket(server, code, None)

        handled = 0  # deliveries looked at, in order
        acted = 0  # turn pushes answered with a play
        wasted: list[Delivery] = []  # pushes that found no turn of theirs waiting
        left_to_bot: tuple[str, str] | None = None  # (player, deadline) of the turn left to the bot
        bot_met = False
        dan: Connection | None = None
        dan_turns = 0
        dan_window: tuple[float, float] | None = None
        gone_browser: Browser | None = None
        killed: tuple[str, str] | None = None
        restart_done: float | None = None
        deadline_at_restart: datetime | None = None
        reminded_after_restart = False
        limit = time.monotonic() + 600  # a guard against a hang, not a measure

        while True:
            assert time.monotonic() < limit, "the match did not end"
            try:
                drain(watcher)
            except Closed:
                watcher = open_socket(server, code, None)
            if watcher.state["phase"] == "finished":
                break
            if dan is not None:
                drain(dan)
                dan_turns += take_turns(dan, 3)
                if dan_turns >= 2:
                    dan.close()
                    dan_window = (dan_window[0], time.time())
                    dan = None
            if left_to_bot is not None and watcher.state["seats"][seat_of[left_to_bot[0]]]["played_for"] == "deadline":
                bot_met = True
            deliveries = service.deliveries
            if len(deliveries) <= handled:
                time.sleep(0.02)
                continue
            delivery = deliveries[handled]
            handled += 1
            owner = next(name for name, browser in browsers.items() if browser.id == delivery.browser)
            if delivery.status == 410:
                assert browsers[owner] is gone_browser
                # The subscription is deleted at once; the page subscribes again on its next visit.
                wait = time.monotonic() + 30
                while subscriptions(database, gone_browser.endpoint) and time.monotonic() < wait:
                    time.sleep(0.05)
                assert subscriptions(database, gone_browser.endpoint) == 0
                browsers[owner] = service.browser()
                index = seat_of[owner]
                player = open_socket(server, code, tokens[index])
                assert server.post(f"/api/rooms/{code}/push", {"token": tokens[index],
                                                               "subscription": browsers[owner].subscription}
                                   ).status_code == 201
                take_turns(player, index)
                player.close()
                continue
            assert delivery.status == 201
            payload = delivery.payload
            assert payload["room"] == code and payload["player"] == owner
            assert {"room", "url", "player", "deadline", "reminder"} <= set(payload) <= PAYLOAD_KEYS  # no card
            if owner == "Ben":
                assert delivery.received_wall >= quiet_end.timestamp() - 0.05, "a push in Ben's quiet hours"
            if killed is not None and owner == killed[0] and payload["deadline"] == killed[1] and payload["reminder"]:
                reminded_after_restart = True
            if left_to_bot is not None and (owner, payload["deadline"]) == left_to_bot:
                continue  # left to the bot: its reminder comes, then the bot plays at the deadline
            if acted >= 3 and left_to_bot is None and not payload["reminder"]:
                left_to_bot = (owner, payload["deadline"])
                turn_push = handled - 1
                continue
            if acted >= 11 and killed is None and dan is None and not payload["reminder"]:
                killed = (owner, payload["deadline"])
                server.kill()
                server.start()
                restart_done = time.time()
                deadline_at_restart = datetime.fromisoformat(payload["deadline"].replace("Z", "+00:00"))
                watcher = open_socket(server, code, None)
                continue
            if acted >= 6 and dan_window is None and owner != "Dan" and not payload["reminder"]:
                # It is the owner's turn: Dan connects before any turn of his can begin.
                dan = open_socket(server, code, tokens[3])
                dan_window = (time.time(), 0.0)
            if acted >= 8 and gone_browser is None and owner != "Cy":
                gone_browser = browsers["Cy"]
                service.forget(gone_browser)
            index = seat_of[owner]
            if owner == "Dan" and dan is not None:
                wasted.append(delivery)
                continue
            player = open_socket(server, code, tokens[index])
            played = take_turns(player, index)
            player.close()
            if played:
                acted += 1
            elif not payload["reminder"]:
                wasted.append(delivery)

        assert service.faults == []
        assert wasted == [], "pushes for turns that were not waiting"
        assert acted > 15
        # The turn left to the bot: one push, a reminder at 80 %, then the bot's card at the deadline.
        assert left_to_bot is not None and bot_met
        # Deadlines are written to the second, so an earlier turn of the same player that began in the same
        # second has the same one: the turn's pushes are those from its first on.
        reminders = [d for d in service.deliveries[turn_push:] if d.status == 201
                     and (d.payload["player"], d.payload["deadline"]) == left_to_bot]
        assert [d.payload["reminder"] for d in reminders] == [False, True]
        # Dan played two turns with his socket open, and was pushed for neither.
        assert dan_window is not None and dan_turns >= 2
        # The kill: the reminder of the turn waiting was not lost (unless the restart took past the deadline).
        assert killed is not None and restart_done is not None
        assert reminded_after_restart or datetime.fromtimestamp(restart_done, UTC) >= deadline_at_restart
        assert gone_browser is not None
        # The record: the bot played at most the deadline turns this test caused.
        record = server.get(f"/api/matches/{watcher.state['match_id']}/record").json()
        by_deadline = sum(deal.get("decided_by", []).count("deadline") for deal in record["deals"])
        assert 1 <= by_deadline <= 2
        watcher.close()
