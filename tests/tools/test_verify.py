"""``cucumber verify``: one JSON line per record file, and the reader of record files."""

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.game import Rules, to_record
from app.game.simulate import play_random_match
from app.tools.verify import UnreadableRecord, read_record

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


def test_verify_reads_a_file_with_a_byte_order_mark(tmp_path, capsys):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"format": "cucumber-match/1", "players": ["A", "B"],
                                                   "deals": []}).encode())
    assert main(["verify", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


@pytest.mark.parametrize("path", ["file", "-"])
def test_read_record_skips_a_byte_order_mark_in_a_file_or_on_standard_input(tmp_path, path):
    text = "\ufeff" + json.dumps({"format": "cucumber-match/1"})
    file = tmp_path / "bom.json"
    file.write_text(text, encoding="utf-8")
    stdin = io.StringIO(text)
    assert read_record(str(file) if path == "file" else "-", stdin) == {"format": "cucumber-match/1"}


@pytest.mark.parametrize(("content", "reason"), [
    (b"\xff{}", "not UTF-8 text"),
    (b"{", "not JSON (Expecting property name enclosed in double quotes at line 1 column 2)"),
    (b"[" * 100_000, "not JSON (nested too deeply)"),
    (b'{"deals": [{"dealer": ' + b"1" * 4301 + b"}]}", "not JSON (a number too long to read)"),
])
def test_read_record_says_why_a_file_is_unreadable(tmp_path, content, reason):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(UnreadableRecord) as caught:
        read_record(str(path), io.StringIO())
    assert caught.value.reason == reason
    with pytest.raises(UnreadableRecord, match="cannot read the file"):
        read_record(str(tmp_path / "missing.json"), io.StringIO())


def test_standard_input_that_is_not_utf8_is_refused_as_a_file_would_be(files, capsys, monkeypatch):
    # A text stream may let bad bytes through (surrogateescape, as Python's own under the C locale): the
    # record is read from its bytes instead, as a file is.
    record = json.loads(files["valid"].read_text())
    record["players"][0] += "\udcff"  # the byte 0xFF, let through
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape")),
                             encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["verify", "-"]) == 1
    assert json.loads(capsys.readouterr().out)["reason"] == "not UTF-8 text"


def test_a_number_too_long_to_read_fails_its_file_and_the_next_is_still_checked(files, tmp_path, capsys):
    huge = tmp_path / "huge.json"
    huge.write_text("9" * 4301)
    assert main(["verify", str(huge), str(files["valid"])]) == 1
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["reason"] == "not JSON (a number too long to read)" and second["ok"] is True
