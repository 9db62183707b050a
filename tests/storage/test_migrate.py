"""The hand-written migrations build exactly the models' schema, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, insert, inspect
from sqlalchemy.exc import IntegrityError

from app.bots.strength import BotStrength
from app.storage import Storage
from app.storage.engine import create_storage_engine
from app.storage.migrate import current_revision, downgrade, head_revision, migrations_folder, upgrade
from app.storage.models import Base, RoomRow, SeatRow

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
    assert head_revision() == "0001"


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
            assert ({index["name"] for index in inspector.get_indexes(table.name)}
                    == {index.name for index in table.indexes})
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
        (check,) = [check for check in inspect(engine).get_check_constraints("seats") if check["name"] == "ck_seats_bot"]
        assert set(re.findall(r"'(\w+)'", check["sqltext"])) == set(BotStrength)
        with engine.begin() as connection:
            connection.execute(insert(RoomRow).values(code="ROOM1", rules={}, created_at=T0))
            connection.execute(insert(SeatRow), [{"room_code": "ROOM1", "seat": seat, "name": strength, "bot": strength}
                                                 for seat, strength in enumerate(BotStrength)])
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(insert(SeatRow).values(room_code="ROOM1", seat=9, name="x", bot="expert"))
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
