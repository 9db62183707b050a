"""``cucumber simulate``: matches between random-legal players, summarised."""

import json

import pytest

from app.cli import main
from app.game import preset


def test_simulate_with_a_preset(capsys):
    assert main(["simulate", "--players", "3", "--rules", "quick", "--count", "5", "--seed", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["matches"] == 5 and summary["players"] == 3 and summary["seed"] == 2
    assert summary["rules"] == preset("quick").to_dict()
    assert summary["deals_per_match"] >= 1
    # 3 cards to each of the 2 or 3 players still in, every deal
    deals = summary["deals_per_match"]
    assert 2 * 3 * deals - 0.1 <= summary["plays_per_match"] <= 3 * 3 * deals + 0.1
    assert len(summary["win_share"]) == 3 and sum(summary["win_share"]) == pytest.approx(1, abs=1e-3)
    assert 2 <= summary["penalty_per_deal"] <= 14


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
