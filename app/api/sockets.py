"""WebSocket endpoints: the JSON protocol and the table page's live connection.

Both check the Origin, identify the player (a ``hello`` token or the room
cookie), attach a :class:`~app.rooms.connection.Connection` to the room and
feed every frame through :mod:`app.rooms.protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from app.api.deps import RegistryDep, SettingsDep, client_address, cookie_name, get_limiter, origin_allowed
from app.rooms.connection import Connection, Encode, Render, RenderError
from app.rooms.protocol import ProtocolError, dispatch, parse_message
from app.rooms.registry import RoomRegistry
from app.identity import hash_token
from app.rooms.room import Room, RoomError
from app.rooms.views import RoomView, state_json
from app.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter()

HELLO_TIMEOUT_SECONDS = 10.0
CLOSE_POLICY = 1008
CLOSE_NO_ROOM = 4404
CLOSE_BAD_TOKEN = 4403
CLOSE_CROWDED = 1013  # "try again later"


def json_state(view: RoomView) -> str:
    """The protocol's ``state`` message for a view."""
    return json.dumps({"type": "state", "version": view.version, "state": state_json(view)},
                      separators=(",", ":"), ensure_ascii=False)


def json_error(code: str, message: str) -> str:
    """The protocol's ``error`` message."""
    return json.dumps({"type": "error", "code": code, "message": message}, separators=(",", ":"))


async def accept_room_socket(websocket: WebSocket, code: str, registry: RoomRegistry,
                             settings: Settings) -> Room | None:
    """Accept a room's WebSocket handshake; ``None`` (and the socket closed) if it must not go on.

    A handshake from another site's Origin is refused (HTTP 403); one over the
    client's ``sockets`` limit is accepted, told ``rate_limited`` and closed
    (1008); for an unknown room the socket is accepted, told ``no_such_room``
    and closed.
    """
    if not origin_allowed(websocket, settings):
        await websocket.close(code=CLOSE_POLICY)
        return None
    await websocket.accept()
    wait = await get_limiter(websocket).retry_after("sockets", client_address(websocket))
    if wait is not None:
        await _refuse(websocket, "rate_limited", f"too many connections from your network; try again in {wait} s",
                      CLOSE_POLICY)
        return None
    room = registry.get(code)
    if room is None:
        await _refuse(websocket, "no_such_room", "there is no room with this code", CLOSE_NO_ROOM)
    elif len(room.connections) >= settings.max_connections_per_room:
        await _refuse(websocket, "room_crowded", "too many people are connected to this room", CLOSE_CROWDED)
        return None
    return room


@router.websocket("/api/rooms/{code}/ws")
async def protocol_socket(websocket: WebSocket, code: str, registry: RegistryDep, settings: SettingsDep) -> None:
    """The JSON protocol (docs/protocol.md): ``hello`` first, then actions; ``state``/``error`` back."""
    room = await accept_room_socket(websocket, code, registry, settings)
    if room is None:
        return
    try:
        frame = await asyncio.wait_for(_receive_frame(websocket), HELLO_TIMEOUT_SECONDS)
        hello = parse_message(frame, settings.max_message_bytes)
    except TimeoutError:
        await _refuse(websocket, "bad_request", "send hello first", CLOSE_POLICY)
        return
    except ProtocolError as error:
        await _refuse(websocket, error.code, error.message, CLOSE_POLICY)
        return
    except WebSocketDisconnect:
        return
    if hello["type"] != "hello":
        await _refuse(websocket, "bad_request", 'the first message must be {"type": "hello"}', CLOSE_POLICY)
        return
    token = hello.get("token")
    token_hash = None
    if token is not None:
        token_hash = hash_token(token) if isinstance(token, str) else None
        if not room.knows(token_hash):
            await _refuse(websocket, "unknown_token", "this token has no seat in this room", CLOSE_BAD_TOKEN)
            return
    await serve(websocket, room, settings, token_hash, json_state, json_error, kind="json")


async def serve(websocket: WebSocket, room: Room, settings: Settings, token_hash: str | None,
                render: Render, render_error: RenderError, *, kind: str,
                encode: Encode | None = None, translate: Any = None) -> None:
    """Attach an accepted socket to ``room`` and handle its frames until it closes.

    Each frame is parsed (size limit, JSON object), optionally adapted by
    ``translate`` (for the page's form messages), and dispatched; a refused
    action gets an error frame on this connection only.
    """
    conn = Connection(token_hash=token_hash, render=render, render_error=render_error,
                      send=websocket.send_text, close=lambda code: _close_quietly(websocket, code),
                      queue_size=settings.send_queue_size, kind=kind, encode=encode)
    sender = conn.start()
    await room.attach(conn)
    try:
        while not conn.dropped:
            try:
                frame = await _receive_frame(websocket)
            except WebSocketDisconnect:
                break
            try:
                message = parse_message(frame, settings.max_message_bytes)
                if translate is not None:
                    message = translate(message)
                await dispatch(room, conn, message)
            except (ProtocolError, RoomError) as error:
                conn.error(error.code, error.message)
            except Exception:  # a bug must cost this message, not the connection or the room
                log.exception("room %s: a message failed", room.code)
                conn.error("server_error", "the server could not handle that message; nothing changed")
    finally:
        conn.finish()
        await room.detach(conn)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(sender, 5)


async def _receive_frame(websocket: WebSocket) -> str | bytes:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    if message.get("text") is not None:
        return message["text"]
    return message.get("bytes") or b""


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(json_error(code, message))
    await _close_quietly(websocket, close_code)


async def _close_quietly(websocket: WebSocket, code: int) -> None:
    if websocket.application_state == WebSocketState.DISCONNECTED:
        return
    with contextlib.suppress(Exception):
        await websocket.close(code=code)


def player_token_hash(websocket: WebSocket, room: Room) -> str | None:
    """The token hash of the room's player (or host) whose cookie came with the handshake."""
    token = websocket.cookies.get(cookie_name(room.code))
    if not token:
        return None
    token_hash = hash_token(token)
    return token_hash if room.knows(token_hash) else None
