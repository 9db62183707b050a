"""Slow tables end to end: the time from an accepted play to the push service's 201 for the next player.

A ``cucumber serve`` process on a SQLite file pushes to a fake push service
on loopback (``bench.fakepush``). ``tables`` slow tables of four each play at
once: whenever a player's push arrives, they connect their JSON socket, play
the first legal card, and close it again (so the next player is away and is
pushed). The time from the play's answer (the state with the card, as the
player's socket received it) to the 201 of the next player's push is paired
by :class:`~bench.push.PushTimer`; ``cucumber bench slow`` prints its
percentiles as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from bench.fakepush import Browser, FakePushService
from bench.load import ServerProcess, free_port, http
from bench.push import SUBJECT, PushTimer

PLAYERS = ("Ana", "Ben", "Cy", "Dan")
WAIT_SECONDS = 30.0
"""How long a table waits for its next push before it stops (a push lost would otherwise hold the run)."""


def moment(state: dict[str, Any]) -> tuple[int, int]:
    """Where a match is: the deal, and the cards played in it."""
    return state["deal"], sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])


class Table:
    """One slow table of the run: its code, its players' tokens and browsers, and its plays so far."""

    def __init__(self, code: str, tokens: list[str], browsers: list[Browser]) -> None:
        self.code, self.tokens, self.browsers = code, tokens, browsers
        self.plays = 0
        self.stalled = False
        self.turns: asyncio.Queue[int] = asyncio.Queue()


async def take_turns(port: int, table: Table, seat: int, timer: PushTimer) -> bool:
    """``seat`` connects, plays while it is their turn, and leaves; whether the match goes on."""
    async with connect(f"ws://127.0.0.1:{port}/api/rooms/{table.code}/ws") as socket:
        await socket.send(json.dumps({"type": "hello", "token": table.tokens[seat]}))
        state = await next_state(socket)
        while state["phase"] == "playing" and state["turn"] in (seat, None):
            if state["turn"] is None:  # between deals: the next one's first turn may be this seat's
                state = await next_state(socket)
                continue
            before = moment(state)
            await socket.send(json.dumps({"type": "play", "card": state["you"]["legal"][0]}))
            while moment(state) <= before and state["phase"] == "playing":
                state = await next_state(socket)
            table.plays += 1
            if state["phase"] == "playing" and state["turn"] not in (seat, None):
                timer.played(table.code)  # the play that makes another player's turn, who is away: pushed
        return bool(state["phase"] == "playing")


async def next_state(socket: Any) -> dict[str, Any]:
    """The next ``state`` frame's state (others are skipped)."""
    while True:
        message = json.loads(await socket.recv())
        if message["type"] == "state":
            return message["state"]  # type: ignore[no-any-return]


async def play_table(port: int, table: Table, timer: PushTimer, plays: int, think: float) -> None:
    """Play ``table`` by its pushes until it has made ``plays`` plays or its match is over, each player
    ``think`` seconds after their push (on average; between none and twice that); a table whose push does
    not come within :data:`WAIT_SECONDS` stops (counted as ``stalled``)."""
    chance = random.Random(table.code)
    try:
        seat = await asyncio.wait_for(table.turns.get(), WAIT_SECONDS)
        while True:
            await asyncio.sleep(chance.uniform(0, 2 * think))
            if not await take_turns(port, table, seat, timer) or table.plays >= plays:
                break
            seat = await asyncio.wait_for(table.turns.get(), WAIT_SECONDS)
    except TimeoutError:
        table.stalled = True


async def route_pushes(service: FakePushService, tables: dict[str, Table], stop: asyncio.Event) -> None:
    """Hand each push the fake service accepted to its table, as the seat whose browser it reached."""
    seen = 0
    owners = {browser.id: (table, seat) for table in tables.values() for seat, browser in enumerate(table.browsers)}
    while not stop.is_set():
        accepted = service.accepted()
        for delivery in accepted[seen:]:
            owner = owners.get(delivery.browser)
            if owner is not None and not delivery.payload.get("reminder"):
                owner[0].turns.put_nowait(owner[1])
        seen = len(accepted)
        await asyncio.sleep(0.005)


async def measure(tables: int = 100, plays: int = 24, folder: str | None = None, think: float = 1.0) -> dict[str, Any]:
    """Run ``tables`` slow tables for ``plays`` plays each (or to the end of their match), each player taking
    ``think`` seconds on average to answer their push; the timer's report (:meth:`PushTimer.report`), with
    ``tables``, ``think`` and the run's length in seconds."""
    with tempfile.TemporaryDirectory(dir=folder) as place, FakePushService() as service:
        port = free_port()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{Path(place) / 'slow.db'}",
               "CUCUMBER_VAPID_SUBJECT": SUBJECT, "CUCUMBER_PUSH_ENDPOINTS": service.allowlist_entry,
               "CUCUMBER_RATE_LIMITS": "false", "CUCUMBER_LOG_LEVEL": "warning", "CUCUMBER_BOT_DELAY_SECONDS": "0",
               "CUCUMBER_MAX_CONNECTIONS_PER_ROOM": "100"}
        server = ServerProcess("cucumber", [sys.executable, "-m", "app", "serve", "--port", str(port)], env, port,
                               Path(place) / "server.log", None)
        try:
            await server.wait_ready()
            _, key = await http("GET", port, "/api/push/key")
            service.vapid_key = key["public_key"]
            made: dict[str, Table] = {}
            for _ in range(tables):
                table = await open_table(port, service)
                made[table.code] = table
            timer = PushTimer(service)
            stop = asyncio.Event()
            router = asyncio.create_task(route_pushes(service, made, stop))
            started = time.monotonic()
            for table in made.values():  # the host starts; the first player to play is pushed, or is the host
                async with connect(f"ws://127.0.0.1:{port}/api/rooms/{table.code}/ws") as socket:
                    await socket.send(json.dumps({"type": "hello", "token": table.tokens[0]}))
                    await next_state(socket)
                    await socket.send(json.dumps({"type": "start"}))
                    state = await next_state(socket)
                    while state["phase"] != "playing":
                        state = await next_state(socket)
                if state["turn"] == 0:
                    table.turns.put_nowait(0)
            await asyncio.gather(*(play_table(port, table, timer, plays, think) for table in made.values()))
            seconds = time.monotonic() - started
            stop.set()
            await router
        finally:
            server.stop()
        return {"tables": tables, "think": think, "plays": sum(table.plays for table in made.values()),
                "seconds": round(seconds, 1),
                **timer.report(), "stalled": sum(table.stalled for table in made.values()),
                "faults": len(service.faults)}


async def open_table(port: int, service: FakePushService) -> Table:
    """A slow room of four (a turn lasts an hour), each player subscribed with a browser of the fake service."""
    status, opened = await http("POST", port, "/api/rooms", {"name": PLAYERS[0], "preset": "quick",
                                                             "pace": {"turn_hours": 1}})
    if status != 201:
        raise RuntimeError(f"the room was not opened: {status} {opened}")
    code, tokens = opened["code"], [opened["token"]]
    for name in PLAYERS[1:]:
        _, joined = await http("POST", port, f"/api/rooms/{code}/players", {"name": name})
        tokens.append(joined["token"])
    browsers = []
    for token in tokens:
        browser = service.browser()
        status, _ = await http("POST", port, f"/api/rooms/{code}/push", {"token": token,
                                                                        "subscription": browser.subscription})
        if status != 201:
            raise RuntimeError(f"the subscription was refused: {status}")
        browsers.append(browser)
    return Table(code, tokens, browsers)


def main(tables: int = 100, plays: int = 24, folder: str | None = None, think: float = 1.0) -> None:
    """Print :func:`measure`'s figures as one JSON line."""
    print(json.dumps({"bench": "slow", **asyncio.run(measure(tables, plays, folder, think))}))
