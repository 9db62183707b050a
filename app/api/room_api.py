"""The JSON API for rooms: create one, take a seat, read the public state."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict

from app.api.deps import RegistryDep, SettingsDep, limited, public_base
from app.api.routing import get_and_head
from app.api.seat_cookies import set_seat_cookie
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.protocol import rules_from, state_json
from app.wording.errors import problem

router = APIRouter(prefix="/api")

class CreateRoom(BaseModel):
    """``POST /api/rooms`` body: the creator's name and the rules (a preset, options, or both)."""

    model_config = ConfigDict(extra="forbid")
    name: Any = None
    preset: str | None = None
    rules: dict[str, Any] | None = None


class JoinRoom(BaseModel):
    """``POST /api/rooms/{code}/players`` body: the new player's name, and the host's token when the host sits again."""

    model_config = ConfigDict(extra="forbid")
    name: Any = None
    token: Any = None


@router.post("/rooms", status_code=201, dependencies=[limited("rooms_created")])
async def create_room(body: CreateRoom, request: Request, response: Response, registry: RegistryDep,
                      settings: SettingsDep) -> dict[str, Any]:
    """Open a room; the creator is seated as host. → ``{code, url, seat, token}``."""
    rules = rules_from(body.preset, body.rules)
    room, seat, token = await registry.create(_name(body.name), rules)
    set_seat_cookie(response, request, settings, room.code, token)
    url = f"{public_base(request, settings)}{request.app.url_path_for('room_page', code=room.code)}"
    return {"code": room.code, "url": url, "seat": seat, "token": token}


@router.post("/rooms/{code}/players", status_code=201, dependencies=[limited("joins")])
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

    model_config = ConfigDict(extra="forbid")
    secret: Any = None


@router.post("/rooms/{code}/take", status_code=201, dependencies=[limited("joins")])
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


@get_and_head(router, "/rooms/{code}")
async def room_state(code: str, registry: RegistryDep) -> dict[str, Any]:
    """The room as a spectator sees it (no hand, ever)."""
    view = registry.require(code).view_for(None)
    return {"version": view.version, "state": state_json(view)}


def _name(value: Any) -> str:
    """A name field as text; ``invalid_name`` (422) for anything else (the room checks the text)."""
    if not isinstance(value, str):
        raise RoomError(ErrorCode.INVALID_NAME, problem("name_not_text"), status=422)
    return value
