"""Player names and room codes: what is accepted and how codes are drawn.

Names are 1–20 visible characters after trimming, unique in a room without
regard to case. Room codes avoid characters that look alike (0/O, 1/I/L).
"""

from __future__ import annotations

import secrets
import unicodedata

NAME_MAX = 20
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 5
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


class InvalidName(ValueError):
    """A name that is empty, too long or contains invisible or control characters."""

    code = "invalid_name"


def clean_name(raw: object) -> str:
    """The name as shown: NFC-normalised, trimmed, inner white space collapsed.

    Raises :class:`InvalidName` unless the result has 1 to 20 characters, all
    of them visible (letters, marks, numbers, punctuation, symbols or single
    spaces between words).
    """
    if not isinstance(raw, str):
        raise InvalidName("a name must be text")
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise InvalidName("enter a name")
    if len(name) > NAME_MAX:
        raise InvalidName(f"a name has at most {NAME_MAX} characters")
    if any(unicodedata.category(char) in _INVISIBLE for char in name):
        raise InvalidName("a name may only contain visible characters")
    return name


def same_name(first: str, second: str) -> bool:
    """Whether two cleaned names count as the same (case-insensitive)."""
    return first.casefold() == second.casefold()


def new_room_code(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """A random room code of 5 unambiguous characters not in ``taken``."""
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code


def normalise_code(raw: str) -> str:
    """A room code as typed (any case, surrounding spaces) in canonical form."""
    return raw.strip().upper()
