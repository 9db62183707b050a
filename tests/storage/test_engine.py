"""Engines for storage: SQLite pragmas and folders, shared in-memory databases."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from app.storage import Storage
from app.storage.engine import POSTGRES_CONNECT_TIMEOUT_S, SQLITE_BUSY_TIMEOUT_MS, create_storage_engine


def test_sqlite_gets_foreign_keys_wal_and_a_busy_timeout(tmp_path):
    engine = create_storage_engine(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        with engine.connect() as connection:
            pragma = connection.exec_driver_sql
            assert pragma("PRAGMA foreign_keys").scalar() == 1
            assert pragma("PRAGMA journal_mode").scalar() == "wal"
            assert pragma("PRAGMA busy_timeout").scalar() == SQLITE_BUSY_TIMEOUT_MS
    finally:
        engine.dispose()


def test_the_folder_of_a_sqlite_file_is_created(tmp_path):
    path = tmp_path / "data" / "deeper" / "cucumber.db"
    with Storage(f"sqlite:///{path}") as storage:
        storage.upgrade()
    assert path.is_file()


def test_an_in_memory_database_is_shared_by_threads():
    with Storage("sqlite://") as storage:
        storage.upgrade()
        results = []
        worker = threading.Thread(target=lambda: results.append(storage.list_matches().total))
        worker.start()
        worker.join()
        storage.close_room(code="x", closed_at=datetime.now(UTC))
        assert results == [0]


def test_postgres_gets_a_connect_timeout():
    engine = create_storage_engine("postgresql+psycopg://postgres@127.0.0.1:1/test")
    seen: list[dict[str, object]] = []
    event.listen(engine, "do_connect", lambda _dialect, _record, _args, params: seen.append(dict(params)))
    try:
        with pytest.raises(OperationalError), engine.connect():
            pass
    finally:
        engine.dispose()
    assert seen[0]["connect_timeout"] == POSTGRES_CONNECT_TIMEOUT_S
