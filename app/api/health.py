"""What operators watch: ``GET /healthz`` (whether the process serves) and ``GET /metrics``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from app import __version__
from app.api.deps import MetricsDep, RegistryDep, SettingsDep, client_address
from app.metrics import address_allowed

router = APIRouter()


@router.get("/healthz")
async def healthz(registry: RegistryDep) -> dict[str, Any]:
    """200 with ``{"status": "ok", "rooms": n, "version": …}`` while the server runs."""
    return {"status": "ok", "rooms": len(registry.rooms), "version": __version__}


@router.get("/metrics", include_in_schema=False)
async def metrics_text(request: Request, metrics: MetricsDep, settings: SettingsDep) -> Response:
    """The server's metrics in the Prometheus text format, for a client address in
    ``metrics_allow`` (after a trusted proxy's ``X-Forwarded-For``). Raises ``HTTPException``
    (404, as for a path that does not exist) for anyone else."""
    if not address_allowed(client_address(request), settings.metrics_allow):
        raise HTTPException(status_code=404)
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)
