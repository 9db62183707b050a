"""``cucumber db upgrade`` and ``cucumber import FILE``: the commands that write to the database.

Each takes its database URL and output streams and returns the exit status.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, TextIO

from app.storage.errors import RecordRejected, StorageError
from app.storage.store import Storage
from app.tools.verify import UnreadableRecord, failure, read_record


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
    """Check the record in file ``path`` (``-``: ``stdin``) and store it as a finished match.

    The file is read as ``cucumber verify`` reads it (:func:`read_record`).
    Migrations are applied first, so a new database works at once. Prints
    the new match id on ``out`` and returns 0; a match stored already (the
    same record) is not stored again: its id is printed, with a word on
    ``err``, and 0 returned. If the file is not a
    finished, valid record that may be stored (see ``Storage.import_record``),
    prints the JSON line verify prints for such a file on ``out`` and a
    message on ``err``, and returns 1; if the database fails, a message on
    ``err`` and returns 1.
    """
    try:
        record = read_record(path, stdin)
    except UnreadableRecord as error:
        return _refuse(path, failure(error.reason), error.reason, out=out, err=err)
    try:
        with Storage(database_url) as storage:
            storage.upgrade()
            match_id, new = storage.import_record(record, imported_at=datetime.now(UTC))
    except RecordRejected as error:
        return _refuse(path, error.result, error.message, out=out, err=err)
    except StorageError as error:
        print(f"cucumber import: {error}", file=err)
        return 1
    print(match_id, file=out)
    if not new:
        print(f"cucumber import: {path}: this match is stored already (as {match_id}); nothing was added", file=err)
    return 0


def _refuse(path: str, result: dict[str, Any], message: str, *, out: TextIO, err: TextIO) -> int:
    print(json.dumps(result), file=out, flush=True)
    print(f"cucumber import: {path}: {message}", file=err)
    return 1
