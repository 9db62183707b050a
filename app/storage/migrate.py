"""Alembic migrations run from code, whatever the current directory, one process at a time.

The server upgrades its database at start-up with :func:`upgrade`;
``alembic.ini`` at the repository root serves the ``alembic`` command.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import OperationalError

import app
from app.storage.engine import BEGIN_MODE, SQLITE_BUSY_TIMEOUT_MS

MIGRATION_LOCK_KEY = int.from_bytes(b"cucumber", "big")
"""The key of the PostgreSQL advisory lock migrations hold: a fixed bigint, "cucumber" in ASCII."""


def migrations_folder() -> Path:
    """The folder holding ``env.py`` and ``versions/``.

    It is the ``migrations`` package installed beside the ``app`` package
    (in a source checkout, the repository root). Raises ``FileNotFoundError``
    if it is missing.
    """
    folder = Path(app.__file__).resolve().parent.parent / "migrations"
    if not (folder / "env.py").is_file():
        raise FileNotFoundError(f"the migrations folder is missing: {folder}")
    return folder


def alembic_config() -> Config:
    """An Alembic configuration built in code, pointing at :func:`migrations_folder`.

    ``env.py`` runs on the connection in ``config.attributes["connection"]``
    when there is one (see :func:`upgrade`); otherwise it connects to the
    configured database (``-x database_url=…``, ``sqlalchemy.url`` or the
    settings).
    """
    config = Config()
    config.set_main_option("script_location", str(migrations_folder()))
    return config


MIGRATION_WAIT_MS = 120_000
"""How long a SQLite migration waits for others' migrations to finish, in milliseconds."""


@contextmanager
def migration_transaction(engine: Engine) -> Iterator[Connection]:
    """A connection to ``engine``'s database in a transaction that only one migration at a time may hold.

    Whoever comes second waits until the first commits or rolls back, then
    reads the revision the first left, so two servers or ``cucumber db
    upgrade`` runs starting at once on a new database both succeed.
    PostgreSQL: a transaction-level advisory lock (:data:`MIGRATION_LOCK_KEY`),
    released with the transaction. SQLite: the transaction begins
    ``IMMEDIATE``, taking the database's write lock (others wait for the
    busy timeout). Commits when the block ends, rolls back if it raises;
    raises SQLAlchemy's errors if the database fails.
    """
    with engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}).connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Others' migrations run one after another: wait for all of them, not for one write.
            # (Straight to the driver: a statement through SQLAlchemy would begin the transaction.)
            _driver_pragma(connection, f"busy_timeout = {MIGRATION_WAIT_MS}")
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
                yield connection
        finally:
            if sqlite:
                _driver_pragma(connection, f"busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")


def _driver_pragma(connection: Connection, pragma: str) -> None:
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(f"PRAGMA {pragma}")
    finally:
        cursor.close()


def upgrade(engine: Engine, *, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (default: the newest) in one :func:`migration_transaction`.

    Raises SQLAlchemy's errors if the database fails and Alembic's
    ``CommandError`` for an unknown revision.
    """
    _run(command.upgrade, engine, revision)


def downgrade(engine: Engine, *, revision: str) -> None:
    """Undo the migrations down to ``revision`` (``"base"``: all of them), in one :func:`migration_transaction`.

    Raises as :func:`upgrade` does.
    """
    _run(command.downgrade, engine, revision)


def _run(step: Callable[[Config, str], None], engine: Engine, revision: str) -> None:
    """Run ``step`` in a :func:`migration_transaction`; on SQLite, again (within :data:`MIGRATION_WAIT_MS`)
    when the database said it was locked without waiting for its busy timeout.

    SQLite answers "database is locked" at once in a few cases its busy timeout does not cover, such as
    a new database whose write-ahead log another process is setting up (seen with four processes
    migrating a new file at once on a loaded machine). The failed attempt was rolled back whole, and the
    next one finds the revision the others left, so trying again is safe.
    """
    deadline = time.monotonic() + MIGRATION_WAIT_MS / 1000
    pause = 0.05
    while True:
        try:
            with migration_transaction(engine) as connection:
                config = alembic_config()
                config.attributes["connection"] = connection
                step(config, revision)
            return
        except OperationalError as error:
            if engine.dialect.name != "sqlite" or "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or ``None`` before the first migration."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    """The newest revision among the migrations."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
