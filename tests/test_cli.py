"""The ``cucumber`` command's options: bad ones exit with status 2; ``bench engine`` and ``storage``; rules options."""

import json

import pytest

from app.cli import main, rules_from_text
from app.game import InvalidRules, Rules, preset
from app.game.rules import CHOICE, MAX_PLAYERS, MIN_PLAYERS, OPTIONS


@pytest.mark.parametrize("argv", [
    ["simulate", "--rules", "poker"],
    ["simulate", "--rules", '{"threshold": 5}'],
    ["simulate", "--rules", '{"threshold": '],
    ["simulate", "--count", "0"],
    ["simulate", "--players", "8"],
    ["bench", "engine", "--matches", "0"],
    ["bench", "storage", "--rooms", "0"],
    ["bench", "storage", "--rooms", "two"],
    ["bench", "storage", "--plays", "0"],
    ["bench", "push", "--push-tables", "0"],
    ["bench", "slow", "--slow-tables", "0"],
    ["bench", "slow", "--slow-think", "-1"],
])
def test_bad_options_exit_with_status_2(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert capsys.readouterr().err


def test_bench_engine_prints_one_json_line(capsys):
    assert main(["bench", "engine", "--matches", "3", "--rounds", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1
    figures = json.loads(out)
    assert figures["matches"] == 3 and figures["players"] == 5 and figures["rounds"] == 2
    assert isinstance(figures["matches_per_s"], float) and figures["matches_per_s"] > 0
    assert isinstance(figures["plays_per_s"], float) and figures["plays_per_s"] > 0
    assert figures["plays_per_match"] >= 35


def test_bench_storage_prints_one_json_line(capsys, tmp_path):
    assert main(["bench", "storage", "--rooms", "1,3", "--plays", "4", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1
    figures = json.loads(out)
    assert (figures["database"], figures["folder"], figures["plays_per_room"]) == ("sqlite", str(tmp_path), 4)
    assert [run["rooms"] for run in figures["runs"]] == [1, 3]
    for run in figures["runs"]:
        assert run["commit_each_plays_per_s"] > 0 and run["group_commit_plays_per_s"] > 0 and run["speedup"] > 0
    assert list(tmp_path.iterdir()) == []  # the databases are gone


def test_rules_from_text():
    assert rules_from_text("gurka") == preset("gurka")
    assert rules_from_text(' {"hand_size": 4} ') == Rules(hand_size=4)
    with pytest.raises(InvalidRules):
        rules_from_text("{not json}")
    with pytest.raises(InvalidRules) as caught:
        rules_from_text('{"lives": 0}')
    assert caught.value.option == "lives"


@pytest.mark.parametrize("command", ["simulate", "arena"])
def test_the_help_lists_every_rules_option_from_the_engines_table(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = capsys.readouterr().out
    for option in OPTIONS:
        line = next(line for line in shown.splitlines() if line.split()[:1] == [option.name])
        assert line.endswith(f"(default {option.default})")
        assert all(word in line for word in option.choices)
        assert option.kind == CHOICE or f"{option.low} … {option.high}" in line


def test_simulate_takes_the_engines_seat_limits(capsys):
    for players in (MIN_PLAYERS, MAX_PLAYERS):
        assert main(["simulate", "--players", str(players), "--count", "1", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["players"] == players
    for players in (MIN_PLAYERS - 1, MAX_PLAYERS + 1):
        with pytest.raises(SystemExit):
            main(["simulate", "--players", str(players)])


def test_a_reader_that_goes_away_first_stops_the_command_without_a_traceback():
    """``cucumber simulate | head -0``: the pipe is closed before the command writes to it."""
    import os
    import subprocess
    import sys

    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = subprocess.run([sys.executable, "-m", "app", "simulate", "--count", "1"], stdout=writer,
                              stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(writer)
    assert done.returncode == 1
    assert b"Traceback" not in done.stderr, done.stderr.decode()


def test_bench_push_prints_one_json_line(capsys, tmp_path):
    assert main(["bench", "push", "--push-tables", "3", "--push-rounds", "2", "--dir", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["bench"] == "push" and report["pushes"] == 6 and report["missing"] == 0 and report["faults"] == 0
    assert report["push_p95_ms"] > 0
