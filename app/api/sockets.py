"""WebSocket endpoints: the JSON protocol, and what both room sockets share.

Both sockets check the Origin, identify the player (a ``hello`` token or the
room cookie), attach a :class:`~app.rooms.connection.Connection` to the room
and read every frame through :func:`app.rooms.messages.parse_message`; this
module turns each typed message into the room action it names.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocketDisconnect, WebSocketState

from app.api.deps import (
    client_address,
    get_limiter,
    get_metrics,
    get_registry,
    get_settings,
    origin_allowed,
    public_base,
)
from app.api.seat_cookies import seat_token
from app.common.identity import hash_token
from app.config.settings import Settings
from app.notify.urls import RefusedUrl
from app.rooms.connection import Connection, Renderer
from app.rooms.credits import Credits, Verdict, allowances, kind_of
from app.rooms.errors import ErrorCode, RoomError, Words
from app.rooms.frames import error_message
from app.rooms.json_renderer import JsonRenderer
from app.rooms.messages import (
    AddBot,
    ChatText,
    ClientMessage,
    ComeBack,
    DeviceLink,
    HandToBot,
    Heartbeat,
    Hello,
    Leave,
    Mute,
    Play,
    ProtocolError,
    React,
    Remove,
    SeatLink,
    SetClock,
    SetQuietHours,
    SetRules,
    SetVacation,
    SetWebhook,
    SpectatorChat,
    Start,
    StepAway,
    Sync,
    parse_message,
)
from app.rooms.registry import RoomRegistry
from app.rooms.room import Room
from app.rooms.seat_links import Link, LinkKind
from app.rooms.slow import quiet_hours_change, vacation_change, webhook_change
from app.web.metrics import Metrics
from app.web.ratelimit import RateLimiter
from app.wording.errors import limit_problem, problem
from app.wording.language import DEFAULT_LANGUAGE, speaking, supported

log = logging.getLogger(__name__)
router = APIRouter()

HELLO_TIMEOUT_SECONDS = 10.0
CLOSE_POLICY = 1008
CLOSE_NO_ROOM = 4404
CLOSE_BAD_TOKEN = 4403
CLOSE_CROWDED = 1013  # "try again later"
CLOSE_SILENT = 4408  # a client that beat stopped beating: its page is hidden, frozen or gone
SILENT_BEATS = 3
"""Heartbeats a beating client may miss before the server counts it gone."""


def heartbeat_seconds(settings: Settings) -> float:
    """How often the page sends a heartbeat while it is looked at: often enough that a page
    that stops is counted gone well within the away grace period (at least once a second)."""
    return max(1.0, min(settings.heartbeat_seconds, settings.away_grace_seconds / SILENT_BEATS))


class WebSocketTransport:
    """A Starlette WebSocket as a connection's socket."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def send(self, text: str) -> None:
        """Send one text frame."""
        await self.websocket.send_text(text)

    async def close(self, code: int) -> None:
        """Close with ``code`` unless already closed; never raises."""
        await _close_quietly(self.websocket, code)


async def accept_room_socket(websocket: WebSocket, code: str, registry: RoomRegistry,
                             settings: Settings, language: str = DEFAULT_LANGUAGE) -> Room | None:
    """Accept a room's WebSocket handshake; ``None`` (and the socket closed) if it must not go on.

    A handshake from another site's Origin is refused (HTTP 403); one over the
    client's ``sockets`` limit is accepted, told ``rate_limited`` and closed
    (1008); for an unknown room the socket is accepted, told ``no_such_room``
    and closed. Refusals are said in ``language``. Whether a room crowded with
    connections takes it is for :func:`admitted` to say, once its token is known.
    """
    if not origin_allowed(websocket, settings):
        await websocket.close(code=CLOSE_POLICY)
        return None
    await websocket.accept()
    wait = await get_limiter(websocket).retry_after("sockets", client_address(websocket))
    if wait is not None:
        await _refuse(websocket, ErrorCode.RATE_LIMITED, problem("sockets_limited", seconds=wait), CLOSE_POLICY,
                      language)
        return None
    room = registry.get(code)
    if room is None:
        await _refuse(websocket, ErrorCode.NO_SUCH_ROOM, problem("no_such_room"), CLOSE_NO_ROOM, language)
    return room


async def admitted(websocket: WebSocket, room: Room, settings: Settings, token_hash: str | None,
                   language: str = DEFAULT_LANGUAGE) -> bool:
    """Whether ``room`` takes this accepted socket: a connection of a seat or of the host (``token_hash`` one
    the room knows) always, so that watchers filling the room never keep its players from their seats;
    anyone else while the room has fewer than ``settings.max_connections_per_room`` connections. A socket
    not taken is told ``room_crowded`` (in ``language``) and closed (1013).
    """
    if (token_hash is not None and room.knows(token_hash)) or \
            len(room.connections) < settings.max_connections_per_room:
        return True
    await _refuse(websocket, ErrorCode.ROOM_CROWDED, problem("room_crowded"), CLOSE_CROWDED, language)
    return False


# A plain Starlette route, not FastAPI's: FastAPI's holds exit stacks and its dependencies' results for as long as
# the socket is open, memory that a room's thousands of sockets do not need (docs/performance.md).
@router.websocket_route("/api/rooms/{code}/ws")
async def protocol_socket(websocket: WebSocket) -> None:
    """The JSON protocol (docs/protocol.md): ``hello`` first, then actions; ``state``/``error`` back.

    Texts for people are in the ``hello``'s ``lang`` (English without one, and before it).
    """
    code, registry, settings = websocket.path_params["code"], get_registry(websocket), get_settings(websocket)
    room = await accept_room_socket(websocket, code, registry, settings)
    if room is None:
        return
    try:
        frame = await asyncio.wait_for(_receive_frame(websocket), HELLO_TIMEOUT_SECONDS)
        hello = parse_message(frame, settings.max_message_bytes)
    except TimeoutError:
        await _refuse(websocket, ErrorCode.BAD_REQUEST, problem("hello_first"), CLOSE_POLICY)
        return
    except ProtocolError as error:
        await _refuse(websocket, error.code, error.words, CLOSE_POLICY)
        return
    except WebSocketDisconnect:
        return
    if not isinstance(hello, Hello):
        await _refuse(websocket, ErrorCode.BAD_REQUEST, problem("hello_expected", hello='{"type": "hello"}'),
                      CLOSE_POLICY)
        return
    language = supported(hello.lang) or DEFAULT_LANGUAGE
    token_hash = None
    if hello.token is not None:
        token_hash = hash_token(hello.token)
        if not room.knows(token_hash):
            await _refuse(websocket, ErrorCode.UNKNOWN_TOKEN, problem("unknown_token"), CLOSE_BAD_TOKEN, language)
            return
    if not await admitted(websocket, room, settings, token_hash, language):
        return
    await serve(websocket, room, settings, token_hash, JsonRenderer(link_url=link_url(websocket, settings)),
                language=language)


def link_url(conn: HTTPConnection, settings: Settings) -> Callable[[Link], str]:
    """How a seat link made for this connection's person is written: the public address of the
    page that takes a seat, then ``#`` and the secret. Browsers never send what follows ``#``,
    so the secret appears in no request line and no server's or proxy's log."""
    base = public_base(conn, settings)
    return lambda link: f"{base}{conn.app.url_path_for('take_seat_page', code=link.room)}#{link.secret}"


async def dispatch(room: Room, conn: Connection, message: ClientMessage, limiter: RateLimiter | None = None) -> None:
    """Carry out one message from ``conn`` on ``room``; raises :class:`RoomError` when the room refuses it.

    ``limiter`` counts chat lines against the ``chat`` limit (none: not counted).
    """
    who = conn.token_hash
    match message:
        case ChatText() | React():
            await _chat(room, conn, message, limiter)
        case Mute():
            room.mute(conn, message.sender)
        case SpectatorChat():
            room.allow_spectators(conn, message.on)
        case Play():
            await room.play(who, message.card, message.moment, message.match)
        case Start():
            await room.start(who)
        case SetRules():
            await room.set_rules(who, message.to_rules(), message.to_pace())
        case SetQuietHours():
            await room.change_slow(quiet_hours_change(who, message.to_quiet_hours()))
        case SetVacation():
            await room.change_slow(vacation_change(who, message.days, room.hour_seconds))
        case SetWebhook():
            await room.change_slow(webhook_change(who, checked_webhook(room, message.url), conn.language))
        case Remove():
            await room.remove_seat(who, message.target)
        case Leave():
            await room.leave(who)
        case AddBot():
            await room.add_bot(who, message.strength, message.seats)
        case HandToBot():
            await room.hand_to_bot(who, message.target, message.strength)
        case DeviceLink():
            conn.send_link(room.seat_link(who, LinkKind.DEVICE))
        case SeatLink():
            conn.send_link(room.seat_link(who, LinkKind.SEAT, message.target))
        case SetClock():
            await room.set_clock(who, message.seconds)
        case StepAway() | ComeBack():
            await room.step_away(who, isinstance(message, StepAway))
        case Sync():
            room.send_state(conn)
        case Heartbeat():
            pass  # heard: ``serve`` keeps the connection for another while
        case Hello():
            raise ProtocolError(ErrorCode.BAD_REQUEST, problem("already_greeted"))


def checked_webhook(room: Room, url: object) -> str | None:
    """The webhook URL ``url`` as the notifier allows it (``None`` for none: null or empty); raises
    :class:`RoomError` ``webhook_refused`` (422) for a URL it refuses (app/notify) or that is not text."""
    if url is None or url == "":
        return None
    notifier = room.herald.notifier
    try:
        if not isinstance(url, str) or notifier is None:
            raise RefusedUrl(ErrorCode.WEBHOOK_REFUSED, "not a URL")
        return notifier.check_webhook(url)
    except RefusedUrl:  # why is not said: the URL may hold a secret, and is never logged
        raise RoomError(ErrorCode.WEBHOOK_REFUSED, problem("webhook_refused"), status=422) from None


async def _chat(room: Room, conn: Connection, message: ChatText | React, limiter: RateLimiter | None) -> None:
    """``conn``'s person writes a chat line, within the ``chat`` limit of its sender (a player by their
    player id, a spectator by their anonymous id: not by address); over it, ``rate_limited`` (no close)."""
    sender = room.chat_sender(conn)
    wait = None if limiter is None else await limiter.retry_after("chat", f"{room.code}/{sender.id}")
    if wait is not None:
        raise RoomError(ErrorCode.RATE_LIMITED, limit_problem("chat", wait), status=429)
    # ``say`` finds the sender again: the room may have changed while the limiter counted
    room.say(conn, text=message.text if isinstance(message, ChatText) else None,
             reaction=message.reaction if isinstance(message, React) else None)


def serve(websocket: WebSocket, room: Room, settings: Settings, token_hash: str | None, renderer: Renderer,
          *, adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
          language: str = DEFAULT_LANGUAGE, viewer: str | None = None) -> asyncio.Task[None]:
    """Attach an accepted socket to ``room`` and handle its frames until it closes; the route awaits the
    task this returns.

    Each frame is parsed (size limit, typed message; ``adapt`` first turns the
    page's form fields into protocol fields), counted against the connection's
    allowance of its kind (:mod:`app.rooms.credits`) and dispatched; a refused
    message gets an error frame on this connection only. A connection far over
    an allowance is told ``rate_limited`` and closed with 1008. Everything this
    connection is sent is said in ``language``. ``viewer`` is the anonymous id its person chats under
    without a seat (``None``: one for this connection only).

    It runs in a task of its own (cancelling the route, which waits for it, cancels it). Under the route
    there are a dozen layers of middleware and routing, each a coroutine waiting on the next, and a task
    resumes all of them each time it goes on: each frame received, each play committed.
    """
    return asyncio.get_running_loop().create_task(_serve(websocket, room, settings, token_hash, renderer,
                                                         adapt=adapt, language=language, viewer=viewer))


async def _serve(websocket: WebSocket, room: Room, settings: Settings, token_hash: str | None, renderer: Renderer,
                 *, adapt: Callable[[dict[str, Any]], dict[str, Any]] | None, language: str,
                 viewer: str | None) -> None:
    metrics = get_metrics(websocket)
    limiter = get_limiter(websocket)
    conn = Connection(token_hash=token_hash, renderer=renderer, socket=WebSocketTransport(websocket),
                      queue_size=settings.send_queue_size, language=language, viewer=viewer)
    credits = Credits(allowances(settings), settings.socket_close_after, time.monotonic())
    sender = conn.start()
    await room.attach(conn)
    metrics.socket_opened(conn.kind)
    silence: float | None = None  # once a client beats, this long without a word means it is gone
    heard = time.monotonic()
    gone_since: float | None = None  # when a client that went silent was last heard
    try:
        while not conn.dropped:
            try:
                receiving = _receive_frame(websocket)
                frame = await (receiving if silence is None else asyncio.wait_for(receiving, silence))
            except WebSocketDisconnect:
                break
            except TimeoutError:
                conn.close_code, gone_since = CLOSE_SILENT, heard
                break
            heard = time.monotonic()
            try:
                message: ClientMessage | ProtocolError = parse_message(frame, settings.max_message_bytes,
                                                                       adapt=adapt)
            except ProtocolError as error:
                message = error
            verdict = _spend(conn, metrics, credits, message, heard)
            if verdict is Verdict.CLOSE:
                break
            if verdict is Verdict.REFUSED:
                continue
            if isinstance(message, ProtocolError):
                _refuse_message(conn, metrics, message.code, message.words)
                continue
            if isinstance(message, Heartbeat):
                silence = SILENT_BEATS * heartbeat_seconds(settings)
            try:
                await dispatch(room, conn, message, limiter)
            except (ProtocolError, RoomError) as error:
                _refuse_message(conn, metrics, error.code, error.words)
            except Exception:  # a bug must cost this message, not the connection or the room
                log.exception("room %s: a message failed", room.code)
                _refuse_message(conn, metrics, ErrorCode.SERVER_ERROR, problem("server_error"))
    finally:
        conn.finish()
        await room.detach(conn, gone_since)
        metrics.socket_closed(conn.kind, too_slow=conn.too_slow)
        await let_sender_finish(sender)


SENDER_FINISH_SECONDS = 5.0
"""How long a socket's handler, ending, waits for its connection's sender to write what is queued and close."""


async def let_sender_finish(sender: asyncio.Task[None], seconds: float = SENDER_FINISH_SECONDS) -> None:
    """Wait up to ``seconds`` for a connection's ``sender`` (:meth:`Connection.start`) to end, then cancel it.

    How the sender ended (it was cancelled, its socket failed) is its own affair: nothing of it is raised
    here. A cancellation of the waiting task itself is: it goes on ending that task.
    """
    done, _ = await asyncio.wait({sender}, timeout=seconds)
    if not done:
        sender.cancel()


def _spend(conn: Connection, metrics: Metrics, credits: Credits, message: ClientMessage | ProtocolError,
           now: float) -> Verdict:
    """Count ``message`` (or a frame that is not one) sent at ``now`` against ``conn``'s
    allowance of its kind. Over it, ``conn`` is told ``rate_limited``; far over it, it is also
    closed with 1008 once told. Returns the :class:`Verdict`."""
    kind = kind_of(message)
    verdict = credits.spend(kind, now)
    if verdict is Verdict.ALLOWED:
        return verdict
    metrics.limit_hit(f"socket_{kind}")
    closing = verdict is Verdict.CLOSE
    _refuse_message(conn, metrics, ErrorCode.RATE_LIMITED,
                    problem("messages_limited_closing" if closing else "messages_limited"))
    if closing:
        conn.end(CLOSE_POLICY)
    return verdict


def _refuse_message(conn: Connection, metrics: Metrics, code: ErrorCode, words: Words) -> None:
    """Tell ``conn`` its message was refused with ``code``, ``words`` said in its language (and count it)."""
    metrics.message_refused(code)
    conn.error(code, words)


async def _receive_frame(websocket: WebSocket) -> str | bytes:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    if message.get("text") is not None:
        return str(message["text"])
    return bytes(message.get("bytes") or b"")


async def _refuse(websocket: WebSocket, code: ErrorCode, words: Words, close_code: int,
                  language: str = DEFAULT_LANGUAGE) -> None:
    get_metrics(websocket).message_refused(code)
    with speaking(language):
        text = error_message(code, str(words))
    with contextlib.suppress(Exception):
        await websocket.send_text(text)
    await _close_quietly(websocket, close_code)


async def _close_quietly(websocket: WebSocket, code: int) -> None:
    if websocket.application_state == WebSocketState.DISCONNECTED:
        return
    with contextlib.suppress(Exception):
        await websocket.close(code=code)


def player_token_hash(websocket: WebSocket, room: Room) -> str | None:
    """The token hash of the room's player (or host) whose cookie came with the handshake."""
    token = seat_token(websocket, room.code)
    if not token:
        return None
    token_hash = hash_token(token)
    return token_hash if room.knows(token_hash) else None
