"""Alembic environment: runs the migrations on a given connection or on the configured database.

The database comes from, in order: a connection passed in
``config.attributes["connection"]`` (``app.storage.migrate`` passes one
holding the migration lock), ``-x database_url=URL``, the
``sqlalchemy.url`` option, or the server settings (``DATABASE_URL``).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from app.config.settings import Settings
from app.storage.engine import create_storage_engine
from app.storage.migrate import migration_transaction
from app.storage.models import Base

config = context.config
target_metadata = Base.metadata

if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    """The URL of the database to migrate when no connection was passed in."""
    url = context.get_x_argument(as_dictionary=True).get("database_url") or config.get_main_option("sqlalchemy.url")
    if url:
        return url
    return Settings().database_url


def run_on(connection: Connection) -> None:
    """Run the migrations on ``connection`` in a transaction (the caller's, if one is open)."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite alters tables by copying them; autogenerate should say so.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    """Print the SQL of the migrations instead of running it (``alembic upgrade --sql``)."""
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True,
                      dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Run the migrations on the connection passed in, or in one locked transaction on the configured database.

    The lock (``migration_transaction``) makes a second migration wait for
    the first, then find the database up to date.
    """
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    engine = create_storage_engine(database_url())
    try:
        with migration_transaction(engine) as connection:
            run_on(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
