"""``cucumber db upgrade`` and ``cucumber import FILE``, on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json
import random

import pytest

from app.cli import main
from app.game.record import to_record
from app.game.rules import preset
from app.game.simulate import play_random_match
from app.storage import Storage
from app.storage.migrate import current_revision, head_revision


def record_file(tmp_path, record, name="match.json"):
    path = tmp_path / name
    path.write_text(json.dumps(record) if not isinstance(record, str) else record)
    return str(path)


def test_db_upgrade_applies_the_migrations(empty_url, capsys):
    assert main(["db", "upgrade", "--database-url", empty_url]) == 0
    assert "up to date" in capsys.readouterr().out
    with Storage(empty_url) as storage:
        assert current_revision(storage.engine) == head_revision()


def test_db_upgrade_uses_the_settings(empty_url, capsys, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", empty_url)
    assert main(["db", "upgrade"]) == 0
    with Storage(empty_url) as storage:
        assert current_revision(storage.engine) == head_revision()


def test_db_upgrade_reports_a_database_that_is_down(capsys):
    assert main(["db", "upgrade", "--database-url", "postgresql+psycopg://postgres@127.0.0.1:1/test"]) == 1
    assert "could not upgrade the database" in capsys.readouterr().err


def test_import_stores_a_valid_record_and_prints_its_id(empty_url, tmp_path, capsys):
    record = to_record(play_random_match(3, preset("quick"), random.Random(2)))
    assert main(["import", record_file(tmp_path, record), "--database-url", empty_url]) == 0
    match_id = capsys.readouterr().out.strip()
    with Storage(empty_url) as storage:
        assert storage.match_record(match_id) == record


def test_importing_a_record_a_second_time_adds_nothing(empty_url, tmp_path, capsys):
    path = record_file(tmp_path, to_record(play_random_match(3, preset("quick"), random.Random(2))))
    assert main(["import", path, "--database-url", empty_url]) == 0
    first = capsys.readouterr().out.strip()
    assert main(["import", path, "--database-url", empty_url]) == 0
    printed = capsys.readouterr()
    assert printed.out.strip() == first
    assert printed.err == f"cucumber import: {path}: this match is stored already (as {first}); nothing was added\n"
    with Storage(empty_url) as storage:
        assert storage.list_matches().total == 1


def test_import_reads_standard_input(empty_url, capsys, monkeypatch):
    record = to_record(play_random_match(2, preset("quick"), random.Random(3)))
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(record)))
    assert main(["import", "-", "--database-url", empty_url]) == 0
    assert len(capsys.readouterr().out.strip()) == 12


def unfinished():
    record = to_record(play_random_match(3, preset("quick"), random.Random(4)))
    record["deals"][-1]["plays"] = record["deals"][-1]["plays"][:-1]
    return record


def faulty():
    record = to_record(play_random_match(3, preset("quick"), random.Random(5)))
    record["deals"][0]["hands"][1][0] = record["deals"][0]["hands"][0][0]
    return record


@pytest.mark.parametrize("content", [
    faulty(),
    unfinished(),
    {"format": "cucumber-match/2"},
    "{not json",
], ids=["faulty", "unfinished", "not-a-record", "not-json"])
def test_import_prints_the_verify_result_of_a_record_it_refuses(empty_url, tmp_path, capsys, content):
    path = record_file(tmp_path, content)
    main(["verify", path])
    verified = capsys.readouterr().out
    assert main(["import", path, "--database-url", empty_url]) == 1
    printed = capsys.readouterr()
    assert printed.out == verified
    assert printed.err.startswith(f"cucumber import: {path}: ")
    with Storage(empty_url) as storage:
        storage.upgrade()
        assert storage.list_matches().total == 0


def test_import_of_a_missing_file_prints_the_verify_result(empty_url, tmp_path, capsys):
    path = str(tmp_path / "missing.json")
    main(["verify", path])
    verified = capsys.readouterr().out
    assert main(["import", path, "--database-url", empty_url]) == 1
    assert capsys.readouterr().out == verified


def test_import_reads_a_record_with_a_byte_order_mark_as_verify_does(empty_url, tmp_path, capsys):
    record = to_record(play_random_match(3, preset("quick"), random.Random(6)))
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(record).encode())
    assert main(["verify", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["import", str(path), "--database-url", empty_url]) == 0
    match_id = capsys.readouterr().out.strip()
    with Storage(empty_url) as storage:
        assert storage.match_record(match_id) == record


def test_import_refuses_a_name_the_table_refuses_with_a_verify_style_line(empty_url, tmp_path, capsys):
    record = to_record(play_random_match(3, preset("quick"), random.Random(7)))
    record["players"][2] = "Ana  Maria"
    path = record_file(tmp_path, record)
    assert main(["import", path, "--database-url", empty_url]) == 1
    printed = capsys.readouterr()
    result = json.loads(printed.out)
    assert (result["ok"], result["deal"], result["seat"]) == (False, None, 2)
    assert "'Ana Maria'" in result["reason"]
    assert printed.err == f"cucumber import: {path}: {result['reason']}\n"


@pytest.mark.parametrize("players", [["Ana", "Ana", "Cy"], ["", "Ben", "Cy"], ["Ana", "  Ben\n", "\u200b"]])
def test_verify_takes_names_as_labels_but_import_keeps_the_tables_rules(empty_url, tmp_path, capsys, players):
    # docs/rules.md §4: a record's names are labels for checking; storing one asks for names a table accepts.
    record = to_record(play_random_match(3, preset("quick"), random.Random(8)))
    record["players"] = players
    path = record_file(tmp_path, record)
    assert main(["verify", path]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] is True and verified["finished"] is True
    assert main(["import", path, "--database-url", empty_url]) == 1
    refused = json.loads(capsys.readouterr().out)
    assert refused["ok"] is False and refused["seat"] in (0, 1, 2)
