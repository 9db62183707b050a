"""The JSON API for stored matches: the list of finished ones, their records and the coach's analyses."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query

from app.api.answers import READ, refusals
from app.api.deps import StorageDep
from app.api.routing import get_and_head
from app.common.identity import is_match_id
from app.rooms.errors import ErrorCode, RoomError
from app.storage import MAX_PAGE, MAX_PER_PAGE, FinishedMatch
from app.wording.errors import problem

router = APIRouter(prefix="/api")


@get_and_head(router, "/matches", responses=refusals(READ, {
    422: "`bad_request`: `page` or `per_page` is not a whole number in its range."}))
async def list_matches(storage: StorageDep, page: int = Query(1, ge=1, le=MAX_PAGE),
                       per_page: int = Query(20, ge=1, le=MAX_PER_PAGE)) -> dict[str, Any]:
    """Finished matches, newest first, one page at a time."""
    result = await asyncio.to_thread(storage.list_matches, page=page, per_page=per_page)
    return {
        "page": result.page,
        "pages": result.pages,
        "total": result.total,
        "matches": [match_json(item) for item in result.items],
    }


@get_and_head(router, "/matches/{match_id}/record", responses=refusals(READ, {
    404: "`no_such_match`: no finished match has this id."}))
async def match_record(match_id: str, storage: StorageDep) -> dict[str, Any]:
    """The ``cucumber-match/1`` record of a finished match (404 for any other id, or text that is not an id)."""
    record = await asyncio.to_thread(storage.match_record, match_id) if is_match_id(match_id) else None
    if record is None:
        raise RoomError(ErrorCode.NO_SUCH_MATCH, problem("no_such_match"), status=404)
    return record


@get_and_head(router, "/matches/{match_id}/analysis", responses=refusals(READ, {
    404: "`no_such_match`: no finished match has this id."}))
async def match_analysis(match_id: str, storage: StorageDep) -> dict[str, Any]:
    """The coach's analysis of a finished match (docs/coach.md): ``status`` (``waiting``, ``running``, ``done``
    or ``failed``), ``grades`` (one object per play, as ``cucumber analyse --json`` prints them) and
    ``accuracy`` per seat, both ``null`` until done. 404 for any id but a finished match's."""
    record = await asyncio.to_thread(storage.match_record, match_id) if is_match_id(match_id) else None
    if record is None:
        raise RoomError(ErrorCode.NO_SUCH_MATCH, problem("no_such_match"), status=404)
    analysis = await asyncio.to_thread(storage.match_analysis, match_id)
    return analysis or {"status": "waiting", "grades": None, "accuracy": None}


def match_json(item: FinishedMatch) -> dict[str, Any]:
    """One finished match of the list as JSON: id, times (ISO 8601), players, placings, winners, rules, deals."""
    return {
        "id": item.match_id,
        "started_at": item.started_at.isoformat() if item.started_at else None,
        "ended_at": item.ended_at.isoformat() if item.ended_at else None,
        "players": list(item.players),
        "placings": list(item.placings),
        "winners": list(item.winners),
        "preset": item.preset,
        "rules": item.rules,
        "deals": item.deals,
    }
