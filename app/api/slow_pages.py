"""The pages of slow tables beside the table page: "Your tables", the slow tables this browser sits at, and
the small read of one table it is built from (whose turn, the deadline, whether it waits for this browser).

"Your tables" lists rooms from the codes this browser keeps (``localStorage``), never from seat tokens: its
page is the same for everyone, and each table's read goes to the room's own path, where its seat cookie
alone is sent.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api.deps import RegistryDep
from app.api.routing import get_and_head
from app.api.seat_cookies import seat_token
from app.common.identity import hash_token
from app.pages.rendering import templates
from app.rooms.frames import state_json

router = APIRouter()


@get_and_head(router, "/tables", response_class=HTMLResponse, name="tables_page")
async def tables_page(request: Request) -> Response:
    """"Your tables": the slow tables this browser sits at, each with its deadline and whether it waits for
    this browser. The page is the same for everyone; its script (``tables.js``) fills it from the room codes
    the browser kept when it took a seat, reading each table's :func:`table_turn`."""
    return templates.TemplateResponse(request, "tables.html", {})


@get_and_head(router, "/r/{code}/turn", name="table_turn")
async def table_turn(code: str, request: Request, registry: RegistryDep) -> dict[str, Any]:
    """One table as "Your tables" shows it, for the browser whose seat cookie comes with the request →
    ``{"code", "phase", "pace", "deadline", "turn", "seated", "your_turn"}``.

    ``pace`` is ``{"turn_hours": H}`` (``None`` for a live room), ``deadline`` the turn's deadline (UTC,
    ISO 8601 with ``Z``; ``None`` when nobody is to play), ``turn`` the name of the player to play (``None``
    when nobody is), ``seated`` whether this browser holds a seat there and ``your_turn`` whether that seat
    is to play. No hand and no token. 404 ``no_such_room`` when no open room has ``code``.
    """
    room = registry.require(code)
    token = seat_token(request, room.code)
    view = room.viewer_for(hash_token(token) if token else None).view()
    state = state_json(view)
    return {
        "code": view.code,
        "phase": view.phase,
        "pace": state.get("pace"),
        "deadline": state.get("deadline"),
        "turn": view.seats[view.turn].name if view.turn is not None else None,
        "seated": view.you_seat is not None,
        "your_turn": view.you_seat is not None and view.turn == view.you_seat,
    }
