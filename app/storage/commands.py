"""The storage subcommands of ``cucumber``: ``db upgrade`` and ``import FILE``.

Each takes its database URL and output streams and returns the exit status.
"""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import TextIO

from app.storage.errors import RecordRejected, StorageError
from app.storage.store import Storage


def db_upgrade(*, database_url: str, out: TextIO, err: TextIO) -> int:
    """Apply every pending migration to ``database_url``; print the outcome.

    Returns 0 on success, 1 (with the reason on ``err``) if the database fails.
    """
    try:
        with Storage(database_url) as storage:
            storage.upgrade()
            url = storage.url
    except StorageError as error:
        print(f"cucumber db upgrade: {error}", file=err)
        return 1
    print(f"database is up to date: {url}", file=out)
    return 0


def import_file(path: str, *, database_url: str, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    """Check the record in file ``path`` (``-``: standard input) and store it as a finished match.

    Migrations are applied first, so a new database works at once. Prints
    the new match id on ``out`` and returns 0. If the file is not a
    finished, valid record, prints what ``cucumber verify`` prints for it
    (one JSON line on ``out``), a message on ``err``, and returns 1; if the
    database fails, a message on ``err`` and returns 1.
    """
    from app.cli import verify_files  # here, as app.cli imports this module

    text = ""
    try:
        text = stdin.read() if path == "-" else _read_text(path)
        record = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        # Not even JSON: report it exactly as verify does for this file.
        report = io.StringIO()
        verify_files([path], report, io.StringIO(), io.StringIO(text))
        print(report.getvalue(), end="", file=out, flush=True)
        print(f"cucumber import: {path}: {json.loads(report.getvalue())['reason']}", file=err)
        return 1
    try:
        with Storage(database_url) as storage:
            storage.upgrade()
            match_id = storage.import_record(record, imported_at=datetime.now(UTC))
    except RecordRejected as error:
        print(json.dumps(error.result), file=out, flush=True)
        print(f"cucumber import: {path}: {error.message}", file=err)
        return 1
    except StorageError as error:
        print(f"cucumber import: {error}", file=err)
        return 1
    print(match_id, file=out)
    return 0


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()

