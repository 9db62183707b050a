"""Relaying a room's requests and sockets to the process that owns it, over Redis pub/sub.

A process that gets an HTTP request or a WebSocket for a room another process owns passes the
whole ASGI conversation to the owner: the request (or the socket's handshake) with its headers and
body, then each frame both ways. The owner runs it through its own app, exactly as if it had come
in there, so a relayed viewer gets the very frames a local one would (their own view, no one
else's cards). Each process reads one channel, its inbox (:func:`~app.cluster.leases.inbox`);
every message is a JSON object whose ``k`` says what it is:

- to the owner: ``http`` (a request: ``scope``, ``body``), ``ws_open`` (a socket's handshake:
  ``scope``), ``ws_in`` (a frame from the client), ``ws_gone`` (the client left);
- back to the relaying process: ``http_reply`` (``status``, ``headers``, ``body``), ``ws_accept``,
  ``ws_send`` (a frame), ``ws_close`` (``code``), and ``moved`` when the owner does not hold the
  room (any more): the relaying process then finds the room's owner again.

Every message names its request or socket by ``id`` and its sender by ``from``; bodies and binary
frames are base64. A relayed socket whose owner goes away (its lease changes hands or lapses) is
closed with 1012 by the relaying process, and the client reconnects.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.cluster.leases import inbox
from app.common.identity import normalise_code
from app.common.waits import pause, wait_ended
from app.rooms.errors import ErrorCode, RoomError
from app.wording.errors import problem
from app.wording.language import DEFAULT_LANGUAGE, negotiate, speaking

log = logging.getLogger(__name__)

FORWARDED = "cucumber.forwarded"
"""Key of an ASGI scope run for another process (it must be served here, never relayed again)."""
CLOSE_RESTART = 1012
"""Close code for a socket whose room moved: "service restart, reconnect"."""
CLOSE_TRY_LATER = 1013
ROOM_PATH = re.compile(r"^/(?:r|api/rooms)/([A-Za-z0-9]{1,32})(?:/|$)")
"""Paths that name a room: the room's pages (``/r/CODE…``) and its API (``/api/rooms/CODE…``)."""
ROUTE_ATTEMPTS = 3
"""How often a request looks for its room's owner (each time the owner did not answer, or had moved)."""
UNREACHABLE = ""
"""What :meth:`Relay._route` gives when the room's place cannot be found now (Redis or the database is down)."""
RETRY_PAUSE_SECONDS = 0.2
INBOX_WAIT_SECONDS = 1.0
"""How long the inbox reader waits for a message before it looks whether to stop."""
RESUBSCRIBE_PAUSE_SECONDS = 0.5
"""The pause before the inbox is subscribed to again, once its connection failed."""
PROXY_HEADERS = frozenset({b"x-forwarded-for", b"x-forwarded-proto"})
"""Headers the relaying process has already applied to the scope (client address and scheme)."""


def room_code_in(path: str) -> str | None:
    """The room code a request's ``path`` names (canonical form), ``None`` when it names no room."""
    found = ROOM_PATH.match(path)
    return normalise_code(found.group(1)) if found else None


def pack_scope(scope: Scope) -> dict[str, Any]:
    """An HTTP or WebSocket scope as JSON-ready data (headers as latin-1 text), without proxy headers."""
    packed = {key: scope[key] for key in ("type", "http_version", "method", "scheme", "path", "root_path",
                                          "subprotocols") if key in scope}
    packed["query_string"] = scope.get("query_string", b"").decode("latin-1")
    raw_path = scope.get("raw_path")
    packed["raw_path"] = raw_path.decode("latin-1") if raw_path is not None else None
    packed["headers"] = [[name.decode("latin-1"), value.decode("latin-1")] for name, value in scope["headers"]
                         if name.lower() not in PROXY_HEADERS]
    packed["client"] = list(scope["client"]) if scope.get("client") else None
    packed["server"] = list(scope["server"]) if scope.get("server") else None
    return packed


def unpack_scope(packed: dict[str, Any]) -> Scope:
    """The scope :func:`pack_scope` packed, marked :data:`FORWARDED`."""
    scope: dict[str, Any] = {key: value for key, value in packed.items()
                             if key not in ("headers", "query_string", "raw_path", "client", "server")}
    scope["headers"] = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in packed["headers"]]
    scope["query_string"] = packed["query_string"].encode("latin-1")
    scope["raw_path"] = packed["raw_path"].encode("latin-1") if packed["raw_path"] is not None else None
    scope["client"] = tuple(packed["client"]) if packed["client"] else None
    scope["server"] = tuple(packed["server"]) if packed["server"] else None
    scope["asgi"] = {"version": "3.0", "spec_version": "2.3"}
    scope["state"] = {}
    scope[FORWARDED] = True
    return scope


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


class Owners(Protocol):
    """What the relay asks of its process: where a room is served, and the app that serves it."""

    process: str

    async def route(self, code: str) -> str | None:
        """The process to relay room ``code``'s traffic to, ``None`` to serve it here. Raises ``RedisError``
        or a ``RoomError`` (storage unavailable) when it cannot be found out now."""

    async def holds(self, code: str) -> bool:
        """Whether this process holds room ``code`` (waiting for a claim of it in progress)."""

    @property
    def draining(self) -> bool:
        """Whether this process is handing its rooms over (it relays and hosts nothing new)."""


@dataclass(slots=True)
class Tunnel:
    """One relayed socket: its id, the other process, the room, and the messages come for it."""

    id: str
    peer: str
    code: str
    inbox: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)


class Relay:
    """This process's side of relaying: it sends requests and sockets to owners, and serves those sent here.

    ``redis`` carries the messages (one inbox channel per process, under ``prefix``); ``owners`` says
    where rooms are served; ``app`` is this process's own ASGI app (set once built); ``timeout`` is
    how long an owner may take to answer (seconds); ``queue_size`` how many frames may wait for a
    slow relayed client before it is dropped (1013).
    """

    def __init__(self, redis: Redis, *, prefix: str, owners: Owners, timeout: float, queue_size: int) -> None:
        self.redis = redis
        self.prefix = prefix
        self.owners = owners
        self.timeout = timeout
        self.queue_size = queue_size
        self.app: ASGIApp | None = None
        self.relayed: dict[str, Tunnel] = {}
        """Sockets this process relays to their owners, by id."""
        self.hosted: dict[str, Tunnel] = {}
        """Sockets other processes relay here, by id."""
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        """Set by :meth:`stop`: the inbox reader ends at its next turn (a cancellation of it may be lost)."""
        self.healthy = False

    # ------------------------------------------------------------------ the inbox

    async def start(self) -> None:
        """Subscribe to this process's inbox and start reading it. Raises ``RedisError`` if Redis fails."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(inbox(self.prefix, self.owners.process))
        self.healthy = True
        self._reader = asyncio.get_running_loop().create_task(self._read(pubsub))

    async def _read(self, pubsub: Any) -> None:
        """Handle the inbox's messages (waiting at most :data:`INBOX_WAIT_SECONDS` for each) until :meth:`stop`."""
        while not self._stopping.is_set():
            try:
                message = await pubsub.get_message(timeout=INBOX_WAIT_SECONDS)
            except (RedisError, OSError) as error:
                self.healthy = False
                log.warning("the inbox connection failed (%s); subscribing again", error)
                if await pause(self._stopping, RESUBSCRIBE_PAUSE_SECONDS):
                    break
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.subscribe(inbox(self.prefix, self.owners.process))
                continue
            self.healthy = True
            if message is None or message.get("type") != "message":
                continue
            try:
                self._handle(json.loads(message["data"]))
            except Exception:  # one bad message must not stop the inbox
                log.exception("a relay message could not be handled")

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("k")
        if kind == "http":
            self._spawn(self._serve_http(message))
        elif kind == "ws_open":
            self._spawn(self._serve_socket(message))
        elif kind in ("ws_in", "ws_gone"):
            tunnel = self.hosted.get(message["id"])
            if tunnel is not None:
                tunnel.inbox.put_nowait(message)
        elif kind == "http_reply":
            reply = self._replies.get(message["id"])
            if reply is not None and not reply.done():
                reply.set_result(message)
        elif kind in ("ws_accept", "ws_send", "ws_close", "moved"):
            tunnel = self.relayed.get(message["id"])
            if tunnel is not None:
                tunnel.inbox.put_nowait(message)
                if tunnel.inbox.qsize() > self.queue_size:  # the client stopped reading
                    tunnel.inbox.put_nowait({"k": "lost", "code": CLOSE_TRY_LATER})

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def send(self, process: str, message: dict[str, Any]) -> int:
        """Publish ``message`` to ``process``'s inbox; how many processes read it (0: it is gone).
        Raises ``RedisError`` when Redis fails."""
        message["from"] = self.owners.process
        receivers: int = await self.redis.publish(inbox(self.prefix, process), json.dumps(message))
        return receivers

    def _new_id(self) -> str:
        return f"{self.owners.process}:{next(self._ids)}"

    async def stop(self, seconds: float) -> None:
        """Stop reading the inbox, waiting at most ``seconds`` for the reader to end (it is left behind, with
        a warning, after that); relayed sockets are closed with 1012, hosted ones told their client left."""
        self._stopping.set()
        for tunnel in list(self.relayed.values()):
            tunnel.inbox.put_nowait({"k": "lost", "code": CLOSE_RESTART})
        for tunnel in list(self.hosted.values()):
            tunnel.inbox.put_nowait({"k": "ws_gone", "code": 1001})
        if self._reader is not None:
            self._reader.cancel()
            await wait_ended(self._reader, seconds, "the relay's inbox reader")
        for task in list(self._tasks):
            task.cancel()

    # ------------------------------------------------------------------ watching the other side

    def watch(self, owners: dict[str, str | None], alive: set[str]) -> None:
        """Close what lost its other side: relayed sockets whose room's owner is not the one they
        were relayed to (``owners``: room code → owner now), and hosted sockets whose relaying process
        is not in ``alive``."""
        for tunnel in list(self.relayed.values()):
            if tunnel.code in owners and owners[tunnel.code] != tunnel.peer:
                tunnel.inbox.put_nowait({"k": "lost", "code": CLOSE_RESTART})
        for tunnel in list(self.hosted.values()):
            if tunnel.peer not in alive:
                tunnel.inbox.put_nowait({"k": "ws_gone", "code": 1006})

    # ------------------------------------------------------------------ the relaying side

    async def serve(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request or socket in front of ``app``: a room another process owns is relayed there."""
        code = room_code_in(scope.get("path", "")) if scope["type"] in ("http", "websocket") else None
        if code is None or scope.get(FORWARDED):
            await app(scope, receive, send)
        elif scope["type"] == "http":
            await self._relay_http(app, code, scope, receive, send)
        else:
            await self._relay_socket(app, code, scope, receive, send)

    async def _relay_http(self, app: ASGIApp, code: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        for _ in range(ROUTE_ATTEMPTS):
            owner = await self._route(code)
            if owner is None:
                await app(scope, _replay({"type": "http.request", "body": bytes(body), "more_body": False}), send)
                return
            if owner == UNREACHABLE:
                await asyncio.sleep(RETRY_PAUSE_SECONDS)
                continue
            reply = await self._ask(owner, {"k": "http", "code": code, "scope": pack_scope(scope),
                                            "body": _b64(bytes(body))})
            if reply is not None and reply.get("k") == "http_reply":
                headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in reply["headers"]]
                await send({"type": "http.response.start", "status": reply["status"], "headers": headers})
                await send({"type": "http.response.body", "body": _unb64(reply["body"]) or b""})
                return
        asked = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
        with speaking(negotiate(asked) or DEFAULT_LANGUAGE):
            words = str(problem("room_moving"))
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")]})
        await send({"type": "http.response.body",
                    "body": json.dumps({"error": ErrorCode.ROOM_MOVING, "message": words}).encode()})

    async def _route(self, code: str) -> str | None:
        """Where room ``code`` is served: another process's id, ``None`` for here, or :data:`UNREACHABLE`
        when Redis or the database fails (the room may exist, but cannot be found or taken now)."""
        try:
            return await self.owners.route(code)
        except (RedisError, OSError, RoomError) as error:
            log.warning("room %s: could not find its owner: %s", code, error)
            return UNREACHABLE

    async def _ask(self, owner: str, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send a request to ``owner`` and wait for its reply; ``None`` when it is gone or does not answer."""
        message["id"] = self._new_id()
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[message["id"]] = reply
        try:
            if not await self.send(owner, message):
                return None
            return await asyncio.wait_for(reply, self.timeout)
        except (TimeoutError, RedisError):
            return None
        finally:
            self._replies.pop(message["id"], None)

    async def _relay_socket(self, app: ASGIApp, code: str, scope: Scope, receive: Receive, send: Send) -> None:
        connect = await receive()
        if connect["type"] != "websocket.connect":
            return
        for _ in range(ROUTE_ATTEMPTS):
            owner = await self._route(code)
            if owner is None:
                await app(scope, _replay(connect, then=receive), send)
                return
            if owner == UNREACHABLE:
                await asyncio.sleep(RETRY_PAUSE_SECONDS)
                continue
            if await self._tunnel(owner, code, scope, receive, send):
                return
        # Nobody can serve the room yet (its owner died and its lease has not lapsed, or it is being handed
        # over): "try again later", so that the client waits its growing pause rather than coming back at once.
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": CLOSE_TRY_LATER})

    async def _tunnel(self, owner: str, code: str, scope: Scope, receive: Receive, send: Send) -> bool:
        """Relay an accepted-to-be socket to ``owner``; ``False`` if the owner did not take it (nothing
        was sent to the client then)."""
        tunnel = Tunnel(self._new_id(), owner, code)
        self.relayed[tunnel.id] = tunnel
        try:
            try:
                if not await self.send(owner, {"k": "ws_open", "id": tunnel.id, "code": code,
                                               "scope": pack_scope(scope)}):
                    return False
                first = await asyncio.wait_for(tunnel.inbox.get(), self.timeout)
            except (TimeoutError, RedisError):
                await self._tell(owner, {"k": "ws_gone", "id": tunnel.id, "code": 1006})
                return False
            if first["k"] in ("moved", "lost"):
                return False
            if first["k"] == "ws_close":
                await send({"type": "websocket.close", "code": first.get("code", 1000)})
                return True
            await send({"type": "websocket.accept", "subprotocol": first.get("subprotocol")})
            await self._pump(tunnel, receive, send)
            return True
        finally:
            self.relayed.pop(tunnel.id, None)

    async def _pump(self, tunnel: Tunnel, receive: Receive, send: Send) -> None:
        """Carry frames both ways until either side closes."""

        async def upstream() -> None:
            while True:
                message = await receive()
                if message["type"] == "websocket.receive":
                    await self.send(tunnel.peer, {"k": "ws_in", "id": tunnel.id, "text": message.get("text"),
                                                  "bytes": _b64(message.get("bytes"))})
                elif message["type"] == "websocket.disconnect":
                    await self._tell(tunnel.peer, {"k": "ws_gone", "id": tunnel.id,
                                                   "code": message.get("code", 1000)})
                    return

        async def downstream() -> None:
            while True:
                message = await tunnel.inbox.get()
                if message["k"] == "ws_send":
                    await send({"type": "websocket.send", "text": message.get("text"),
                                "bytes": _unb64(message.get("bytes"))})
                elif message["k"] == "ws_close":
                    await send({"type": "websocket.close", "code": message.get("code", 1000)})
                    return
                elif message["k"] == "lost":
                    await self._tell(tunnel.peer, {"k": "ws_gone", "id": tunnel.id, "code": 1006})
                    await send({"type": "websocket.close", "code": message["code"]})
                    return

        tasks = [asyncio.ensure_future(upstream()), asyncio.ensure_future(downstream())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.debug("a relayed socket ended: %r", task.exception())
                    await self._tell(tunnel.peer, {"k": "ws_gone", "id": tunnel.id, "code": 1006})
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.gather(*tasks, return_exceptions=True)

    async def _tell(self, process: str, message: dict[str, Any]) -> None:
        """:meth:`send` whose failure only costs the message (it is logged)."""
        try:
            await self.send(process, message)
        except RedisError as error:
            log.warning("could not tell %s (%s): %s", process, message.get("k"), error)

    # ------------------------------------------------------------------ the owning side

    async def _serve_http(self, message: dict[str, Any]) -> None:
        relay, code = message["from"], message["code"]
        if self.app is None or self.owners.draining or not await self.owners.holds(code):
            await self._tell(relay, {"k": "moved", "id": message["id"]})
            return
        done = asyncio.Event()
        body = _unb64(message["body"]) or b""
        started: dict[str, Any] = {}
        chunks: list[bytes] = []
        receive = _replay({"type": "http.request", "body": body, "more_body": False}, then=_after(done))

        async def collect(sent: Message) -> None:
            if sent["type"] == "http.response.start":
                started.update(sent)
            elif sent["type"] == "http.response.body":
                chunks.append(sent.get("body", b""))
                if not sent.get("more_body"):
                    done.set()

        try:
            await self.app(unpack_scope(message["scope"]), receive, collect)
        except Exception:
            log.exception("room %s: a relayed request failed", code)
            started, chunks = {"status": 500, "headers": []}, [b""]
        headers = [[bytes(name).decode("latin-1"), bytes(value).decode("latin-1")]
                   for name, value in started.get("headers", [])]
        await self._tell(relay, {"k": "http_reply", "id": message["id"], "status": started.get("status", 500),
                                 "headers": headers, "body": _b64(b"".join(chunks))})

    async def _serve_socket(self, message: dict[str, Any]) -> None:
        relay, code = message["from"], message["code"]
        if self.app is None or self.owners.draining or not await self.owners.holds(code):
            await self._tell(relay, {"k": "moved", "id": message["id"]})
            return
        tunnel = Tunnel(message["id"], relay, code)
        self.hosted[tunnel.id] = tunnel
        greeted = False

        async def receive() -> Message:
            nonlocal greeted
            if not greeted:
                greeted = True
                return {"type": "websocket.connect"}
            got = await tunnel.inbox.get()
            if got["k"] == "ws_in":
                return {"type": "websocket.receive", "text": got.get("text"), "bytes": _unb64(got.get("bytes"))}
            return {"type": "websocket.disconnect", "code": got.get("code", 1006)}

        async def reply(sent: Message) -> None:
            kind = sent["type"]
            if kind == "websocket.accept":
                out = {"k": "ws_accept", "subprotocol": sent.get("subprotocol")}
            elif kind == "websocket.send":
                out = {"k": "ws_send", "text": sent.get("text"), "bytes": _b64(sent.get("bytes"))}
            elif kind == "websocket.close":
                out = {"k": "ws_close", "code": sent.get("code", 1000)}
                # The relaying process closes the client's socket; the app's next receive hears it closed, as
                # it would hear the client's answer to a close of its own.
                tunnel.inbox.put_nowait({"k": "ws_gone", "code": sent.get("code", 1000)})
            else:
                return
            try:
                receivers = await self.send(relay, {**out, "id": tunnel.id})
            except RedisError as error:
                raise OSError(f"the relay is unreachable: {error}") from error
            if not receivers:  # the relaying process is gone: so is the client
                tunnel.inbox.put_nowait({"k": "ws_gone", "code": 1006})
                raise OSError("the relaying process is gone")

        try:
            await self.app(unpack_scope(message["scope"]), receive, reply)
        except Exception as error:
            log.debug("room %s: a relayed socket ended: %r", code, error)
        finally:
            self.hosted.pop(tunnel.id, None)


def _replay(first: Message, then: Receive | None = None) -> Receive:
    """An ASGI ``receive`` that gives ``first``, then whatever ``then`` gives (or a disconnect)."""
    given = False

    async def receive() -> Message:
        nonlocal given
        if not given:
            given = True
            return first
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive


def _after(done: asyncio.Event) -> Callable[[], Awaitable[Message]]:
    """An ASGI ``receive`` past the request's body: the client leaves once the response is complete."""

    async def receive() -> Message:
        await done.wait()
        return {"type": "http.disconnect"}

    return receive


class RelayMiddleware:
    """ASGI middleware of a cluster's app: the traffic of rooms other processes own goes to them.

    It finds the process's :class:`Relay` on the app's state (``app.state.node.relay``, set once the
    app has started); before that, and outside cluster mode, it passes everything on.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        node = getattr(getattr(scope.get("app"), "state", None), "node", None)
        relay: Relay | None = getattr(node, "relay", None)
        if relay is None:
            await self.app(scope, receive, send)
        else:
            await relay.serve(self.app, scope, receive, send)
