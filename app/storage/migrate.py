"""Alembic migrations run from code, whatever the current directory.

The server upgrades its database at start-up with :func:`upgrade`;
``alembic.ini`` at the repository root serves the ``alembic`` command.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

import app


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


def upgrade(engine: Engine, *, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (default: the newest) in one transaction.

    Raises SQLAlchemy's errors if the database fails and Alembic's
    ``CommandError`` for an unknown revision.
    """
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, *, revision: str) -> None:
    """Undo the migrations down to ``revision`` (``"base"``: all of them), in one transaction."""
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or ``None`` before the first migration."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    """The newest revision among the migrations."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
