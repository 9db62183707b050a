"""``cucumber bench load`` runs against real server processes and prints its JSON lines (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.server

SMALL = ["--tables", "3", "--duration", "3", "--flat-tables", "2", "--flat-duration", "2"]
PHASE_KEYS = {"server", "phase", "tables", "sockets", "plays", "plays_seen", "plays_unseen", "plays_per_s",
              "p50_ms", "p99_ms", "max_ms", "server_cpu", "generator_cpu", "server_rss_mb"}


def bench(*options: str) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "app", "bench", "load", *SMALL, *options],
                            capture_output=True, text=True, timeout=90)
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
    assert {"pace_p99_ms", "pace_server_cpu", "flat_plays_per_s"} <= set(phases["cucumber/bare", "ratios"])


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
