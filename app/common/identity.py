"""Identifiers of rooms, matches and players: how they are made and recognised.

Rooms, storage and the routes all import them from here. A player's secret
token is never stored; only :func:`hash_token` of it is. A player id is
public: it names who sits in a seat, so that an action aimed at a seat can
say whom it meant.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

MATCH_ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
"""Lower-case letters and digits without the look-alikes 0/o, 1/l/i."""
MATCH_ID_LENGTH = 12
MATCH_ID_PATTERN = re.compile(f"[{MATCH_ID_ALPHABET}]{{{MATCH_ID_LENGTH}}}")
"""What a match id looks like; anything else names no match."""

PLAYER_ID_ALPHABET = MATCH_ID_ALPHABET
"""Player ids use the match ids' letters and digits (no 0/o, 1/l/i)."""
PLAYER_ID_LENGTH = 10
PLAYER_ID_PATTERN = re.compile(f"[{PLAYER_ID_ALPHABET}]{{{PLAYER_ID_LENGTH}}}")
"""What a player id looks like; anything else names no player."""

ROOM_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""Upper-case letters and digits without the look-alikes 0/O, 1/I/L."""
ROOM_CODE_LENGTH = 5

TOKEN_HASH_PATTERN = re.compile(r"[0-9a-f]{64}")
"""What :func:`hash_token` returns: 64 lower-case hex digits."""


def new_match_id() -> str:
    """A new random match id: 12 characters of :data:`MATCH_ID_ALPHABET` (about 59 bits).

    URL-safe and easy to read aloud; drawn from the ``secrets`` generator.
    """
    return "".join(secrets.choice(MATCH_ID_ALPHABET) for _ in range(MATCH_ID_LENGTH))


def is_match_id(text: str) -> bool:
    """Whether ``text`` has the form of a match id (it may still name no match)."""
    return MATCH_ID_PATTERN.fullmatch(text) is not None


def new_player_id() -> str:
    """A new random public player id: 10 characters of :data:`PLAYER_ID_ALPHABET` (about 49 bits).

    It names the occupant of a seat in states and in actions aimed at a seat;
    it is not a secret and grants nothing. Drawn from the ``secrets`` generator.
    """
    return "".join(secrets.choice(PLAYER_ID_ALPHABET) for _ in range(PLAYER_ID_LENGTH))


def is_player_id(text: str) -> bool:
    """Whether ``text`` has the form of a player id (it may still name nobody)."""
    return PLAYER_ID_PATTERN.fullmatch(text) is not None


def new_room_code(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """A random room code of 5 unambiguous characters, not in ``taken``."""
    while True:
        code = "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
        if code not in taken:
            return code


def normalise_code(raw: str) -> str:
    """A room code as typed (any case, surrounding spaces) in canonical form."""
    return raw.strip().upper()


def new_token() -> str:
    """A new secret player token: 192 random bits, URL-safe text."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """The hex SHA-256 (64 lower-case hex digits) of a player's secret token, as stored.

    Any text hashes, half of a surrogate pair alone included (as UTF-8 would write it if it could): a token
    no client was given then matches nothing stored, instead of failing.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, token_hash: str) -> bool:
    """Whether ``token`` is the one whose hash is ``token_hash`` (compared in constant time)."""
    return hmac.compare_digest(hash_token(token), token_hash)
