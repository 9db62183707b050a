"""The match history pages: the list of finished matches and one match with its replay."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.api.deps import StorageDep
from app.api.routing import get_and_head
from app.common.identity import is_match_id
from app.common.names import form_number
from app.pages.match_views import match_detail
from app.pages.rendering import templates
from app.storage import MAX_PAGE

router = APIRouter()


@get_and_head(router, "/matches", response_class=HTMLResponse, name="matches_page")
async def matches_page(request: Request, storage: StorageDep, page: str = "1") -> Response:
    """Finished matches, newest first, 20 to a page (a page number out of range shows the nearest page)."""
    number = form_number(page)
    number = min(max(number, 1), MAX_PAGE) if isinstance(number, int) else 1
    result = await asyncio.to_thread(storage.list_matches, page=number, per_page=20)
    return templates.TemplateResponse(request, "matches.html", {"page": result})


@get_and_head(router, "/matches/{match_id}", response_class=HTMLResponse, name="match_page")
async def match_page(match_id: str, request: Request, storage: StorageDep) -> Response:
    """One finished match: standings per deal, a chart of totals, and a replay of every deal (404 for anything else)."""
    finished = await asyncio.to_thread(storage.finished_match, match_id) if is_match_id(match_id) else None
    record = await asyncio.to_thread(storage.match_record, match_id) if finished else None
    if finished is None or record is None:
        return templates.TemplateResponse(request, "match_missing.html", {"match_id": match_id}, status_code=404)
    analysis = await asyncio.to_thread(storage.match_analysis, match_id)
    detail = await asyncio.to_thread(match_detail, finished, record, analysis)
    return templates.TemplateResponse(request, "match.html", {"detail": detail})
