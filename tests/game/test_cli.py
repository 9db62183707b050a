"""The command line: ``verify``, ``simulate``, ``bench engine`` and the rules options in its help."""

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main, rules_from_text
from app.game import InvalidRules, Rules, preset, to_record
from app.game.rules import CHOICE, MAX_PLAYERS, MIN_PLAYERS, OPTIONS
from app.game.simulate import play_random_match

CASES = sorted((Path(__file__).parent.parent / "data" / "records").glob("*.json"))


@pytest.fixture
def files(tmp_path):
    """A valid record, a faulty one, a non-JSON file and a JSON file that is not a record."""
    match = play_random_match(3, Rules(), random.Random(1))
    valid = tmp_path / "valid.json"
    valid.write_text(json.dumps(to_record(match)))
    record = to_record(match)
    record["deals"][0]["hands"][0].pop()
    faulty = tmp_path / "faulty.json"
    faulty.write_text(json.dumps(record))
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "cucumber-match/1", "deals": [')
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    return {"valid": valid, "faulty": faulty, "broken": broken, "other": other, "match": match}


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


def test_verify_prints_one_line_per_file_in_order_and_goes_on_after_bad_files(files, capsys):
    paths = [files[name] for name in ("broken", "valid", "other", "faulty", "valid")]
    status = main(["verify", *map(str, paths), str(files["valid"].parent / "missing.json")])
    out, err = capsys.readouterr()
    results = lines(out)
    assert status == 1
    assert len(results) == 6
    assert [result["ok"] for result in results] == [False, True, False, False, True, False]
    assert results[1]["scores"] == list(files["match"].scores)
    assert results[1]["winners"] == list(files["match"].winners)
    assert results[3] == {"ok": False, "deal": 0, "play": None, "seat": 0, "card": None,
                          "reason": "hand has 6 cards, expected 7"}
    assert "not JSON" in results[0]["reason"] and results[0]["deal"] is None
    assert "not a cucumber-match/1 record" in results[2]["reason"]
    assert "cannot read" in results[5]["reason"]
    errors = err.splitlines()
    assert len(errors) == 3
    assert errors[0].startswith(f"cucumber verify: {files['broken']}: not JSON")
    assert str(files["other"]) in errors[1] and "missing.json" in errors[2]


def test_verify_exits_zero_when_every_record_is_valid(files, capsys):
    assert main(["verify", str(files["valid"]), str(files["valid"])]) == 0
    assert [result["ok"] for result in lines(capsys.readouterr().out)] == [True, True]


def test_verify_reads_standard_input_for_a_dash(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(files["faulty"].read_text()))
    assert main(["verify", str(files["valid"]), "-"]) == 1
    results = lines(capsys.readouterr().out)
    assert [result["ok"] for result in results] == [True, False]
    assert results[1]["deal"] == 0


def test_verify_rejects_a_file_that_is_not_utf8(tmp_path, capsys):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"format": "\xff"}')
    assert main(["verify", str(path)]) == 1
    assert lines(capsys.readouterr().out)[0]["reason"] == "not UTF-8 text"


def test_verify_agrees_with_every_shared_case(tmp_path, capsys):
    paths = []
    for case in CASES:
        path = tmp_path / case.name
        path.write_text(json.dumps(json.loads(case.read_text())["record"]))
        paths.append(str(path))
    main(["verify", *paths])
    results = lines(capsys.readouterr().out)
    assert len(results) == len(CASES)
    for case, result in zip(CASES, results):
        expect = json.loads(case.read_text())["expect"]
        keys = ["ok", "deal", "play"] if not expect["ok"] else ["ok", "scores", "lives", "winners", "deals"]
        assert {key: result[key] for key in keys} == {key: expect[key] for key in keys}, case.name


def test_verify_as_a_process_exit_status(files):
    command = [sys.executable, "-m", "app", "verify", str(files["valid"]), "-"]
    done = subprocess.run(command, input=files["broken"].read_text(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert [result["ok"] for result in lines(done.stdout)] == [True, False]
    assert done.stderr.count("\n") == 1 and "cucumber verify: -: not JSON" in done.stderr
    done = subprocess.run(command[:-1], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0


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


def test_simulate_prints_a_readable_report(capsys):
    assert main(["simulate", "--players", "2", "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 matches, 2 players, seed 0")
    assert "seat 1: wins" in out


@pytest.mark.parametrize("argv", [
    ["simulate", "--rules", "poker"],
    ["simulate", "--rules", '{"threshold": 5}'],
    ["simulate", "--rules", '{"threshold": '],
    ["simulate", "--count", "0"],
    ["simulate", "--players", "8"],
    ["bench", "engine", "--matches", "0"],
])
def test_bad_options_exit_with_status_2(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert capsys.readouterr().err


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


def test_bench_engine_prints_one_json_line(capsys):
    assert main(["bench", "engine", "--matches", "3", "--rounds", "2", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1
    figures = json.loads(out)
    assert figures["matches"] == 3 and figures["players"] == 5 and figures["rounds"] == 2
    assert isinstance(figures["matches_per_s"], float) and figures["matches_per_s"] > 0
    assert isinstance(figures["plays_per_s"], float) and figures["plays_per_s"] > 0
    assert figures["plays_per_match"] >= 35


def test_rules_from_text():
    assert rules_from_text("gurka") == preset("gurka")
    assert rules_from_text(' {"hand_size": 4} ') == Rules(hand_size=4)
    with pytest.raises(InvalidRules):
        rules_from_text("{not json}")
    with pytest.raises(InvalidRules) as caught:
        rules_from_text('{"lives": 0}')
    assert caught.value.option == "lives"


def test_verify_reads_a_file_with_a_byte_order_mark(tmp_path, capsys):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"format": "cucumber-match/1", "players": ["A", "B"],
                                                   "deals": []}).encode())
    assert main(["verify", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
