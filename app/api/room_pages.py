"""A room's HTML pages: the table, its forms and its live WebSocket.

Forms post as plain HTML; the table then updates over the page's WebSocket,
which sends the regions of ``room.html`` that changed for that viewer.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request, WebSocket
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.api.deps import RegistryDep, SettingsDep, get_registry, get_settings, limited, public_base
from app.api.language import visitor_language
from app.api.routing import get_and_head
from app.api.seat_cookies import keep_or_end_seat_cookie, seat_token, set_seat_cookie
from app.api.sockets import accept_room_socket, admitted, heartbeat_seconds, link_url, player_token_hash, serve
from app.api.viewers import browser_viewer, remember_viewer
from app.common.identity import hash_token
from app.common.names import form_number
from app.config.settings import Settings
from app.pages.rendering import templates
from app.pages.rules_form import pace_from_form, rules_from_form
from app.pages.table import PageRenderer, first_page, live_context
from app.rooms.errors import RoomError
from app.rooms.messages import rules_from
from app.rooms.room import Room

router = APIRouter()

@router.post("/rooms", name="create_room_form", dependencies=[limited("rooms_created")])
async def create_room_form(request: Request, registry: RegistryDep, settings: SettingsDep) -> Response:
    """Open a room from the home page form and go to it, seated as host."""
    form = dict(await request.form())
    try:
        asked = rules_from_form(form)
        rules = rules_from(asked.get("preset"), asked.get("rules"))
        room, _, token = await registry.create(str(form.get("name", "")), rules)
    except RoomError as error:
        return templates.TemplateResponse(
            request, "home.html", {"error": error.message, "name": form.get("name"), "preset": form.get("preset")},
            status_code=error.status)
    return _seated_redirect(request, settings, room.code, token)


def _room_path(request: Request, code: str) -> str:
    """The room page's path: redirects stay relative, so they keep the scheme the browser used."""
    return str(request.app.url_path_for("room_page", code=code))


def _seated_redirect(request: Request, settings: Settings, code: str, token: str) -> Response:
    """303 to the room page, with the cookie that seats this browser there."""
    response = RedirectResponse(_room_path(request, code), status_code=303)
    set_seat_cookie(response, request, settings, code, token)
    return response


def _viewer_hash(request: Request, room: Room) -> str | None:
    """The token hash in the visitor's cookie for ``room`` (``None`` without one)."""
    token = seat_token(request, room.code)
    return hash_token(token) if token else None


def _page_context(request: Request, room: Room, settings: Settings, error: str | None = None,
                  typed_name: str = "") -> dict[str, Any]:
    """What ``room.html`` is rendered whole with, for the visitor whose cookie came with the request: their
    view of the room, each live region's value (``typed_name``: what a refused seat form held), the
    refusal's ``error``, and the page's constants."""
    viewer = room.viewer_for(_viewer_hash(request, room))
    return {
        "view": viewer.view(),
        **first_page(viewer, typed_name),
        "ws_path": request.app.url_path_for("room_socket", code=room.code),
        "room_url": f"{public_base(request, settings)}{request.app.url_path_for('room_page', code=room.code)}",
        "error": error,
        "heartbeat_ms": round(heartbeat_seconds(settings) * 1000),
        "chat_status": room.chat_status(),
        **live_context(request.app.url_path_for, settings.deal_pause_seconds, push_offered=settings.push_on)._asdict(),
    }


@get_and_head(router, "/r/{code}", response_class=HTMLResponse, name="room_page")
async def room_page(code: str, request: Request, registry: RegistryDep, settings: SettingsDep) -> Response:
    """A room's page: the lobby or the table, as this visitor may see it. Its seat cookie is renewed while
    the room knows it, and removed once the seat or the room has ended."""
    room = registry.get(code)
    if room is None:
        missing = templates.TemplateResponse(request, "missing.html", {"code": code}, status_code=404)
        keep_or_end_seat_cookie(missing, request, settings, code, None)
        return missing
    if room.code != code:
        return RedirectResponse(_room_path(request, room.code), status_code=308)
    response = templates.TemplateResponse(request, "room.html", _page_context(request, room, settings))
    remember_viewer(request, response, settings)  # the id it chats under while it watches
    keep_or_end_seat_cookie(response, request, settings, room.code, room)
    return response


@get_and_head(router, "/rooms", response_class=HTMLResponse, name="rooms_form_again")
async def rooms_form_again(request: Request) -> Response:
    """The address a refused home-page form leaves in the browser, opened again (history, a bookmark, a
    reload after the page was left): 303 to the home page, not a bare 405."""
    return RedirectResponse(str(request.app.url_path_for("home")), status_code=303)


@get_and_head(router, "/r/{code}/join", response_class=HTMLResponse, name="join_form_again")
async def join_form_again(code: str, request: Request) -> Response:
    """The address a refused seat form leaves in the browser (a name already taken), opened again: 303 to
    the room's page, which says whether the room is still open."""
    return RedirectResponse(_room_path(request, code), status_code=303)


@router.post("/r/{code}/join", name="join_room_form", dependencies=[limited("joins")])
async def join_room_form(code: str, request: Request, registry: RegistryDep, settings: SettingsDep,
                         name: str = Form("")) -> Response:
    """Take a seat from the room page's form, then return to the page.

    A browser already seated here (an old tab, a second click) goes back to its
    seat: a second seat would take its cookie, and with it the first seat. A
    host who gave up their seat sits down again as host, under the same cookie.
    """
    room = registry.get(code)
    if room is None:
        return templates.TemplateResponse(request, "missing.html", {"code": code}, status_code=404)
    viewer = _viewer_hash(request, room)
    if room.seat_of(viewer) is not None:
        return RedirectResponse(_room_path(request, room.code), status_code=303)
    host_token = seat_token(request, room.code) if room.knows(viewer) else None  # seatless: known as host
    try:
        _, token = await room.join(name, host_token)
    except RoomError as error:
        return templates.TemplateResponse(request, "room.html",
                                          _page_context(request, room, settings, error.message, name),
                                          status_code=error.status)
    return _seated_redirect(request, settings, room.code, token)


@get_and_head(router, "/r/{code}/take", response_class=HTMLResponse, name="take_seat_page")
async def take_seat_page(code: str, request: Request, registry: RegistryDep) -> Response:
    """The page a seat link opens: a button that takes the seat in this browser.

    The link's secret is in the URL's fragment, never sent here; the page's
    script puts it in the form.
    """
    room = registry.get(code)
    if room is None:
        return templates.TemplateResponse(request, "missing.html", {"code": code}, status_code=404)
    return templates.TemplateResponse(request, "take.html", {"code": room.code, "error": None})


@router.post("/r/{code}/take", name="take_seat_form", dependencies=[limited("joins")])
async def take_seat_form(code: str, request: Request, registry: RegistryDep, settings: SettingsDep,
                         secret: str = Form("")) -> Response:
    """Take the seat of the link whose ``secret`` the form sends, in this browser, then go to the table.

    A browser that already has a place here (a seat, or hosting) is refused
    (409): the new cookie would end it. A link that does not work gives its
    refusal (``invalid_link``, 404) on the page, and changes nothing.
    """
    room = registry.get(code)
    if room is None:
        return templates.TemplateResponse(request, "missing.html", {"code": code}, status_code=404)
    if room.knows(_viewer_hash(request, room)):
        return _take_refused(request, room, "This browser already has a place at this table. Open the link in "
                             "another browser, or in a private window.", 409)
    try:
        _, _, token = await room.take_seat(secret)
    except RoomError as error:
        return _take_refused(request, room, error.message, error.status)
    return _seated_redirect(request, settings, room.code, token)


def _take_refused(request: Request, room: Room, message: str, status: int) -> Response:
    return templates.TemplateResponse(request, "take.html", {"code": room.code, "error": message},
                                      status_code=status)


def translate_page_message(message: dict[str, Any]) -> dict[str, Any]:
    """A page's form message (htmx ``ws-send``) as a protocol message."""
    message = {key: value for key, value in message.items() if key != "HEADERS"}
    if message.get("type") == "set_rules":
        return {"type": "set_rules", **rules_from_form(message), **pace_from_form(message)}
    if message.get("type") == "set_vacation" and "days" in message:
        message["days"] = form_number(message["days"])
    if "seat" in message:
        message["seat"] = form_number(message["seat"])
    return message


@router.websocket_route("/r/{code}/ws", name="room_socket")  # a plain route, as app.api.sockets.protocol_socket
async def room_socket(websocket: WebSocket) -> None:
    """The table page's live connection: HTML regions out, form messages in, in the visitor's language
    (:func:`~app.api.language.visitor_language`, read once, at the handshake)."""
    code, registry, settings = websocket.path_params["code"], get_registry(websocket), get_settings(websocket)
    language = visitor_language(websocket)
    room = await accept_room_socket(websocket, code, registry, settings, language)
    if room is None:
        return
    token_hash = player_token_hash(websocket, room)
    if not await admitted(websocket, room, settings, token_hash, language):
        return
    renderer = PageRenderer(websocket.app.state.live_context, link_url=link_url(websocket, settings),
                             chat_status=room.chat_status)
    await serve(websocket, room, settings, token_hash, renderer, adapt=translate_page_message,
                language=language, viewer=browser_viewer(websocket))
