"""Client messages: how a frame is read, checked and turned into a room action.

Both the JSON protocol and the page's WebSocket come through here, so every
client is held to the same limits and gets the same error codes.
"""

from __future__ import annotations

import json
from typing import Any

from app.game.errors import InvalidRules
from app.game.rules import Rules, preset
from app.rooms.connection import Connection
from app.rooms.room import Room, RoomError


class ProtocolError(Exception):
    """A frame that cannot be an action: too large, not JSON, not an object, unknown type."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_message(frame: str | bytes | None, limit: int) -> dict[str, Any]:
    """Read one client frame as a JSON object with a string ``type``.

    ``limit`` is the largest accepted frame in bytes. Raises
    :class:`ProtocolError` with code ``too_large``, ``malformed`` or
    ``bad_request``.
    """
    if frame is None:
        raise ProtocolError("malformed", "empty message")
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ProtocolError("too_large", f"a message may have at most {limit} bytes")
    if isinstance(frame, bytes):
        raise ProtocolError("malformed", "messages must be JSON text, not binary")
    try:
        message = json.loads(frame)
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolError("malformed", "a message must be a JSON object") from None
    if not isinstance(message, dict):
        raise ProtocolError("malformed", "a message must be a JSON object")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_request", 'a message needs a "type"')
    return message


def rules_from_message(message: dict[str, Any]) -> Rules:
    """The rules a message asks for: ``preset`` (a name) and/or ``rules`` (options over it).

    Raises :class:`RoomError` (``invalid_rules``) naming the bad option.
    """
    try:
        base = preset(message["preset"]) if message.get("preset") is not None else Rules()
        options = message.get("rules")
        if options is None:
            return base
        if not isinstance(options, dict):
            raise InvalidRules("rules must be an object of options")
        return Rules.from_dict({**base.to_dict(), **options})
    except InvalidRules as error:
        raise RoomError("invalid_rules", str(error), status=422) from None
    except TypeError as error:
        raise RoomError("invalid_rules", f"bad rules: {error}", status=422) from None


async def dispatch(room: Room, conn: Connection, message: dict[str, Any]) -> None:
    """Carry out one checked message from ``conn`` on ``room``.

    Raises :class:`RoomError` when the room refuses it and
    :class:`ProtocolError` for an unknown ``type``.
    """
    kind = message["type"]
    who = conn.token_hash
    if kind == "play":
        await room.play(who, message.get("card"), deal=message.get("deal"), played=message.get("played"))
    elif kind == "start":
        await room.start(who)
    elif kind == "set_rules":
        await room.set_rules(who, rules_from_message(message))
    elif kind == "remove":
        await room.remove_seat(who, message.get("seat"))
    elif kind == "leave":
        await room.leave(who)
    elif kind == "add_bot":
        await room.add_bot(who, message.get("strength", "normal"))
    elif kind == "hand_to_bot":
        await room.hand_to_bot(who, message.get("seat"), message.get("strength", "normal"))
    elif kind == "set_clock":
        await room.set_clock(who, message.get("seconds"))
    elif kind == "sync":
        room.send_state(conn)
    elif kind == "hello":
        raise ProtocolError("bad_request", "already greeted")
    else:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}")
