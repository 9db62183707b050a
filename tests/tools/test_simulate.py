"""``cucumber simulate``: matches between random-legal players, summarised."""

import json

import pytest

from app.cli import main
from app.game import preset


def test_simulate_with_a_preset(capsys):
    assert main(["simulate", "--players", "3", "--rules", "quick", "--count", "5", "--seed", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches"] == 5 and report["players"] == 3 and report["seed"] == 2
    assert report["rules"] == preset("quick").to_dict()
    assert report["deals_per_match"] >= 1
    # 3 cards to each of the 2 or 3 players still in, every deal
    deals = report["deals_per_match"]
    assert 2 * 3 * deals - 0.1 <= report["plays_per_match"] <= 3 * 3 * deals + 0.1
    assert len(report["win_share"]) == 3 and sum(report["win_share"]) == pytest.approx(1, abs=1e-3)
    assert 2 <= report["penalty_per_deal"] <= 14


def test_simulate_with_json_rules_and_the_same_seed_gives_the_same_results(capsys):
    argv = ["simulate", "--players", "4", "--rules", '{"threshold": 30, "lives": 1}', "--count", "4", "--json"]
    main(argv)
    first = json.loads(capsys.readouterr().out)
    main(argv)
    again = json.loads(capsys.readouterr().out)
    assert first["rules"]["threshold"] == 30 and first["rules"]["lives"] == 1
    assert {key: value for key, value in first.items() if key != "seconds"} == \
        {key: value for key, value in again.items() if key != "seconds"}


def test_simulate_prints_a_readable_summary(capsys):
    assert main(["simulate", "--players", "2", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 matches, 2 players, seed 0")
    assert "seat 1: wins" in out
