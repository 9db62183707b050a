"""The SQLAlchemy engine for a database URL, set up the way storage needs it.

SQLite gets foreign keys, write-ahead logging, a busy timeout and real
transactions; PostgreSQL gets a connect timeout; both check connections
before use, so a database that went away and came back is used again, and
both write strict JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.engine import URL, Connection
from sqlalchemy.pool import StaticPool

BEGIN_MODE = "cucumber_sqlite_begin"
"""Execution option naming how SQLite transactions begin: ``DEFERRED`` (default) or ``IMMEDIATE``."""

SQLITE_BUSY_TIMEOUT_MS = 5000
SQLITE_PARAMSTYLE = "named"
"""Parameters by name (``:match_id``), not by position (``?``): a value a statement uses in several places
(a play's match and deal are in its checks too) is then converted and checked once, not once a place."""
POSTGRES_CONNECT_TIMEOUT_S = 10


def create_storage_engine(url: str | URL, *, echo: bool = False) -> Engine:
    """A new engine for ``url`` (a SQLAlchemy URL string or object).

    For a SQLite file, creates the file's parent folder if missing (raises
    ``OSError`` if it cannot). An in-memory SQLite database is one connection
    shared by all threads (for tests and trials). Raises SQLAlchemy's
    ``ArgumentError`` for a malformed URL and ``NoSuchModuleError`` for an
    unknown database or driver. ``echo`` logs every statement.
    """
    url = make_url(url)
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url, echo=echo)
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "postgresql" and "connect_timeout" not in url.query:
        # A server that does not answer must not hang the calling thread.
        connect_args["connect_timeout"] = POSTGRES_CONNECT_TIMEOUT_S
    return create_engine(url, echo=echo, pool_pre_ping=True, connect_args=connect_args,
                         json_serializer=_json_text)


def _json_text(value: Any) -> str:
    # Strict JSON: NaN and Infinity are not JSON; PostgreSQL refuses them, SQLite would store them.
    return json.dumps(value, allow_nan=False)


def _sqlite_engine(url: URL, *, echo: bool) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or url.query.get("mode") == "memory"
    if in_memory:
        engine = create_engine(url, echo=echo, poolclass=StaticPool, json_serializer=_json_text,
                               connect_args={"check_same_thread": False}, paramstyle=SQLITE_PARAMSTYLE)
    else:
        if not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, echo=echo, json_serializer=_json_text, paramstyle=SQLITE_PARAMSTYLE)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # The sqlite3 module's own transaction handling skips BEGIN before
    # SELECT and DDL; SQLAlchemy emits BEGIN itself instead (_sqlite_begin).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit is on disk before the play it stores is shown to anyone,
        # even if the machine loses power (NORMAL could lose the last commits).
        cursor.execute("PRAGMA synchronous = FULL")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    # IMMEDIATE takes the write lock at once, so a unit of work that reads
    # before writing waits for other writers (busy timeout) instead of failing.
    mode = connection.get_execution_options().get(BEGIN_MODE, "DEFERRED")
    if mode not in ("DEFERRED", "IMMEDIATE"):
        raise ValueError(f"{BEGIN_MODE} must be DEFERRED or IMMEDIATE, not {mode!r}")
    connection.exec_driver_sql(f"BEGIN {mode}")
