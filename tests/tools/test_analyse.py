"""``cucumber analyse``: one JSON line per graded play, a fault line for a record that does not verify."""

import io
import json
import random

from app.cli import main
from app.game import Rules, to_record
from app.game.simulate import play_random_match
from app.tools.analyse import analyse_file

KEYS = {"deal", "play", "seat", "card", "label", "best", "loss_points", "loss_win_share"}


def record_file(tmp_path, seed=1):
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(seed)))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    return path, record


def test_json_prints_one_line_per_play_of_the_seat(tmp_path, capsys):
    path, record = record_file(tmp_path)
    assert main(["analyse", str(path), "--json", "--seat", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all(set(line) == KEYS and line["seat"] == 1 for line in lines)
    assert len(lines) == len(record["deals"][0]["plays"]) // 3
    assert all(record["deals"][line["deal"]]["plays"][line["play"]] == line["card"] for line in lines)


def test_text_lists_the_plays_and_each_accuracy(tmp_path):
    path, record = record_file(tmp_path, seed=2)
    out, err = io.StringIO(), io.StringIO()
    assert analyse_file(str(path), seat=None, as_json=False, out=out, err=err, stdin=io.StringIO()) == 0
    text = out.getvalue()
    assert text.count("\n") == len(record["deals"][0]["plays"]) + 3
    assert all(f"accuracy of {name}:" in text for name in record["players"])


def test_a_record_that_does_not_verify_gets_verifys_fault_line_and_status_1(tmp_path, capsys):
    path, record = record_file(tmp_path, seed=3)
    record["deals"][0]["plays"][2] = record["deals"][0]["plays"][0]
    path.write_text(json.dumps(record))
    assert main(["analyse", str(path), "--json"]) == 1
    out = capsys.readouterr().out
    assert main(["verify", str(path)]) == 1
    assert out == capsys.readouterr().out
    assert json.loads(out)["ok"] is False and json.loads(out)["play"] == 2


def test_a_file_that_is_not_a_record_or_a_seat_not_in_the_match_is_refused(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main(["analyse", str(broken)]) == 1
    assert json.loads(capsys.readouterr().out)["ok"] is False
    path, _ = record_file(tmp_path)
    assert main(["analyse", str(path), "--seat", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "no seat 3" in captured.err
