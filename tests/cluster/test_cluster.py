"""Thirty tables on a cluster of three processes behind nginx, while owners are killed and stopped.

Each run opens 30 tables of four JSON-protocol players and a spectator through
the proxy and plays quick matches back to back while, one after another, the
owner of a random room is killed with ``kill -9`` three times and stopped with
``SIGTERM`` once (each then started again). Then every table finishes its
match. Run twice: sockets routed by room code like every room URL, and sockets
sent to a random process, so that the relay between processes carries real
play. The time from each stop to the next play of each table the process
owned is printed (the target is 10 s); it is a figure, not asserted.
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bench.cluster import Cluster
from tests.cluster.ownership import current_owners, ownership_problems
from tests.cluster.players import CLOCK, Failover, Table, fetch_records, open_tables, record_problems

pytestmark = [pytest.mark.cluster, pytest.mark.postgres, pytest.mark.redis]

TABLES = 30
STOPS = ["kill", "kill", "kill", "term"]
RULES = {"match_length": 6}
"""Preset ``quick`` (3 cards each) and at most 6 deals: a match takes seconds, so a run plays several."""
THINK_SECONDS = 0.05
"""A player's pause before each play, so that 30 tables leave the machine's cores some room."""
MOVE_ON_SECONDS = 60.0
"""A table that has not moved on this long after its owner stopped is a failure (the target is 10 s)."""
FINISH_SECONDS = 120.0
START_SECONDS = 60.0
"""How long the stops wait for every table to start (not a check: see :func:`play_through_stops`)."""
PLAY_BETWEEN_STOPS_SECONDS = 2.0


async def wait_until(check: Callable[[], bool], timeout: float) -> bool:
    """Poll ``check`` every 0.1 s until it holds (``True``) or ``timeout`` seconds pass (``False``)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def playing(table: Table) -> bool:
    """Whether the table's newest state shows a match in play."""
    if not table.versions:
        return False
    return '"phase": "playing"' in table.versions[max(table.versions)]


async def stop_an_owner(cluster: Cluster, tables: list[Table], how: str, rng: random.Random) -> Failover:
    """Kill (``kill -9``) or stop (``SIGTERM``) the owner of a random table in play; returns the failover,
    whose tables are those the process owned just before."""
    codes = [table.code for table in tables]
    owners = await asyncio.to_thread(current_owners, cluster.database_url, codes)
    chosen = rng.choice([table for table in tables if playing(table)] or tables)
    alive = [app for app in cluster.apps if app.alive]
    victim = cluster.app_named(owners.get(chosen.code, "")) or rng.choice(alive)
    owned = [table for table in tables if cluster.app_named(owners.get(table.code, "")) is victim]
    if how == "kill":
        await asyncio.to_thread(victim.kill)
    else:
        await asyncio.to_thread(victim.terminate)
    failover = Failover(how, victim.name, victim.signalled_at, owned if owners else list(tables))
    if not any(app.alive for app in cluster.apps):  # a cluster of one: nobody else can take the rooms
        await asyncio.to_thread(cluster.restart, victim)
    return failover


async def play_through_stops(cluster: Cluster, seed: int) -> tuple[list[Table], list[Failover], list[str]]:
    """Open the tables, play while each of :data:`STOPS` happens, finish; returns the tables, the
    failovers and the problems found on the way."""
    rng = random.Random(seed)
    tables = await open_tables(cluster.url, TABLES, rules=RULES, seed=seed, think=THINK_SECONDS)
    runners = [asyncio.ensure_future(player.run()) for table in tables for player in table.players]
    for table in tables:
        table.opened_at = time.monotonic()
    problems: list[str] = []
    failovers: list[Failover] = []
    try:
        # Pacing, not a check: the stops should find the tables playing. A table that starts later (a loaded
        # machine) still starts, and must play a match to its end like the others (checked below).
        await wait_until(lambda: all(table.moved_at for table in tables), START_SECONDS)
        for how in rng.sample(STOPS, len(STOPS)):
            await asyncio.sleep(PLAY_BETWEEN_STOPS_SECONDS)
            failover = await stop_an_owner(cluster, tables, how, rng)
            failovers.append(failover)
            if not await wait_until(lambda f=failover: all(table.moved_since(f.at) is not None
                                                           for table in f.tables), MOVE_ON_SECONDS):
                stuck = [table.code for table in failover.tables if table.moved_since(failover.at) is None]
                problems.append(f"after {how} of {failover.process}, tables {stuck} did not play for "
                                f"{MOVE_ON_SECONDS:.0f} s")
            for table in failover.tables:
                moved = table.moved_since(failover.at)
                if moved is not None:
                    failover.seconds[table.code] = moved
            victim = next(app for app in cluster.apps if app.name == failover.process)
            if not victim.alive:
                await asyncio.to_thread(cluster.restart, victim)
        for table in tables:
            table.stop()
        if not await wait_until(lambda: all(table.done.is_set() for table in tables), FINISH_SECONDS):
            problems.append(f"tables {[t.code for t in tables if not t.done.is_set()]} did not finish their match")
        if unplayed := [table.code for table in tables if not table.finished]:
            problems.append(f"tables {unplayed} never played a match to its end")
    finally:
        for table in tables:
            table.done.set()
        await asyncio.gather(*runners, return_exceptions=True)
    for runner in runners:
        if runner.exception() is not None:
            problems.append(f"a player failed: {runner.exception()!r}")
    return tables, failovers, problems


def rooms_held(cluster: Cluster) -> int:
    """The rooms the live processes hold together, by their ``/healthz``."""
    return sum(int((app.health() or {}).get("rooms", 0)) for app in cluster.apps if app.alive)


def figures(route: str, seed: int, tables: list[Table], failovers: list[Failover], seconds: float) -> str:
    """The run's figures as lines of text: each failover's times, and what the sockets met."""
    starts = sorted(table.moved_at[0][0] - table.opened_at for table in tables if table.moved_at)
    lines = [f"cluster run, sockets {route}, seed {seed}: {TABLES} tables, {seconds:.0f} s, "
             f"{sum(len(t.matches) for t in tables)} matches, {sum(len(t.versions) for t in tables)} versions",
             f"  from opening to the first match: median {statistics.median(starts):.2f} s, max {starts[-1]:.2f} s"
             if starts else "  no table started"]
    for number, failover in enumerate(failovers, 1):
        times = sorted(failover.seconds.values())
        summary = (f"median {statistics.median(times):.2f} s, max {times[-1]:.2f} s" if times else "no table moved")
        lines.append(f"  failover {number} at {failover.at - CLOCK:.1f} s: {failover.how} {failover.process}, "
                     f"{len(failover.tables)} tables: "
                     f"kill to next accepted play {summary} (target <= 10 s)")
    closes: Counter[object] = Counter()
    errors: Counter[str] = Counter()
    for table in tables:
        closes.update(table.closes)
        errors.update(table.errors)
    lines.append(f"  socket closes {dict(closes)}, errors {dict(errors)}, plays resent "
                 f"{sum(table.resent for table in tables)}")
    return "\n".join(lines)


@pytest.mark.parametrize("route", ["cucumber_rooms", "cucumber_random"])
def test_thirty_tables_finish_their_matches_through_kills_and_a_handover(
        cluster_services: tuple[str, str], route: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    postgres_url, redis_url = cluster_services
    seed = int(os.environ.get("CUCUMBER_CLUSTER_SEED", random.randrange(1_000_000)))
    started = time.monotonic()
    with Cluster(tmp_path / "cluster", postgres_url=postgres_url, redis_url=redis_url, socket_route=route) as cluster:
        tables, failovers, problems = asyncio.run(play_through_stops(cluster, seed))
        records = asyncio.run(fetch_records(cluster.url, tables))
        for table in tables:
            problems += table.problems + record_problems(table, records)
        problems += ownership_problems(cluster, [table.code for table in tables])
        held = rooms_held(cluster)
        if held > TABLES:
            problems.append(f"the processes hold {held} rooms together, but there are {TABLES}")
        with capsys.disabled():
            print("\n" + figures(route, seed, tables, failovers, time.monotonic() - started))
        logs = cluster.logs() if problems else ""
    assert not problems, f"seed {seed}:\n" + "\n".join(problems[:60]) + "\n" + logs


def test_the_proxy_sends_every_url_of_a_room_to_one_process_and_opens_rooms_round_robin(
        cluster_services: tuple[str, str], tmp_path: Path) -> None:
    postgres_url, redis_url = cluster_services
    with Cluster(tmp_path / "cluster", postgres_url=postgres_url, redis_url=redis_url) as cluster:
        opened = [httpx.post(f"{cluster.url}/api/rooms", json={"name": "Ana"}) for _ in range(9)]
        assert {answer.status_code for answer in opened} == {201}
        assert {answer.headers["x-cucumber-upstream"] for answer in opened} == {
            f"127.0.0.1:{app.port}" for app in cluster.apps}
        routes = {}
        for answer in opened:
            code = answer.json()["code"]
            answers = [httpx.get(f"{cluster.url}{path}") for path in
                       (f"/api/rooms/{code}", f"/r/{code}", f"/api/rooms/{code}", f"/r/{code}/take")]
            assert all(answer.status_code == 200 for answer in answers), code
            routes[code] = {answer.headers["x-cucumber-upstream"] for answer in answers}
            assert len(routes[code]) == 1, (code, routes[code])
        assert len(set().union(*routes.values())) > 1  # the rooms are spread over the processes
