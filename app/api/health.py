"""What operators watch: ``GET /healthz`` (whether the process serves), ``GET /readyz`` (whether it
takes new rooms) and ``GET /metrics``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from app import __version__
from app.api.deps import MetricsDep, NodeDep, SettingsDep, client_address
from app.api.routing import get_and_head
from app.web.metrics import address_allowed

router = APIRouter()


class Readiness(BaseModel):
    """What ``/readyz`` answers: whether the process takes new rooms, and if not, why."""

    ready: bool
    process: str
    mode: str
    reason: str | None = None


@get_and_head(router, "/healthz")
async def healthz(node: NodeDep) -> dict[str, Any]:
    """200 while the server runs, with ``{"status": "ok", "version", "process", "mode", "rooms", "sockets",
    "relayed_sockets", "hosted_sockets", "draining"}``: this process's id, ``single`` or ``cluster``, the
    rooms it holds, the sockets of those rooms (relayed ones included), the sockets it relays to other
    processes, the sockets other processes relay to it."""
    return {"status": "ok", "version": __version__, **node.health()}


@get_and_head(router, "/readyz", responses={
    200: {"model": Readiness, "description": "The process takes new rooms."},
    503: {"model": Readiness, "description": "The process takes no new rooms now; `reason` says why."}})
async def readyz(node: NodeDep) -> JSONResponse:
    """200 ``{"ready": true, "process": …}`` when this process takes new rooms; 503 ``{"ready": false,
    "reason": …}`` when not: ``draining`` (handing its rooms over after SIGTERM), ``database_lease``
    (alone on its database, without its lease), ``redis`` (cluster mode, Redis unreachable)."""
    reason = node.readiness()
    body = {"ready": reason is None, "process": node.process, "mode": node.mode}
    if reason is not None:
        body["reason"] = reason
    return JSONResponse(body, status_code=200 if reason is None else 503)


@get_and_head(router, "/metrics", include_in_schema=False)
async def metrics_text(request: Request, metrics: MetricsDep, settings: SettingsDep) -> Response:
    """The server's metrics in the Prometheus text format, for a client address in
    ``metrics_allow`` (after a trusted proxy's ``X-Forwarded-For``). Raises ``HTTPException``
    (404, as for a path that does not exist) for anyone else."""
    if not address_allowed(client_address(request), settings.metrics_allow):
        raise HTTPException(status_code=404)
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)
