"""``GET /healthz``: whether the process serves and how many rooms it holds."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app import __version__
from app.api.deps import RegistryDep

router = APIRouter()


@router.get("/healthz")
async def healthz(registry: RegistryDep) -> dict[str, Any]:
    """200 with ``{"status": "ok", "rooms": n, "version": …}`` while the server runs."""
    return {"status": "ok", "rooms": len(registry.rooms), "version": __version__}
