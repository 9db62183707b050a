"""Errors of storage: the database failed, or a record was refused for import.

Every storage call raises :class:`StorageError` for any database failure.
"""

from __future__ import annotations

from typing import Any


class StorageError(Exception):
    """A storage call failed; nothing of that call was committed.

    The database may be down, refuse the write (a duplicate id, a play out of
    order, a value no database here may hold) or hold no tables yet
    (migrations not applied). The message says
    what was being done and why it failed; the SQLAlchemy error, if any, is
    the ``__cause__``. Calls may be retried once the database is back.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def describe(error: BaseException) -> str:
    """What went wrong, in one line for a :class:`StorageError`'s message: ``"OperationalError: database is locked"``.

    Names the driver's error (SQLAlchemy's ``orig``) when there is one, else ``error`` itself, with the
    first line of its text.
    """
    cause = getattr(error, "orig", None) or error
    lines = str(cause).strip().splitlines()
    text = lines[0] if lines else ""
    return f"{type(cause).__name__}: {text}" if text else type(cause).__name__


class RoomCodeTaken(StorageError):
    """A new room's code belongs to a room stored already (open or closed): the new room must take
    another code, never that row."""


class OwnershipLost(StorageError):
    """A write of a room named an epoch that is no longer the room's: another process has taken the room
    since (or it is gone). Nothing of that write was stored; the process must forget the room.

    ``room`` is the room's code.
    """

    def __init__(self, message: str, *, room: str) -> None:
        super().__init__(message)
        self.room = room


class RecordRejected(Exception):
    """A match record cannot be imported: it is not a record, is faulty or is unfinished.

    ``result`` is what ``cucumber verify`` prints for that record (a JSON-ready
    dict): ``{"ok": false, "deal", "play", "seat", "card", "reason"}`` for a
    fault or a non-record, or the outcome with ``"finished": false`` for an
    unfinished match. ``message`` says the same in words.
    """

    def __init__(self, message: str, result: dict[str, Any]) -> None:
        super().__init__(message)
        self.message = message
        self.result = result
