"""Every refusal has one stable code, and the protocol document names each one."""

from __future__ import annotations

import re
from pathlib import Path

from app.game import errors as engine_errors
from app.rooms.errors import ErrorCode

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_the_protocol_document_lists_every_error_code():
    documented = set(re.findall(r"`([a-z_]+)`", PROTOCOL.read_text(encoding="utf-8")))
    missing = sorted(code.value for code in ErrorCode if code.value not in documented)
    assert missing == []


def test_every_refusal_of_the_engine_has_a_code_of_the_protocol():
    codes = {sub.code for sub in _subclasses(engine_errors.GameError)}
    internal = {"invalid_match", "invalid_deal", "illegal_move", "record_fault", "not_a_record"}
    assert codes - internal <= {code.value for code in ErrorCode}
