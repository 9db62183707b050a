"""The JSON protocol's messages in: every client frame, read once (docs/protocol.md, "Messages a client may
send").

:func:`parse_message` reads a frame into one of the typed messages of
:data:`ClientMessage` (a discriminated union on ``type``); a frame that is not
one gets :class:`ProtocolError` with a stable code. The table page's socket is
read through here too, so every client is held to the same limits and gets the
same error codes. :func:`rules_from` reads the rules a client asks for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from app.bots.strength import BotStrength
from app.common.identity import is_player_id
from app.common.names import form_number
from app.game.errors import InvalidRules
from app.game.rules import Rules, preset
from app.rooms.chat import REACTION_CODES
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Target
from app.rooms.pace import Pace, QuietHours, pace_from, quiet_hours_from
from app.rooms.schedule import CLOCK_RANGE
from app.wording.errors import EngineProblem, Problem, problem


class ProtocolError(Exception):
    """A frame that is not a message: too large, not JSON, not an object, unknown type or bad fields.

    As :class:`~app.rooms.errors.RoomError`: a stable ``code``, and ``words``
    said as ``message`` in the language of whoever reads it.
    """

    def __init__(self, code: ErrorCode, words: Problem) -> None:
        super().__init__(words)
        self.code = code
        self.words = words

    @property
    def message(self) -> str:
        """Why, in the language being spoken now."""
        return str(self.words)


# ---------------------------------------------------------------------- client → server


class _Message(BaseModel):
    """A client message; fields a message does not know are ignored (the page sends a few)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    refusals: ClassVar[dict[str, tuple[ErrorCode, Problem]]] = {}
    """For a field whose value is wrong: the error code and message to answer with."""


class Hello(_Message):
    """The first message on the JSON socket: ``token`` for a player, none for a spectator.

    ``lang`` asks for the texts meant for people (error messages, the rules
    and deal sentences, the reasons a card cannot be played) in a language
    (``"da"``, ``"sv-FI"``…); English when absent or not spoken here.
    """

    type: Literal["hello"]
    token: StrictStr | None = None
    lang: StrictStr | None = None


class Play(_Message):
    """Play ``card``, optionally only in the match and at the moment it was chosen for.

    ``match`` is the state's ``match_id``; ``deal`` (from 1) and ``played``
    (cards already played in that deal) the moment. Each is optional.
    """

    type: Literal["play"]
    card: StrictStr
    match: StrictStr | None = None
    deal: StrictInt | None = None
    played: StrictInt | None = None
    refusals = {"card": (ErrorCode.INVALID_CARD, problem("card_code")),
                "match": (ErrorCode.BAD_REQUEST, problem("match_field")),
                "deal": (ErrorCode.BAD_REQUEST, problem("moment_fields")),
                "played": (ErrorCode.BAD_REQUEST, problem("moment_fields"))}

    @property
    def moment(self) -> tuple[int | None, int | None] | None:
        """``(deal, played)`` when the play names its moment, else ``None``."""
        return None if (self.deal, self.played) == (None, None) else (self.deal, self.played)


class Heartbeat(_Message):
    """The page is open and looked at (docs/protocol.md, "Heartbeat"); optional for JSON clients."""

    type: Literal["heartbeat"]


class Start(_Message):
    """The host starts a match (or the next one)."""

    type: Literal["start"]


class SetRules(_Message):
    """The host changes the rules: a ``preset`` name and/or ``rules`` options over it, and the ``pace``
    (``{"turn_hours": H}`` for a slow room, ``null`` for a live one; left out: unchanged)."""

    type: Literal["set_rules"]
    preset: Any = None
    rules: Any = None
    pace: Any = False

    def to_rules(self) -> Rules:
        """The rules asked for; ``invalid_rules`` (422) naming the bad option."""
        return rules_from(self.preset, self.rules)

    def to_pace(self) -> Pace | Literal[False] | None:
        """The pace asked for (``False``: none asked); ``bad_request`` (422) for one not allowed (:func:`pace_from`)."""
        return False if self.pace is False else pace_from(self.pace)


class SetQuietHours(_Message):
    """A seated player's quiet hours in a slow room: ``from`` and ``to`` (``"HH:MM"``) in ``time_zone``;
    ``from`` null clears them."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)
    type: Literal["set_quiet_hours"]
    start: Any = Field(default=None, alias="from")
    end: Any = Field(default=None, alias="to")
    time_zone: Any = None

    def to_quiet_hours(self) -> QuietHours | None:
        """The quiet hours asked for (``None``: none); ``bad_request`` (422) as :func:`quiet_hours_from` says."""
        if self.start is None and self.end is None:
            return None
        return quiet_hours_from(self.start, self.end, self.time_zone)


class SetVacation(_Message):
    """A seated player in a slow room goes on vacation for ``days`` (0 to 14; 0 ends it)."""

    type: Literal["set_vacation"]
    days: Any = None


class SetWebhook(_Message):
    """The host of a slow room sets its chat webhook ``url`` (null or empty: none)."""

    type: Literal["set_webhook"]
    url: Any = None


_STRENGTH_REFUSAL = (ErrorCode.BAD_REQUEST, problem("bot_strength", strengths=", ".join(BotStrength)))


class _AimedAtSeat(_Message):
    """A host's action on one seat, aimed by ``player`` (the state's ``seats[].player``), ``seat`` or both.

    The page always names the player; ``seat`` alone is the older form. A
    message naming neither, or with something else than a player id as
    ``player``, is refused with ``bad_request``.
    """

    seat: StrictInt | None = None
    player: StrictStr | None = None
    refusals = {"seat": (ErrorCode.BAD_REQUEST, problem("no_such_seat")),
                "player": (ErrorCode.BAD_REQUEST, problem("player_field")),
                "": (ErrorCode.BAD_REQUEST, problem("name_the_player"))}

    @field_validator("player")
    @classmethod
    def _player_id(cls, value: str | None) -> str | None:
        if value is not None and not is_player_id(value):
            raise ValueError("not a player id")
        return value

    @model_validator(mode="after")
    def _aimed(self) -> _AimedAtSeat:
        if self.seat is None and self.player is None:
            raise ValueError("no seat named")
        return self

    @property
    def target(self) -> Target:
        """The seat this message aims at."""
        return Target(player=self.player, seat=self.seat)


class AddBot(_Message):
    """The host seats a bot of ``strength``.

    ``seats``, when given, is how many seats the host saw taken: the bot is
    then added only if that is still so (a double click adds one bot, not two).
    """

    type: Literal["add_bot"]
    strength: BotStrength = BotStrength.NORMAL
    seats: int | None = None
    refusals = {"strength": _STRENGTH_REFUSAL,
                "seats": (ErrorCode.BAD_REQUEST, problem("seats_field"))}

    @field_validator("seats", mode="before")
    @classmethod
    def _seats(cls, value: Any) -> int | None:
        value = form_number(value)
        if value in (None, ""):
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError("not a number of seats")
        return value


class HandToBot(_AimedAtSeat):
    """The host hands an away player's seat to a bot of ``strength`` for good."""

    type: Literal["hand_to_bot"]
    strength: BotStrength = BotStrength.NORMAL
    refusals = {**_AimedAtSeat.refusals, "strength": _STRENGTH_REFUSAL}


class Remove(_AimedAtSeat):
    """The host frees a seat."""

    type: Literal["remove"]


class DeviceLink(_Message):
    """A seated player asks for a one-time link to go on playing their seat on another device."""

    type: Literal["device_link"]


class SeatLink(_AimedAtSeat):
    """The host asks for a one-time link that gives an away player's seat to someone new."""

    type: Literal["seat_link"]


class Leave(_Message):
    """A seated player gives up their seat."""

    type: Literal["leave"]


class StepAway(_Message):
    """A seated player hands their seat to the stand-in bot at once, until they come back."""

    type: Literal["step_away"]


class ComeBack(_Message):
    """A player who stepped away takes their seat back from the bot."""

    type: Literal["come_back"]


class SetClock(_Message):
    """The host sets the turn clock: ``seconds`` per turn (5–600), or off (``None``, 0, ``""``, ``"off"``)."""

    type: Literal["set_clock"]
    seconds: int | None = None
    refusals = {"seconds": (ErrorCode.BAD_REQUEST, problem("clock_range", low=CLOCK_RANGE[0], high=CLOCK_RANGE[1]))}

    @field_validator("seconds", mode="before")
    @classmethod
    def _seconds(cls, value: Any) -> int | None:
        value = form_number(value)
        if value in (None, 0, "", "off"):
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not CLOCK_RANGE[0] <= value <= CLOCK_RANGE[1]:
            raise ValueError("out of range")
        return value


class Sync(_Message):
    """Send me the current state again."""

    type: Literal["sync"]


# ---------------------------------------------------------------------- table chat (docs/protocol.md, "Table chat")


class ChatText(_Message):
    """Write ``text`` in the table chat (checked by :func:`app.rooms.chat.clean_text`)."""

    type: Literal["chat"]
    text: StrictStr
    refusals = {"text": (ErrorCode.BAD_REQUEST, problem("chat_text"))}


class React(_Message):
    """Send a quick reaction by its code (one of :data:`app.rooms.chat.REACTION_CODES`)."""

    type: Literal["react"]
    reaction: StrictStr
    refusals = {"reaction": (ErrorCode.BAD_REQUEST, problem("reaction_code", codes=", ".join(REACTION_CODES)))}


class Mute(_Message):
    """The host mutes a sender until a new match starts: ``sender`` is a chat line's ``from.id``."""

    type: Literal["mute"]
    sender: StrictStr
    refusals = {"sender": (ErrorCode.BAD_REQUEST, problem("sender_field"))}

    @field_validator("sender")
    @classmethod
    def _sender_id(cls, value: str) -> str:
        if not is_player_id(value):
            raise ValueError("not a sender id")
        return value


class SpectatorChat(_Message):
    """The host lets spectators chat (``on``) or not, until a new match starts."""

    type: Literal["spectator_chat"]
    on: StrictBool
    refusals = {"on": (ErrorCode.BAD_REQUEST, problem("spectator_switch"))}


ClientMessage = Annotated[
    Hello | Play | Heartbeat | Start | SetRules | AddBot | HandToBot | Remove | DeviceLink | SeatLink | Leave | SetClock
    | Sync | StepAway | ComeBack | ChatText | React | Mute | SpectatorChat | SetQuietHours | SetVacation | SetWebhook,
    Field(discriminator="type"),
]
"""Every message a client may send, told apart by ``type``."""

_MESSAGES: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_BY_TYPE = {model.model_fields["type"].annotation.__args__[0]: model
            for model in get_args(get_args(ClientMessage)[0])}


def parse_message(frame: str | bytes | None, limit: int,
                  adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> ClientMessage:
    """Read one client frame as a typed message.

    ``limit`` is the largest accepted frame in bytes; ``adapt``, if given,
    turns the decoded object into protocol fields first (the page's forms
    send their fields as text). Raises
    :class:`ProtocolError`: ``too_large``, ``malformed`` (binary, not a JSON
    object), ``unknown_type``, or the field's own code (``invalid_card`` for
    a play's card, ``bad_request`` for the rest) for a missing or wrong field.
    """
    data = _json_object(frame, limit)
    if adapt is not None:
        data = adapt(data)
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_REQUEST, problem("needs_type"))
    model = _BY_TYPE.get(kind)
    if model is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, problem("unknown_type", kind=repr(kind[:40])))
    try:
        return _MESSAGES.validate_python(data)
    except ValidationError as error:
        field = next((str(problem["loc"][1]) for problem in error.errors() if len(problem["loc"]) > 1), "")
        code, words = model.refusals.get(field, (ErrorCode.BAD_REQUEST,
                                                 problem("bad_field", field=repr(field), kind=repr(kind))))
        raise ProtocolError(code, words) from None


def _json_object(frame: str | bytes | None, limit: int) -> dict[str, Any]:
    if frame is None:
        raise ProtocolError(ErrorCode.MALFORMED, problem("empty_message"))
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ProtocolError(ErrorCode.TOO_LARGE, problem("too_large", count=limit))
    if isinstance(frame, bytes):
        raise ProtocolError(ErrorCode.MALFORMED, problem("binary_message"))
    try:
        data = json.loads(frame)
    except (ValueError, RecursionError):  # ValueError: JSON's errors, and a number of over 4,300 digits
        raise ProtocolError(ErrorCode.MALFORMED, problem("not_an_object")) from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.MALFORMED, problem("not_an_object"))
    # A JSON escape can name half of a surrogate pair alone ("\ud83d"), which no UTF-8 text may hold:
    # said back to a page, it would end that page's socket. Plain ASCII without escapes holds none.
    if (not frame.isascii() or "\\u" in frame) and _holds_lone_surrogate(data):
        raise ProtocolError(ErrorCode.MALFORMED, problem("lone_surrogate"))
    return data


_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_lone_surrogate(value: Any) -> bool:
    """Whether ``value`` (decoded JSON) holds a text, key or value, with a surrogate code point (U+D800–U+DFFF):
    what a JSON escape of half a pair decodes to (a whole pair decodes to the character it stands for).

    Walks without recursing: a small frame may nest arrays nearly as deep as the JSON parser allows.
    """
    waiting = [value]
    while waiting:
        value = waiting.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value) is not None:
                return True
        elif isinstance(value, dict):
            waiting += value.keys()
            waiting += value.values()
        elif isinstance(value, list):
            waiting += value
    return False


def rules_from(preset_name: Any, options: Any) -> Rules:
    """The rules a client asks for: ``preset_name`` (``None``: the house rules) with ``options`` over it.

    Raises :class:`RoomError` (``invalid_rules``, 422) naming the bad option.
    """
    try:
        base = preset(preset_name) if preset_name is not None else Rules()
        if options is None:
            return base
        if not isinstance(options, dict):
            raise InvalidRules("rules must be an object of options")
        return Rules.from_dict({**base.to_dict(), **{name: _whole(value) for name, value in options.items()}})
    except InvalidRules as error:
        raise RoomError(ErrorCode.INVALID_RULES, EngineProblem(error), status=422) from None
    except TypeError as error:
        raise RoomError(ErrorCode.INVALID_RULES, problem("bad_rules", detail=str(error)), status=422) from None


def _whole(value: Any) -> Any:
    """A JSON number with no fraction (``7.0``) as the whole number it is (``7``), as JSON does not tell
    them apart; any other value as it came (for the rules to check)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
