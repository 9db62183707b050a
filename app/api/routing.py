"""Registering a route that is read: GET, and HEAD answered alike without the body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def get_and_head(router: APIRouter, path: str, **options: Any) -> Callable[[Endpoint], Endpoint]:
    """A decorator registering its endpoint on ``router`` for GET ``path`` (with FastAPI's route ``options``:
    ``name``, ``response_class``…) and for HEAD, which FastAPI answers as GET without the body.

    Uptime monitors and ``curl -I`` ask with HEAD; a GET route alone answers it 405. The HEAD route is kept
    out of the OpenAPI schema, where it would repeat the GET operation.
    """

    def register(endpoint: Endpoint) -> Endpoint:
        registered = router.get(path, **options)(endpoint)
        router.head(path, include_in_schema=False)(endpoint)
        return registered

    return register
