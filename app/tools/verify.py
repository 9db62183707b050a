"""``cucumber verify``, and the one reader of record files every command uses.

A record file is UTF-8 JSON; a byte-order mark some editors write is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from app.game.record import NotARecord, check_record


class UnreadableRecord(Exception):
    """A record file that cannot be read, is not UTF-8 text or is not JSON.

    ``reason`` says which, in the words ``cucumber verify`` prints.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_record(path: str, stdin: TextIO) -> Any:
    """The parsed JSON of the record file at ``path`` (``-``: read ``stdin``).

    A leading byte-order mark is not part of the JSON and is dropped. Returns
    whatever the JSON holds (checking it is a record is the caller's job).
    Raises :class:`UnreadableRecord` for a file that cannot be read, is not
    UTF-8 or is not JSON (also JSON nested too deeply, or with a number too
    long, to parse).
    """
    try:
        if path == "-":
            # Its bytes, decoded here as a file's are: a text stream may be set to let bad bytes through.
            raw = getattr(stdin, "buffer", None)
            text = raw.read().decode("utf-8") if raw is not None else stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        return json.loads(text.removeprefix("\ufeff"))
    except (OSError, ValueError, RecursionError) as error:  # ValueError: bad UTF-8 and JSON's errors too
        raise UnreadableRecord(_reason(error)) from None


def failure(reason: str) -> dict[str, Any]:
    """What ``cucumber verify`` prints for a file it could not check: ``ok`` false, no position, ``reason``."""
    return {"ok": False, "deal": None, "play": None, "seat": None, "card": None, "reason": reason}


def verify_files(paths: Sequence[str], *, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    """Check each record file and print one JSON object per line on ``out``, in input order.

    ``-`` reads ``stdin``. A valid record gets ``app.game.record.outcome``, a
    faulty one its first fault (``RecordFault.to_dict``). A file that cannot
    be read, is not JSON or is not a record gets :func:`failure` and a
    one-line message on ``err``; the other files are still checked. Returns
    0 when every record is valid, 1 otherwise.
    """
    status = 0
    for path in paths:
        try:
            result = check_record(read_record(path, stdin))
        except (UnreadableRecord, NotARecord) as error:
            reason = error.reason if isinstance(error, UnreadableRecord) else f"not a cucumber-match/1 record: {error}"
            print(f"cucumber verify: {path}: {reason}", file=err)
            result = failure(reason)
        if not result["ok"]:
            status = 1
        print(json.dumps(result), file=out, flush=True)
    return status


def _reason(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at line {error.lineno} column {error.colno})"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(error, OSError):
        return f"cannot read the file ({error.strerror or error})"
    if isinstance(error, ValueError):  # Python reads no whole number of more than 4,300 digits
        return "not JSON (a number too long to read)"
    return "not JSON (nested too deeply)"
