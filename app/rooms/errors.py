"""Why a room refuses something: one stable code per reason, and the error that carries it.

The codes are the protocol's ``error.code`` values (docs/protocol.md lists
every one); the engine's refusals (``GameError.code``) are among them.
"""

from __future__ import annotations

from enum import StrEnum

from app.wording.errors import EngineProblem, Problem


class ErrorCode(StrEnum):
    """Every ``error.code`` a client can receive, HTTP or WebSocket."""

    # The message itself
    MALFORMED = "malformed"
    TOO_LARGE = "too_large"
    BAD_REQUEST = "bad_request"
    UNKNOWN_TYPE = "unknown_type"
    # The address (HTTP)
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    # Who is asking, and where
    UNKNOWN_TOKEN = "unknown_token"
    NO_SUCH_ROOM = "no_such_room"
    NO_SUCH_MATCH = "no_such_match"
    ROOM_CROWDED = "room_crowded"
    SERVER_FULL = "server_full"
    SERVER_STOPPING = "server_stopping"
    ROOM_MOVING = "room_moving"
    RATE_LIMITED = "rate_limited"
    CROSS_SITE = "cross_site"
    NOT_SEATED = "not_seated"
    NOT_HOST = "not_host"
    # Seats and the lobby
    ROOM_FULL = "room_full"
    NAME_TAKEN = "name_taken"
    INVALID_NAME = "invalid_name"
    INVALID_RULES = "invalid_rules"
    NOT_ENOUGH_PLAYERS = "not_enough_players"
    PLAYER_PRESENT = "player_present"
    SEAT_CHANGED = "seat_changed"
    SEAT_MOVED = "seat_moved"
    ALREADY_SEATED = "already_seated"
    INVALID_LINK = "invalid_link"
    # The match (most come from the engine's refusals)
    MATCH_NOT_STARTED = "match_not_started"
    MATCH_STARTED = "match_started"
    MATCH_OVER = "match_over"
    DEAL_NOT_STARTED = "deal_not_started"
    DEAL_IN_PROGRESS = "deal_in_progress"
    INVALID_CARD = "invalid_card"
    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    ILLEGAL_PLAY = "illegal_play"
    STALE_PLAY = "stale_play"
    # Stepping away from a seat by choice
    ALREADY_AWAY = "already_away"
    NOT_AWAY = "not_away"
    PLAYER_ELIMINATED = "player_eliminated"
    # Table chat
    NOT_IN_ROOM = "not_in_room"
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    MUTED = "muted"
    SPECTATOR_CHAT_OFF = "spectator_chat_off"
    UNKNOWN_SENDER = "unknown_sender"
    # Push notifications and a table's chat webhook
    PUSH_OFF = "push_off"
    PUSH_ENDPOINT_REFUSED = "push_endpoint_refused"
    WEBHOOK_REFUSED = "webhook_refused"
    # The server
    STORAGE_UNAVAILABLE = "storage_unavailable"
    SERVER_ERROR = "server_error"


STOPPING_RETRY_SECONDS = 2
"""The ``Retry-After`` of a request refused because the server is stopping (``server_stopping``): a restart
takes about this long, and in a cluster the other processes serve it at once."""

Words = Problem | EngineProblem
"""Why, to be put in words when someone reads it (``str()``), in the language they read."""


class RoomError(Exception):
    """Something the server refuses: ``code`` is stable, ``words`` say why for people.

    ``message`` is ``words`` in the language being spoken where it is read
    (a page's, a connection's), not where the error was raised. ``status``
    is the HTTP status an HTTP route answers with (409 by default: the
    request does not fit the room's state); ``retry_after``, if waiting helps, the seconds to wait
    (its ``Retry-After`` header).
    """

    def __init__(self, code: ErrorCode, words: Words, status: int = 409, retry_after: int | None = None) -> None:
        super().__init__(words)
        self.code = code
        self.words = words
        self.status = status
        self.retry_after = retry_after

    @property
    def message(self) -> str:
        """Why, in the language being spoken now."""
        return str(self.words)
