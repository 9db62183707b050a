"""The JSON protocol's messages, both ways (docs/protocol.md).

In: every client frame is read once by :func:`parse_message` into one of the
typed messages of :data:`ClientMessage` (a discriminated union on ``type``);
a frame that is not one gets :class:`ProtocolError` with a stable code.
Out: :func:`state_message`, :func:`error_message` and :func:`link_message`
are the frames a JSON client receives, and :class:`JsonRenderer` sends them
to a connection. The
table page's socket is read through here too, so every client is held to the
same limits and gets the same error codes.
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal, cast, get_args

import orjson
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
from app.game.errors import InvalidRules
from app.game.rules import Rules, preset
from app.game.score_sheet import DealScore
from app.game.views import HandCard, TrickCard
from app.identity import is_player_id
from app.names import form_number
from app.rooms.chat import REACTION_CODES, ChatLine, ChatStatus
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Target
from app.rooms.pace import Pace, QuietHours, pace_from, quiet_hours_from
from app.rooms.schedule import CLOCK_RANGE
from app.rooms.seat_links import Link
from app.rooms.views import RoomView, Viewer
from app.wording import unplayable
from app.wording.errors import EngineProblem, Problem, problem
from app.wording.language import language


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


# ---------------------------------------------------------------------- server → client


def utc_text(moment: datetime) -> str:
    """An aware time as the protocol writes it: UTC, ISO 8601 to the second, with ``Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _trick_json(trick: tuple[TrickCard, ...]) -> list[dict[str, Any]]:
    return [{"seat": play.seat, "card": play.card.code} for play in trick]


def state_json(view: RoomView) -> dict[str, Any]:
    """The ``state`` object for a view (docs/protocol.md, "The state object")."""
    return {**public_state_json(view), "you": you_json(view)}


def public_state_json(view: RoomView, *, last_deal: Any = None) -> dict[str, Any]:
    """The ``state`` object without ``you``: the same for every viewer of one version.

    ``last_deal`` is :func:`last_deal_json` of the view where the caller has it already (as it is, or as
    JSON text in an ``orjson.Fragment``).
    """
    return {**_table_json(view, last_deal=last_deal), "score_sheet": score_sheet_json(view.score_sheet)}


def _table_json(view: RoomView, *, last_deal: Any = None) -> dict[str, Any]:
    """:func:`public_state_json` without its ``score_sheet``."""
    match = view.match
    return {
        "code": view.code,
        "phase": view.phase,
        "rules": dict(_options(view.rules)),
        "rules_text": view.rules_text,
        "preset": view.preset,
        "host": view.host_seat,
        "spectators": view.spectators,
        "seats": [
            {"seat": seat.seat, "player": seat.player, "name": seat.name, "bot": seat.bot, "connected": seat.connected,
             "away": seat.away, "stepped_away": seat.stepped_away, "score": seat.score, "lives": seat.lives,
             "eliminated": seat.eliminated, "dealer": seat.is_dealer, "turn": seat.is_turn,
             "cards_left": seat.cards_left, "played_for": seat.played_for,
             "played": [card.code for card in seat.played]}
            for seat in view.seats
        ],
        "deal": match.deal_number if match else 0,
        "trick_number": match.trick_number if match else 0,
        "tricks_per_deal": view.rules.hand_size,
        "dealer": match.dealer if match else None,
        "turn": view.turn,
        "turn_seconds": view.turn_seconds,
        "turn_remaining": None if view.turn_remaining is None else round(view.turn_remaining, 1),
        "pace": None if view.pace is None else view.pace.to_json(),
        "deadline": None if view.deadline is None else utc_text(view.deadline),
        "leader": match.leader if match else None,
        "trick": _trick_json(match.trick) if match else [],
        "previous_trick": _trick_json(match.previous_trick) if match else [],
        "last_deal": last_deal_json(view) if last_deal is None else last_deal,
        "winners": list(match.winners) if match else [],
        "match_id": view.match_id,
        "standings": [{"place": line.place, "seat": line.seat, "name": line.name, "score": line.score}
                      for line in view.standings],
    }


def last_deal_json(view: RoomView) -> dict[str, Any] | None:
    """The state's ``last_deal``: how the last completed deal ended, in facts and in words (``None``
    before one has)."""
    summary = view.summary
    if summary is None:
        return None
    return {
        "deal": summary.deal,
        "trick_winner": summary.trick_winner,
        "card": summary.card.code,
        "penalties": [{"seat": s, "points": p, "card": c.code, "total": t} for s, p, c, t in summary.penalties],
        "lives_lost": [{"seat": s, "lives": left, "total": t} for s, left, t in summary.lives_lost],
        "eliminated": [{"seat": s, "total": t} for s, t in summary.eliminated],
        "reinstated": [{"seat": s, "total": t} for s, t in summary.reinstated],
        "winners": list(summary.winners),
        "text": view.summary_text,
    }


def score_sheet_json(sheet: tuple[DealScore, ...]) -> list[dict[str, Any]]:
    """The state's ``score_sheet``: every completed deal with each seat's penalty, total, lives, whether it
    lost a life and whether it is out, and the deal's last trick (docs/protocol.md, "The state object")."""
    return [{
        "deal": line.number,
        "dealer": line.dealer,
        "trick_winner": line.trick_winner,
        "last_trick": [{"seat": seat, "card": card.code} for seat, card in line.last_trick],
        "seats": [{"seat": seat, "penalty": line.penalties[seat], "total": line.totals[seat],
                   "lives": line.lives[seat], "life_lost": seat in line.lives_lost,
                   "eliminated": line.lives[seat] == 0} for seat in range(len(line.totals))],
    } for line in sheet]


@functools.lru_cache(maxsize=512)
def _options(rules: Rules) -> dict[str, Any]:
    # Rules.to_dict copies deeply, and every state sent holds the rules: done once per rules (copy before changing).
    return rules.to_dict()


def you_json(view: RoomView) -> dict[str, Any] | None:
    """The state's ``you``: the viewer's seat and player id, whether they host, their hand and what they may play."""
    player = None if view.you_seat is None else view.seats[view.you_seat].player
    return _you(view.you_seat, view.you_are_host, player, view.hand, view.webhook)


def _you(seat: int | None, host: bool, player: str | None, hand: tuple[HandCard, ...],
         webhook: str | None = None) -> dict[str, Any] | None:
    if seat is None and not host:
        return None
    extra = {} if webhook is None else {"webhook": webhook}  # a slow room's chat webhook: its host's alone
    codes = [held.card.code for held in hand]
    reasons = {}
    said, words = None, ""
    for code, held in zip(codes, hand, strict=True):
        if held.reason is not None:
            if held.reason is not said:  # a hand waiting for its turn gives every card one refusal: said once
                said, words = held.reason, unplayable(held.reason)
            reasons[code] = words
    return {
        "seat": seat,
        "player": player,
        "host": host,
        "hand": codes,
        "legal": [code for code, held in zip(codes, hand, strict=True) if held.legal],
        "reasons": reasons,
        **extra,
    }


def _you_text(viewer: Viewer, kept: Any) -> str:
    """The JSON of the state's ``you`` for ``viewer``, in the language being spoken.

    A hand waiting for its turn or for the next deal says the same from one version to the next while it
    holds the same cards (its refusal names nobody: :data:`~app.wording.refusals.WAITING`): its JSON is kept
    in ``kept`` (a :class:`~app.rooms.fanout.Kept` or a dict) under the viewer's seat, host role and player
    and the hand at rest (:attr:`~app.rooms.views.Viewer.at_rest`), and found again without the hand's
    view. Only a viewer of that very seat and hand asks for that key.
    """
    rest = viewer.at_rest
    hook = viewer.table.webhook[0] if viewer.host and viewer.table.webhook is not None else None
    if rest is None:
        return _compact(_you(viewer.seat, viewer.host, viewer.player, viewer.hand, hook))
    key = ("json", "you", language(), viewer.seat, viewer.host, viewer.player, rest, hook)
    text: str | None = kept.get(key)
    if text is None:
        text = kept[key] = _compact(_you(viewer.seat, viewer.host, viewer.player, viewer.hand, hook))
    return text


def _compact(value: Any) -> str:
    """``value`` as compact JSON text in ASCII: the text ``json.dumps`` gives with ``separators=(",", ":")``
    (every character past ASCII written as a ``\\u`` escape; only DEL, U+007F, may stay as it is).

    orjson writes a state about nine times faster than the standard library; the few characters past
    ASCII (a suit's sign in a deal's summary, a name) are then escaped (:func:`_ascii`). A text orjson
    refuses (a lone surrogate, which only a client's own words could bring) is left to the standard library.
    """
    try:
        text = orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return _ascii(text)


def _ascii(text: str) -> str:
    """JSON ``text`` with every character past ASCII written as the standard library's ``\\u`` escape.

    A frame in ASCII is sent as it is. One holding a single character past ASCII would be kept in two or
    four bytes a character, and turned into UTF-8 again for every socket it is sent to.
    """
    return text if text.isascii() else text.encode("ascii", _ESCAPE_PAST_ASCII).decode("ascii")


def _escape_past_ascii(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of :func:`_ascii`: the JSON escapes of the characters ``error`` is about."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(_escaped(character) for character in error.object[error.start:error.end]), error.end


@functools.lru_cache(maxsize=1024)
def _escaped(character: str) -> str:
    """One character's JSON escape as the standard library writes it (a pair of surrogates past U+FFFF)."""
    return json.dumps(character)[1:-1]


_ESCAPE_PAST_ASCII = "cucumber-json-escape"
codecs.register_error(_ESCAPE_PAST_ASCII, _escape_past_ascii)


def state_message(view: RoomView) -> str:
    """The ``state`` frame for a view: ``{"type": "state", "version", "state"}``."""
    return _compact({"type": "state", "version": view.version, "state": state_json(view)})


def error_message(code: str, message: str) -> str:
    """The ``error`` frame: ``{"type": "error", "code", "message"}``."""
    return _compact({"type": "error", "code": code, "message": message})


def chat_json(line: ChatLine) -> dict[str, Any]:
    """A ``chat`` message: ``from`` (the sender's ``id``, ``name``, ``seat``, ``spectator``, ``host``),
    its ``id`` in the room, and ``text`` or ``reaction`` (a code)."""
    sender = line.sender
    said = {"text": line.text} if line.reaction is None else {"reaction": line.reaction}
    return {"type": "chat", "id": line.number, "from": {"id": sender.id, "name": sender.name, "seat": sender.seat,
                                                        "spectator": sender.spectator, "host": sender.host}, **said}


def chat_status_json(status: ChatStatus) -> dict[str, Any]:
    """Who may chat: ``spectator_chat`` (whether spectators may) and ``muted`` (the ids of the senders muted)."""
    return {"spectator_chat": status.spectator_chat, "muted": [sender.id for sender in status.muted]}


def link_message(link: Link, url: str) -> str:
    """The ``link`` frame for a link the connection asked for: what it does (``kind``), to which seat
    (``seat``, ``player``, ``name``), its ``url`` and ``secret``, and ``expires_in`` (seconds)."""
    return _compact({"type": "link", "kind": link.kind, "seat": link.seat, "player": link.player, "name": link.name,
                     "url": url, "secret": link.secret, "expires_in": link.lifetime})


def _state_head(public: RoomView, kept: Any) -> str:
    """The ``state`` frame of ``public`` up to where its score sheet begins: the part every viewer of this
    version who reads its language gets alike.

    The last deal's summary stays as it is for many versions: its JSON is written once and kept in ``kept``
    (a :class:`~app.rooms.fanout.Kept` or a dict) for the versions after (:func:`_last_deal_fragment`).
    """
    state = _table_json(public, last_deal=_last_deal_fragment(kept, public))
    state["you"] = None
    try:
        whole = _ascii(orjson.dumps({"type": "state", "version": public.version, "state": state}).decode())
    except orjson.JSONEncodeError:  # a text orjson refuses: all of it as the standard library writes it
        whole = _compact({"type": "state", "version": public.version, "state": {**_table_json(public),
                                                                               "you": None}})
    return whole[:-len(',"you":null}}')]


class SheetText:
    """The JSON of one score sheet (``sheet``, a room's at one version): whole, or as the deals it adds to an
    earlier sheet a connection was sent (docs/protocol.md, "The score sheet")."""

    __slots__ = ("_added", "_whole", "sheet")

    def __init__(self, sheet: tuple[DealScore, ...]) -> None:
        self.sheet = sheet
        self._whole: str | None = None
        self._added: dict[int, str] = {}

    @property
    def whole(self) -> str:
        """:func:`score_sheet_json` of the sheet as JSON text, written once (its size grows with every deal)."""
        if self._whole is None:
            self._whole = _compact(score_sheet_json(self.sheet))
        return self._whole

    def added_to(self, known: tuple[DealScore, ...]) -> str | None:
        """The JSON list of the deals the sheet adds to ``known`` (``"[]"``: none), when ``known`` is the sheet's
        beginning, its first deals as they are here; ``None`` when it is not (a new match, say)."""
        sheet = self.sheet
        if known is sheet:
            return "[]"
        start = len(known)
        if start > len(sheet) or sheet[:start] != known:
            return None
        text = self._added.get(start)
        if text is None:
            text = self._added[start] = _compact(score_sheet_json(sheet[start:]))
        return text


def _sheet_text(kept: Any, sheet: tuple[DealScore, ...]) -> SheetText:
    """The :class:`SheetText` of ``sheet``, kept in ``kept`` from one version to the next: a room's sheet
    changes once a deal.

    It is found again only for the very sheet it was made from (the entry holds that tuple, whose deals
    never change, so no other sheet can take its place); a new sheet replaces it.
    """
    found: SheetText | None = kept.get(_SHEET_KEY)
    if found is not None and found.sheet is sheet:
        return found
    made = kept[_SHEET_KEY] = SheetText(sheet)
    return made


_SHEET_KEY = ("json", "score_sheet")


def _last_deal_fragment(kept: Any, public: RoomView) -> orjson.Fragment | None:
    """The JSON of :func:`last_deal_json` of ``public`` in the language being spoken, kept in ``kept`` from
    one version to the next: a room's last deal stays the same for a whole deal (``None``: no deal yet).

    It is found again only for the very summary it was made from, told with the same names.
    """
    summary = public.summary
    if summary is None:
        return None
    key = ("json", "last_deal", language())
    names = public.seat_names
    found = kept.get(key)
    if found is not None and found[0] is summary and found[1] == names:
        return cast(orjson.Fragment, found[2])
    made = orjson.Fragment(_compact(last_deal_json(public)))
    kept[key] = (summary, names, made)
    return made


class JsonRenderer:
    """How a JSON-protocol client sees the room: a ``state`` frame per version, its score sheet whole or as
    the deals added since this connection's last state.

    The public part of the frame is encoded once per version and language
    and shared by every viewer who reads it; only ``you`` is encoded per
    viewer. Its texts are in the language being spoken as it renders.
    ``link_url`` writes a seat link's URL (the routes know the server's address).
    One renderer per socket: it remembers the score sheet it last sent.
    """

    kind = "json"
    __slots__ = ("link_url", "sheet")  # one per socket

    def __init__(self, *, link_url: Callable[[Link], str]) -> None:
        self.link_url = link_url
        self.sheet: tuple[DealScore, ...] | None = None
        """The score sheet this connection holds: the one of the last state it was sent (``None``: none yet)."""

    def render(self, viewer: Viewer, shared: dict[Any, Any]) -> tuple[str, SheetText, str]:
        """The ``state`` frame for ``viewer`` in three pieces, the part shared by all its viewers up to its
        score sheet, the sheet's :class:`SheetText` and ``you``'s JSON; :meth:`frame` joins them into a
        connection's frame.

        Only the viewer's own hand is looked at besides the public view. The whole frame is made only as
        it is queued for a connection, so that a room does not keep a copy of the shared part for each of
        its viewers as long as the version lasts.
        """
        key = (self.kind, language())
        kept = getattr(shared, "kept", shared)
        head = shared.get(key)
        if head is None:
            head = shared[key] = _state_head(viewer.public, kept)
        sheet = shared.get(_SHEET_KEY)
        if sheet is None:
            sheet = shared[_SHEET_KEY] = _sheet_text(kept, viewer.public.score_sheet)
        return head, sheet, _you_text(viewer, kept)

    def frame(self, payload: tuple[str, SheetText, str], *, whole: bool = False) -> str:
        """The ``state`` frame from its rendered pieces: with ``score_sheet`` whole (the text
        :func:`state_message` gives for its view) when ``whole``, in this connection's first state, or when
        the sheet is not the one it was last sent with deals added; else with ``score_sheet_added``, the
        deals added since (most often none)."""
        head, sheet, you = payload
        added = None if whole or self.sheet is None else sheet.added_to(self.sheet)
        self.sheet = sheet.sheet
        if added is None:
            return f'{head},"score_sheet":{sheet.whole},"you":{you}}}}}'
        return f'{head},"score_sheet_added":{added},"you":{you}}}}}'

    def error(self, code: str, message: str) -> str:
        """The ``error`` frame."""
        return error_message(code, message)

    def link(self, link: Link) -> str:
        """The ``link`` frame (:func:`link_message`)."""
        return link_message(link, self.link_url(link))

    def chat(self, line: ChatLine) -> str:
        """The ``chat`` frame of a new line (:func:`chat_json`)."""
        return _compact(chat_json(line))

    def chat_welcome(self, lines: Sequence[ChatLine], status: ChatStatus) -> str:
        """The ``chat_history`` frame: the lines kept (oldest first) as ``messages``, and who may write."""
        return _compact({"type": "chat_history", "messages": [chat_json(line) for line in lines],
                         **chat_status_json(status)})

    def chat_status(self, status: ChatStatus, *, host: bool) -> str:
        """The ``chat_status`` frame (the same for the host and everyone else)."""
        return _compact({"type": "chat_status", **chat_status_json(status)})
