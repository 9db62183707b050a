"""Push subscriptions of seats, for programs (``/api``) and for the table page (``/r/{code}/push``, with its
seat cookie), and the server's VAPID public key (docs/protocol.md, "Push notifications")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, WithJsonSchema
from starlette.requests import HTTPConnection

from app.api.answers import POSTED, ROOM, refusals
from app.api.deps import NotifierDep, RegistryDep
from app.api.language import api_language, visitor_language
from app.api.routing import get_and_head
from app.api.seat_cookies import seat_token
from app.common.identity import hash_token
from app.notify import Notifier, PushOff, RefusedUrl
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.registry import RoomRegistry
from app.wording.errors import problem

router = APIRouter(prefix="/api")
pages = APIRouter()

TOKEN_SCHEMA = WithJsonSchema({"type": "string", "description": "The player's token (its seat at this room)."})
SUBSCRIPTION_SCHEMA = WithJsonSchema({
    "type": "object",
    "description": "The browser's PushSubscription as JSON (`subscription.toJSON()`); other fields it carries, "
                   "such as `expirationTime`, are accepted and ignored.",
    "required": ["endpoint", "keys"],
    "properties": {
        "endpoint": {"type": "string", "format": "uri", "description": "The push service's URL for this browser; "
                     "it must start with one of the server's allowed prefixes (`CUCUMBER_PUSH_ENDPOINTS`)."},
        "keys": {"type": "object", "required": ["p256dh", "auth"], "properties": {
            "p256dh": {"type": "string", "description": "The browser's P-256 public key, base64url."},
            "auth": {"type": "string", "description": "The browser's 16-byte authentication secret, base64url."},
        }},
    },
})
PUSH_OFF = {404: "`push_off`: this server sends no push notifications."}
UNKNOWN_TOKEN = {403: "`unknown_token`: the token has no seat in this room."}


class PushSeat(BaseModel):
    """``POST``/``DELETE /api/rooms/{code}/push`` body: the player's token and the browser's subscription.

    The fields take any JSON, so that the route refuses a bad one with its own code; the schema says what
    it accepts."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"required": ["token", "subscription"]})
    token: Annotated[Any, TOKEN_SCHEMA] = None
    subscription: Annotated[Any, SUBSCRIPTION_SCHEMA] = None


def _seat_hash(registry: RoomRegistry, code: str, token: object) -> tuple[str, str]:
    """``(room code, token hash)`` of a seat at room ``code``: ``no_such_room`` (404) without the room,
    ``unknown_token`` (403) for a token it does not know (seated or hosting), ``bad_request`` (422) for one
    that is not text."""
    room = registry.require(code)
    if token is None:
        raise RoomError(ErrorCode.UNKNOWN_TOKEN, problem("unknown_token"), status=403)
    if not isinstance(token, str):
        raise RoomError(ErrorCode.BAD_REQUEST, problem("push_token"), status=422)
    token_hash = hash_token(token)
    if not room.knows(token_hash):
        raise RoomError(ErrorCode.UNKNOWN_TOKEN, problem("unknown_token"), status=403)
    return room.code, token_hash


def _push_on(notifier: Notifier | None) -> Notifier:
    """The notifier, or ``push_off`` (404) when it sends no pushes."""
    if notifier is None or not notifier.push_enabled:
        raise RoomError(ErrorCode.PUSH_OFF, problem("push_off"), status=404)
    return notifier


async def _subscribe(notifier: Notifier, code: str, token_hash: str, subscription: object, language: str) -> None:
    """Keep ``subscription`` for the seat; ``push_endpoint_refused`` (422) for one that is refused,
    ``push_off`` (404) with push off."""
    try:
        await notifier.subscribe(room_code=code, token_hash=token_hash,
                                 subscription=subscription if isinstance(subscription, dict) else {},
                                 language=language)
    except RefusedUrl as refused:
        raise RoomError(ErrorCode.PUSH_ENDPOINT_REFUSED, problem("push_endpoint_refused"), status=422) from refused
    except PushOff:
        raise RoomError(ErrorCode.PUSH_OFF, problem("push_off"), status=404) from None


async def _unsubscribe(notifier: Notifier, code: str, token_hash: str, subscription: object) -> None:
    """Forget the seat's subscription at ``subscription``'s endpoint; ``bad_request`` (422) without one."""
    endpoint = subscription.get("endpoint") if isinstance(subscription, dict) else None
    if not isinstance(endpoint, str):
        raise RoomError(ErrorCode.BAD_REQUEST, problem("push_subscription"), status=422)
    await notifier.unsubscribe(room_code=code, token_hash=token_hash, endpoint=endpoint)


SUBSCRIBED: dict[int | str, dict[str, Any]] = {201: {"description": "The subscription is kept (or renewed). No body."}}


@router.post("/rooms/{code}/push", status_code=201, response_class=Response, responses={
    **SUBSCRIBED, **refusals(ROOM, POSTED, UNKNOWN_TOKEN, PUSH_OFF, {
        422: "`push_endpoint_refused`: the endpoint is not on the server's list of push services, or the keys "
             "are not a browser's.",
    })})
async def subscribe_push(code: str, body: PushSeat, request: Request, registry: RegistryDep,
                         notifier: NotifierDep) -> Response:
    """Keep the browser's push ``subscription`` for the seat of ``token``: a push comes at each of its turns
    (docs/slow-tables.md), written in the request's ``Accept-Language``. Sending it again renews it."""
    pushing = _push_on(notifier)
    room_code, token_hash = _seat_hash(registry, code, body.token)
    await _subscribe(pushing, room_code, token_hash, body.subscription, api_language(request))
    return Response(status_code=201)


@router.delete("/rooms/{code}/push", status_code=204, response_class=Response, responses={
    204: {"description": "The subscription is forgotten (or was not known). No body."},
    **refusals(ROOM, POSTED, UNKNOWN_TOKEN, PUSH_OFF)})
async def unsubscribe_push(code: str, body: PushSeat, registry: RegistryDep, notifier: NotifierDep) -> Response:
    """Forget the seat's subscription at ``subscription.endpoint``; 204 also when it was not known."""
    pushing = _push_on(notifier)
    room_code, token_hash = _seat_hash(registry, code, body.token)
    await _unsubscribe(pushing, room_code, token_hash, body.subscription)
    return Response(status_code=204)


@get_and_head(router, "/push/key", responses={
    200: {"description": "The key pages give `pushManager.subscribe` as its `applicationServerKey`.",
          "content": {"application/json": {"schema": {
              "type": "object", "required": ["public_key"], "additionalProperties": False,
              "properties": {"public_key": {"type": "string", "description": "The server's VAPID public key: "
                                            "an uncompressed P-256 point (65 bytes), unpadded base64url."}}}}}},
    **refusals(PUSH_OFF)})
async def push_key(notifier: NotifierDep) -> dict[str, Any]:
    """The server's VAPID public key, ``{"public_key": …}``; ``push_off`` (404) with push off."""
    return {"public_key": _push_on(notifier).public_key}


async def _subscription_json(request: Request) -> object:
    """The page's body, parsed JSON; ``bad_request`` (422) when it is not JSON."""
    try:
        return await request.json()
    except ValueError:
        raise RoomError(ErrorCode.BAD_REQUEST, problem("request_not_json"), status=422) from None


def _page_seat(registry: RoomRegistry, conn: HTTPConnection, code: str) -> tuple[str, str]:
    """The seat of the request's seat cookie at room ``code`` (:func:`_seat_hash`)."""
    return _seat_hash(registry, code, seat_token(conn, code))


@pages.post("/r/{code}/push", name="subscribe_push_page", status_code=201)
async def subscribe_push_page(code: str, request: Request, registry: RegistryDep, notifier: NotifierDep) -> Response:
    """The table page's subscription (the PushSubscription JSON as the body) for the seat of its cookie, in
    the page's language; answered as :func:`subscribe_push` answers."""
    pushing = _push_on(notifier)
    room_code, token_hash = _page_seat(registry, request, code)
    await _subscribe(pushing, room_code, token_hash, await _subscription_json(request), visitor_language(request))
    return Response(status_code=201)


@pages.delete("/r/{code}/push", name="unsubscribe_push_page", status_code=204)
async def unsubscribe_push_page(code: str, request: Request, registry: RegistryDep,
                                notifier: NotifierDep) -> Response:
    """The table page's "no more pushes" for the seat of its cookie; answered as :func:`unsubscribe_push`."""
    pushing = _push_on(notifier)
    room_code, token_hash = _page_seat(registry, request, code)
    await _unsubscribe(pushing, room_code, token_hash, await _subscription_json(request))
    return Response(status_code=204)
