"""``cucumber bench load`` runs against real server processes and prints its JSON lines (no timing asserted):
one process on SQLite or PostgreSQL, and a cluster of two on PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import gc
import json
import subprocess
import sys
import time

import pytest
import redis
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

pytestmark = pytest.mark.server

SMALL = ["--tables", "3", "--duration", "3", "--flat-tables", "2", "--flat-duration", "2"]
PHASE_KEYS = {"server", "phase", "tables", "sockets", "plays", "plays_seen", "plays_unseen", "plays_per_s",
              "p50_ms", "p99_ms", "max_ms", "server_cpu", "generator_cpu", "server_rss_mb"}


def bench(*options: str, timeout: float = 90) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "app", "bench", "load", *SMALL, *options],
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("options", [(), ("--page",)], ids=["json", "page"])
def test_a_small_run_reports_every_phase_of_both_servers(options):
    lines = bench(*options)
    phases = {(line["server"], line["phase"]): line for line in lines}
    expected = {(server, phase) for server in ("cucumber", "bare") for phase in ("setup", "pace", "flat")}
    assert set(phases) == expected | {("cucumber/bare", "ratios")}
    for server in ("cucumber", "bare"):
        setup = phases[server, "setup"]
        assert setup["sockets"] == 3 * 5 * (2 if options else 1)
        assert setup["rss_per_socket_kb"] is not None
        for phase in ("pace", "flat"):
            line = phases[server, phase]
            assert set(line) >= PHASE_KEYS
            assert line["plays_seen"] > 0, line
            # The disk the plays wait for is probed beside the server on SQLite; the bare server has none.
            assert (line.get("disk_fsyncs", 0) > 0) is (server == "cucumber"), line
            if server == "cucumber":
                assert 0 <= line["disk_fsync_p50_ms"] <= line["disk_fsync_p99_ms"] <= line["disk_fsync_max_ms"]
    assert {"pace_p99_ms", "pace_server_cpu", "flat_plays_per_s"} <= set(phases["cucumber/bare", "ratios"])


@pytest.mark.timeout(120)
def test_the_setup_leaves_each_table_some_way_into_its_first_deal():
    lines = bench("--tables", "8", "--duration", "1", "--flat-duration", "0")
    setups = {line["server"]: line for line in lines if line["phase"] == "setup"}
    ours = setups["cucumber"]
    assert ours["tables_left_out"] == 0
    into_deal = {int(cards): tables for cards, tables in ours["tables_by_cards_into_deal"].items()}
    assert sum(into_deal.values()) == 8
    assert all(0 <= cards < 4 * 3 for cards in into_deal)  # four players of the quick preset's three cards
    assert len(into_deal) > 1, into_deal  # not all at one point of the deal (1 chance in 12 ** 7 of it)
    # Every card played in the spread is in the states the setup waited for.
    assert sum(cards * tables for cards, tables in into_deal.items()) == ours["spread_plays"]
    assert setups["bare"]["tables_by_cards_into_deal"] is None and setups["bare"]["spread_plays"] >= 0


@pytest.mark.timeout(120)
def test_a_run_with_chat_has_some_tables_chat_at_human_pace():
    lines = bench("--chat", "--page", "--duration", "9", "--flat-duration", "1")
    phases = {(line["server"], line["phase"]): line for line in lines}
    for server in ("cucumber", "bare"):
        assert phases[server, "setup"]["chat"] is True
        pace = phases[server, "pace"]
        assert pace["chat_tables"] == 1 and pace["chat_lines"] > 0, pace
        # Each line reaches the table's JSON sockets, and the page's too on our server.
        assert pace["chat_frames_received"] >= pace["chat_lines"] * 5, pace
        assert "unreadable" not in pace["errors"] and pace["plays_seen"] > 0, pace
        assert phases[server, "flat"]["chat_lines"] == 0


def test_a_bad_setting_is_refused():
    result = subprocess.run([sys.executable, "-m", "app", "bench", "load", "--env", "PATH=/nowhere"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "--env" in result.stderr


@pytest.mark.timeout(120)
@pytest.mark.postgres
def test_a_small_run_on_postgresql_reports_the_databases_cpu_and_drops_its_database(postgres_server):
    lines = bench("--database", "postgres", "--postgres-url", postgres_server, "--skip-bare")
    phases = {line["phase"]: line for line in lines}
    assert set(phases) == {"setup", "pace", "flat"}
    assert {line["mode"] for line in lines} == {"postgres"}
    database = phases["setup"]["settings"]["DATABASE_URL"].rpartition("/")[2]
    for phase in ("pace", "flat"):
        line = phases[phase]
        assert set(line) >= PHASE_KEYS and line["plays_seen"] > 0, line
        assert line["database_cpu"] is not None and line["redis_cpu"] is None
        assert [process["name"] for process in line["processes"]] == ["cucumber"]
        assert "disk_fsyncs" not in line  # PostgreSQL's disk is its own
    assert database not in databases(postgres_server)


@pytest.mark.timeout(180)
@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.parametrize("route", ["owner", "relayed"])
def test_a_small_run_on_a_cluster_sends_each_table_where_its_route_says(postgres_server, redis_server, route):
    lines = bench("--cluster", route, "--postgres-url", postgres_server, "--redis-url", redis_server,
                  "--skip-bare", timeout=150)
    phases = {line["phase"]: line for line in lines}
    assert set(phases) == {"setup", "pace", "flat"}
    setup = phases["setup"]
    assert setup["mode"] == f"cluster-{route}" and setup["tables_routed_as_asked"] == 3, setup
    assert [process["name"] for process in setup["processes"]] == ["app0", "app1"]
    for phase in ("pace", "flat"):
        line = phases[phase]
        assert set(line) >= PHASE_KEYS and line["plays_seen"] > 0, line
        assert len(line["processes"]) == 2 and line["redis_cpu"] is not None, line
        assert line["rooms_moved"] == 0
    assert setup["settings"]["CUCUMBER_REDIS_PREFIX"] not in redis_prefixes(redis_server)
    assert setup["settings"]["DATABASE_URL"].rpartition("/")[2] not in databases(postgres_server)


def databases(server_url: str) -> set[str]:
    engine = create_engine(server_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return set(connection.exec_driver_sql("SELECT datname FROM pg_database").scalars())
    finally:
        engine.dispose()


def redis_prefixes(url: str) -> set[str]:
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        return {key.partition(":")[0] for key in client.scan_iter(match="cucumber-bench-*", count=1000)}
    finally:
        client.close()


def test_a_cluster_on_sqlite_is_refused():
    result = subprocess.run([sys.executable, "-m", "app", "bench", "load", "--cluster", "owner", "--database",
                             "sqlite"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "PostgreSQL" in result.stderr


def test_the_generator_holds_its_collector_while_a_phase_is_measured_and_gives_it_back():
    from bench.load import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a phase failed")
    assert gc.isenabled()


def test_the_disk_probe_times_durable_writes_in_its_folder_and_leaves_nothing_there(tmp_path):
    from bench.load import PROBE_SECONDS, DiskProbe

    probe = DiskProbe(tmp_path)
    deadline = time.monotonic() + 60  # a slow disk may take long over an fsync: the probe waits for it
    while len(probe.seconds) < 2 and time.monotonic() < deadline:
        time.sleep(PROBE_SECONDS)
    figures = probe.stop()
    assert figures["disk_fsyncs"] >= 2, figures
    assert 0 <= figures["disk_fsync_p50_ms"] <= figures["disk_fsync_p99_ms"] <= figures["disk_fsync_max_ms"]
    assert list(tmp_path.iterdir()) == []


def test_a_phase_waits_for_the_server_to_be_at_rest_and_no_longer_than_its_limit():
    from bench.load import wait_quiet

    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # both interpreters started
        waited = asyncio.run(wait_quiet([idle.pid], seconds=0.5, limit=5))
        assert 0.5 <= waited < 2
        waited = asyncio.run(wait_quiet([idle.pid, busy.pid], seconds=0.5, limit=1.5))
        assert waited >= 1.5
    finally:
        for process in (idle, busy):
            process.kill()
            process.wait()


@pytest.mark.timeout(120)
def test_a_run_with_stored_matches_keeps_the_coach_busy_on_the_servers_core():
    # Two players make a short match to analyse; the worker runs at nice 19, so only an idle core lets it on.
    lines = bench("--analyses", "3", "--players", "2", "--skip-bare", "--duration", "1", "--flat-duration", "1")
    phases = {line["phase"]: line for line in lines}
    assert set(phases) == {"setup", "pace", "flat", "analyses"}
    setup, analyses = phases["setup"], phases["analyses"]
    assert setup["settings"]["CUCUMBER_ANALYSIS_WORKERS"] == "1"
    # The worker competes with the server on its core, at the lowest priority.
    assert [(worker["cores"], worker["nice"]) for worker in analyses["coach_workers"]] == [
        ([setup["server_core"]], 19)], analyses
    assert analyses["matches_stored"] == 3 and analyses["analyses_failed"] == 0, analyses
    assert analyses["analyses_done"] > 0, analyses
    assert analyses["analyses_done"] + analyses["analyses_waiting"] == 3
    assert analyses["busy_to_the_end"] is (analyses["analyses_waiting"] > 0)


def test_stored_matches_are_refused_for_a_cluster():
    result = subprocess.run([sys.executable, "-m", "app", "bench", "load", "--analyses", "5", "--cluster", "owner"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "--analyses" in result.stderr
