"""The hand-written migrations build exactly the models' schema, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, UniqueConstraint, create_engine, insert, inspect, make_url, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import NullPool

from app.bots.strength import BotStrength
from app.cli import main
from app.common.identity import is_player_id, new_player_id
from app.game.record import replay, to_record
from app.game.rules import preset
from app.game.simulate import play_random_match
from app.storage import Storage
from app.storage.engine import create_storage_engine
from app.storage.migrate import current_revision, downgrade, head_revision, migrations_folder, upgrade
from app.storage.models import Base, RoomRow, SeatRow
from app.storage.queries import digest_of

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 14, 15, 9, tzinfo=UTC)


def differences(url: str) -> list[object]:
    engine = create_storage_engine(url)
    try:
        with engine.connect() as connection:
            return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))
    finally:
        engine.dispose()


def test_the_migrations_folder_is_found_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert migrations_folder() == ROOT / "migrations"
    assert head_revision() == "0010"


def test_upgrade_builds_the_models_schema(empty_url):
    with Storage(empty_url) as storage:
        assert current_revision(storage.engine) is None
        storage.upgrade()
        assert current_revision(storage.engine) == head_revision()
        storage.upgrade()
        assert current_revision(storage.engine) == head_revision()
    assert differences(empty_url) == []


def test_constraints_and_indexes_have_the_conventional_names(empty_url):
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine)
        inspector = inspect(engine)
        for table in Base.metadata.sorted_tables:
            assert inspector.get_pk_constraint(table.name)["name"] == table.primary_key.name
            assert ({fk["name"] for fk in inspector.get_foreign_keys(table.name)}
                    == {fk.name for fk in table.foreign_key_constraints})
            # PostgreSQL lists the index behind a unique constraint among the indexes too.
            indexes = inspector.get_indexes(table.name)
            assert {index["name"] for index in indexes if "duplicates_constraint" not in index} == {
                index.name for index in table.indexes}
            assert {unique["name"] for unique in inspector.get_unique_constraints(table.name)} == {
                constraint.name for constraint in table.constraints if isinstance(constraint, UniqueConstraint)}
            checks = {check["name"] for check in inspector.get_check_constraints(table.name)}
            expected = {constraint.name for constraint in table.constraints if isinstance(constraint, CheckConstraint)}
            assert checks == expected
    finally:
        engine.dispose()


def test_the_migrated_bot_constraint_allows_exactly_the_bot_strengths(empty_url):
    # The migration spells the strengths out (it is history); they must still be the enum's.
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine)
        checks = inspect(engine).get_check_constraints("seats")
        (check,) = [check for check in checks if check["name"] == "ck_seats_bot"]
        assert set(re.findall(r"'(\w+)'", check["sqltext"])) == set(BotStrength)
        with engine.begin() as connection:
            connection.execute(insert(RoomRow).values(code="ROOM1", rules={}, created_at=T0))
            connection.execute(insert(SeatRow), [{"room_code": "ROOM1", "seat": seat, "name": "Bot", "bot": strength,
                                                  "player": new_player_id()}
                                                 for seat, strength in enumerate(BotStrength)])
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(insert(SeatRow).values(room_code="ROOM1", seat=9, name="x", bot="master",
                                                      player=new_player_id()))
    finally:
        engine.dispose()


def test_downgrade_removes_every_table(empty_url):
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine)
        downgrade(engine, revision="base")
        assert set(inspect(engine).get_table_names()) == {"alembic_version"}
        assert current_revision(engine) is None
        upgrade(engine)
        assert differences(empty_url) == []
    finally:
        engine.dispose()


def test_seats_stored_before_player_ids_each_get_one(empty_url):
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine, revision="0001")
        with engine.begin() as connection:
            for code in ("ROOM1", "ROOM2"):
                connection.execute(text("INSERT INTO rooms (code, rules, created_at) VALUES (:code, '{}', :at)"),
                                   {"code": code, "at": T0})
                connection.execute(text("INSERT INTO seats (room_code, seat, name, token_hash, bot) "
                                        "VALUES (:code, :seat, :name, NULL, :bot)"),
                                   [{"code": code, "seat": seat, "name": f"P{seat}", "bot": "easy"}
                                    for seat in range(3)])
        upgrade(engine)
        with engine.begin() as connection:
            seats = connection.execute(text("SELECT room_code, seat, name, player FROM seats")).all()
            assert sorted((room, seat, name) for room, seat, name, _ in seats) == [
                (room, seat, f"P{seat}") for room in ("ROOM1", "ROOM2") for seat in range(3)]
            assert len({player for *_, player in seats}) == 6 and all(is_player_id(player) for *_, player in seats)
            # The rebuilt table kept its foreign key: a room's seats go with it.
            connection.execute(text("DELETE FROM rooms WHERE code = 'ROOM1'"))
            assert connection.execute(text("SELECT DISTINCT room_code FROM seats")).scalars().all() == ["ROOM2"]
        assert differences(empty_url) == []
        downgrade(engine, revision="0001")
        assert "player" not in {column["name"] for column in inspect(engine).get_columns("seats")}
    finally:
        engine.dispose()


def test_seats_stored_before_stepping_away_was_stored_are_not_stepped_away(empty_url):
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine, revision="0003")
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO rooms (code, rules, created_at) VALUES ('ROOM1', '{}', :at)"),
                               {"at": T0})
            connection.execute(text("INSERT INTO seats (room_code, seat, name, token_hash, bot, player) "
                                    "VALUES ('ROOM1', :seat, :name, NULL, 'easy', :player)"),
                               [{"seat": seat, "name": f"P{seat}", "player": new_player_id()} for seat in range(2)])
        upgrade(engine)
        with engine.begin() as connection:
            seats = connection.execute(text("SELECT seat, stepped_away FROM seats ORDER BY seat")).all()
            assert [(seat, bool(away)) for seat, away in seats] == [(0, False), (1, False)]
            # A seat inserted without saying is not stepped away either.
            connection.execute(text("INSERT INTO seats (room_code, seat, name, bot, player) "
                                    "VALUES ('ROOM1', 2, 'P2', 'easy', :player)"), {"player": new_player_id()})
            assert not connection.execute(text("SELECT stepped_away FROM seats WHERE seat = 2")).scalar_one()
        assert differences(empty_url) == []
        downgrade(engine, revision="0003")
        assert "stepped_away" not in {column["name"] for column in inspect(engine).get_columns("seats")}
        assert len(inspect(engine).get_unique_constraints("seats")) == 1  # the rebuilt table kept its constraints
    finally:
        engine.dispose()


def test_matches_finished_before_record_digests_get_theirs(empty_url):
    match = play_random_match(3, preset("quick"), random.Random(5))
    record = to_record(match)
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine, revision="0004")
        with engine.begin() as connection:
            rows = [{"id": "done", "status": "finished", "record": json.dumps(record)},
                    {"id": "going", "status": "in_progress", "record": None}]
            connection.execute(text("INSERT INTO matches (id, status, imported, rules, players, started_at, record) "
                                    "VALUES (:id, :status, false, '{}', '[]', :at, :record)"),
                               [dict(row, at=T0) for row in rows])
        upgrade(engine)
        with engine.begin() as connection:
            digests = dict(connection.execute(text("SELECT id, record_digest FROM matches")).all())
        assert digests == {"done": digest_of(record), "going": None}
        assert differences(empty_url) == []
        with Storage(empty_url) as storage:  # the record is found by it: not stored a second time
            assert storage.import_record(record, imported_at=T0) == ("done", False)
        downgrade(engine, revision="0004")
        assert "record_digest" not in {column["name"] for column in inspect(engine).get_columns("matches")}
    finally:
        engine.dispose()


def test_matches_of_the_earlier_parlett_are_listed_with_custom_rules_and_keep_them(empty_url):
    # docs/rules.md §3, "Presets": parlett now has follow must_match; a match keeps the rules it began with.
    earlier = preset("parlett").changed(follow="match_or_lowest")
    finished = play_random_match(4, earlier, random.Random(3))
    record = to_record(finished)
    rows = [("old-done", "finished", earlier.to_dict(), "parlett", record),
            ("old-going", "in_progress", earlier.to_dict(), "parlett", None),
            ("new-custom", "finished", preset("parlett").to_dict(), None, None),
            ("short", "abandoned", {"threshold": 30, "lives": 2, "second_life_min_opponents": 3, "follow": "must_match",
                                    "last_trick_tie": "all_tied", "ace_lead": "forces_lowest"}, None, None),
            ("gurka", "finished", preset("gurka").to_dict(), "gurka", None),
            ("custom", "finished", earlier.changed(threshold=40).to_dict(), None, None)]
    engine = create_storage_engine(empty_url)
    try:
        upgrade(engine, revision="0005")
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO matches (id, status, imported, rules, players, preset, started_at, "
                                    "record) VALUES (:id, :status, false, :rules, '[]', :preset, :at, :record)"),
                               [{"id": key, "status": status, "rules": json.dumps(rules), "preset": label, "at": T0,
                                 "record": None if kept is None else json.dumps(kept)}
                                for key, status, rules, label, kept in rows])

        def labels():
            with engine.begin() as connection:
                return dict(connection.execute(text("SELECT id, preset FROM matches")).all())

        before = labels()
        upgrade(engine)
        assert labels() == {"old-done": None, "old-going": None, "new-custom": "parlett", "short": "parlett",
                            "gurka": "gurka", "custom": None}
        with Storage(empty_url) as storage:  # the stored record replays as it was played, on its own rules
            assert storage.match_record("old-done") == record
            assert replay(storage.match_record("old-done")).scores == finished.scores
        downgrade(engine, revision="0005")
        assert labels() == before
    finally:
        engine.dispose()


def test_the_alembic_command_works_from_the_repository_root(tmp_path):
    # The ini file does not depend on the database; the schema checks above run on both.
    url = f"sqlite:///{tmp_path / 'cucumber.db'}"

    def alembic(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "alembic", *args], cwd=ROOT, capture_output=True, text=True,
                              env=os.environ | env, timeout=60, check=False)

    upgraded = alembic("upgrade", "head", DATABASE_URL=url)
    assert upgraded.returncode == 0, upgraded.stderr
    checked = alembic("-x", f"database_url={url}", "check")
    assert checked.returncode == 0, checked.stderr
    assert "No new upgrade operations detected" in checked.stdout + checked.stderr


def upgrade_each_when_all_are_ready(urls: list[str], ready: Any) -> None:
    """``cucumber db upgrade`` of each database in turn, each started when every other process is ready too.

    The barrier waits as long as the other processes take (on a loaded machine, starting a process and
    migrating take many times as long as on a quiet one): no time limit, so only a failure can break it.
    Exits with the first failing status, else 0; any failure here breaks the barrier, so the other
    processes stop too instead of waiting for this one.
    """
    try:
        for url in urls:
            ready.wait()
            status = main(["db", "upgrade", "--database-url", url])
            if status:
                raise SystemExit(status)
    except BaseException:
        ready.abort()
        raise


@contextmanager
def databases_of_their_own(backend: str, folder: Path, request: pytest.FixtureRequest,
                           count: int) -> Iterator[list[str]]:
    """The URLs of ``count`` new, empty databases: SQLite files, or PostgreSQL databases created and dropped here."""
    if backend == "sqlite":
        yield [f"sqlite:///{folder / f'fresh{number}.db'}" for number in range(count)]
        return
    server = make_url(request.getfixturevalue("postgres_server"))
    names = [f"cucumber_test_{secrets.token_hex(6)}" for _ in range(count)]
    admin = create_engine(server, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            for name in names:
                connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        yield [server.set(database=name).render_as_string(hide_password=False) for name in names]
    finally:
        with admin.connect() as connection:
            for name in names:
                connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


UPGRADES_AT_ONCE = 4
ROUNDS = 3


def test_upgrades_started_at_once_on_a_new_database_all_succeed(backend, tmp_path, request):
    # Processes, not threads: Alembic's context is global to a process.
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Barrier(UPGRADES_AT_ONCE)
    with databases_of_their_own(backend, tmp_path, request, ROUNDS) as urls:
        upgrades = [spawn.Process(target=upgrade_each_when_all_are_ready, args=(urls, ready))
                    for _ in range(UPGRADES_AT_ONCE)]
        for process in upgrades:
            process.start()
        try:
            running = list(upgrades)
            while running:
                for ended in multiprocessing.connection.wait([process.sentinel for process in running]):
                    process = next(process for process in running if process.sentinel == ended)
                    process.join()
                    running.remove(process)
                    if process.exitcode != 0:
                        ready.abort()  # one that died before the barrier must not keep the others waiting
        finally:
            for process in upgrades:
                process.kill()
                process.join()
        assert [process.exitcode for process in upgrades] == [0] * UPGRADES_AT_ONCE
        for url in urls:
            with Storage(url) as storage:
                assert current_revision(storage.engine) == head_revision()
            assert differences(url) == []


def test_an_upgrade_that_sqlite_said_was_locked_is_tried_again_and_other_errors_are_not(tmp_path, monkeypatch):
    from contextlib import contextmanager as made

    from sqlalchemy.exc import OperationalError

    from app.storage import migrate
    from app.storage.engine import create_storage_engine

    engine = create_storage_engine(f"sqlite:///{tmp_path / 'new.db'}")
    real, attempts = migrate.migration_transaction, []

    def failing_once(message):
        @made
        def transaction(engine):
            attempts.append(message)
            if len(attempts) == 1:
                raise OperationalError("BEGIN IMMEDIATE", {}, Exception(message))
            with real(engine) as connection:
                yield connection
        return transaction

    monkeypatch.setattr(migrate, "migration_transaction", failing_once("database is locked"))
    migrate.upgrade(engine)
    assert len(attempts) == 2 and migrate.current_revision(engine) == migrate.head_revision()
    attempts.clear()
    monkeypatch.setattr(migrate, "migration_transaction", failing_once("disk I/O error"))
    with pytest.raises(OperationalError, match="disk I/O error"):
        migrate.upgrade(engine)
    assert len(attempts) == 1
    engine.dispose()
