"""The JSON API for rooms: create one, take a seat, read the public state."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, WithJsonSchema

from app.api.answers import POSTED, ROOM, refusals
from app.api.deps import RegistryDep, SettingsDep, limited, public_base
from app.api.routing import get_and_head
from app.api.seat_cookies import set_seat_cookie
from app.common.names import NAME_MAX
from app.game.rules import CHOICE, NUMBER, OPTIONS, PRESETS, RuleOption
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.frames import state_json
from app.rooms.messages import rules_from
from app.rooms.pace import TURN_HOURS, pace_from
from app.wording.errors import problem

router = APIRouter(prefix="/api")

PLAYER_NAME = "player-name"
"""The OpenAPI ``format`` of a player's name: what :func:`app.common.names.clean_name` accepts."""


def option_schema(option: RuleOption) -> dict[str, Any]:
    """The JSON schema of the values rules option ``option`` takes (docs/rules.md §3)."""
    words = {"type": "string", "enum": list(option.choices)}
    if option.kind == CHOICE:
        return words
    numbers = {"type": "integer", "minimum": option.low, "maximum": option.high}
    return numbers if option.kind == NUMBER else {"anyOf": [numbers, words]}


NAME_SCHEMA = WithJsonSchema({
    "type": "string", "format": PLAYER_NAME,
    "description": f"1 to {NAME_MAX} characters once trimmed, white space inside collapsed: letters, marks, numbers, "
                   "punctuation, symbols, single spaces, emoji joiners and flags, at least one of them drawn; "
                   "unique in the room regardless of case (docs/protocol.md). Another name is refused with "
                   "`invalid_name` (422).",
})
PRESET_SCHEMA = WithJsonSchema({
    "anyOf": [{"type": "string", "enum": list(PRESETS)}, {"type": "null"}],
    "description": "A named rule set (docs/rules.md §3); none: the house rules.",
})
RULES_SCHEMA = WithJsonSchema({
    "anyOf": [{"type": "object", "additionalProperties": False,
               "properties": {option.name: option_schema(option) for option in OPTIONS}},
              {"type": "null"}],
    "description": "Options over the preset (docs/rules.md §3); an option left out keeps the preset's value.",
})
PACE_SCHEMA = WithJsonSchema({
    "anyOf": [{"type": "object", "additionalProperties": False, "required": ["turn_hours"],
               "properties": {"turn_hours": {"type": "integer", "enum": list(TURN_HOURS)}}},
              {"type": "null"}],
    "description": "A slow room: the hours each turn may take (docs/slow-tables.md); none: a live room. "
                   "Another value is refused with `bad_request` (422).",
})
SECRET_SCHEMA = WithJsonSchema({"type": "string", "description": "The secret of a seat link (its `#` part)."})
HOST_TOKEN_SCHEMA = WithJsonSchema({
    "anyOf": [{"type": "string"}, {"type": "null"}],
    "description": "The host's token, for a host who gave up their seat and sits down again under it.",
})


ROOM_LINKS = {
    name: {"operationRef": f"#/paths/~1api~1rooms~1{{code}}{tail}/{method}",
           "parameters": {"code": "$response.body#/code"}, "description": description}
    for name, tail, method, description in (
        ("RoomState", "", "get", "The room as a spectator sees it."),
        ("JoinRoom", "~1players", "post", "Take a seat at the room."),
    )
}
"""What a client may do next with the room it opened (OpenAPI links, by its ``code``). Taking a seat by a link
is not among them: its secret comes from a seat's socket, not from this answer."""


class CreateRoom(BaseModel):
    """``POST /api/rooms`` body: the creator's name and the rules (a preset, options, or both).

    The fields take any JSON, so that the route refuses a bad one with its own code; the schema says what
    it accepts."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"required": ["name"]})
    name: Annotated[Any, NAME_SCHEMA] = None
    preset: Annotated[str | None, PRESET_SCHEMA] = None
    rules: Annotated[dict[str, Any] | None, RULES_SCHEMA] = None
    pace: Annotated[Any, PACE_SCHEMA] = None


class JoinRoom(BaseModel):
    """``POST /api/rooms/{code}/players`` body: the new player's name, and the host's token when the host sits again."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"required": ["name"]})
    name: Annotated[Any, NAME_SCHEMA] = None
    token: Annotated[Any, HOST_TOKEN_SCHEMA] = None


@router.post("/rooms", status_code=201, dependencies=[limited("rooms_created")], responses={
    201: {"description": "The room is open and its creator seated as host.", "links": ROOM_LINKS},
    **refusals(POSTED, {
        422: "`invalid_name`: the name is not one a player may have. `invalid_rules`: no such preset, option or "
             "value. `bad_request`: a pace whose `turn_hours` is not 1, 4, 12, 24 or 72.",
        503: "`server_full`: this server holds as many rooms as it can.",
    })})
async def create_room(body: CreateRoom, request: Request, response: Response, registry: RegistryDep,
                      settings: SettingsDep) -> dict[str, Any]:
    """Open a room; the creator is seated as host. → ``{code, url, seat, token}``."""
    rules = rules_from(body.preset, body.rules)
    room, seat, token = await registry.create(_name(body.name), rules, pace_from(body.pace))
    set_seat_cookie(response, request, settings, room.code, token)
    url = f"{public_base(request, settings)}{request.app.url_path_for('room_page', code=room.code)}"
    return {"code": room.code, "url": url, "seat": seat, "token": token}


@router.post("/rooms/{code}/players", status_code=201, dependencies=[limited("joins")],
             responses=refusals(ROOM, POSTED, {
                 403: "`not_host`: the token is not the host's.",
                 409: "`room_full`, `match_started` (no seat is taken during a match), `name_taken`, "
                      "`already_seated` (the host has a seat).",
                 422: "`invalid_name`: the name is not one a player may have.",
             }))
async def join_room(code: str, body: JoinRoom, request: Request, response: Response,
                    registry: RegistryDep, settings: SettingsDep) -> dict[str, Any]:
    """Take a free seat. → ``{seat, token}``; 409 when full, started or the name is taken.

    With ``token``, the host's token, a host who gave up their seat sits down
    again under it (the answer's token is the same); 403 ``not_host`` when it
    is not the host's, 409 ``already_seated`` when the host has a seat.
    """
    room = registry.require(code)
    if body.token is not None and not isinstance(body.token, str):
        raise RoomError(ErrorCode.BAD_REQUEST, problem("host_token"), status=422)
    seat, token = await room.join(_name(body.name), body.token)
    set_seat_cookie(response, request, settings, room.code, token)
    return {"seat": seat, "token": token}


class TakeSeat(BaseModel):
    """``POST /api/rooms/{code}/take`` body: the secret of a seat link."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"required": ["secret"]})
    secret: Annotated[Any, SECRET_SCHEMA] = None


@router.post("/rooms/{code}/take", status_code=201, dependencies=[limited("joins")], responses=refusals(ROOM, POSTED, {
    404: "`invalid_link`: the link does not work (used, expired or never made).",
    409: "`player_present`: the host's link found its player back at the table.",
}))
async def take_seat(code: str, body: TakeSeat, request: Request, response: Response, registry: RegistryDep,
                    settings: SettingsDep) -> dict[str, Any]:
    """Take the seat a link moves (its ``secret``). → ``{seat, player, token}``; 404 ``invalid_link``
    when the link does not work, 409 ``player_present`` when the host's link finds its player back."""
    room = registry.require(code)
    if not isinstance(body.secret, str):
        raise RoomError(ErrorCode.BAD_REQUEST, problem("link_secret"), status=422)
    seat, player, token = await room.take_seat(body.secret)
    set_seat_cookie(response, request, settings, room.code, token)
    return {"seat": seat, "player": player, "token": token}


@get_and_head(router, "/rooms/{code}", responses=refusals(ROOM))
async def room_state(code: str, registry: RegistryDep) -> dict[str, Any]:
    """The room as a spectator sees it (no hand, ever)."""
    view = registry.require(code).viewer_for(None).view()
    return {"version": view.version, "state": state_json(view)}


def _name(value: Any) -> str:
    """A name field as text; ``invalid_name`` (422) for anything else (the room checks the text)."""
    if not isinstance(value, str):
        raise RoomError(ErrorCode.INVALID_NAME, problem("name_not_text"), status=422)
    return value
