"""Registering a route that is read (GET, and HEAD answered alike without the body), and the methods an
address takes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import Scope

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
"""The methods an address may be said to take (``Allow``), in alphabetical order."""


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


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> str | None:
    """The ``Allow`` header of an HTTP request's path: every method of :data:`METHODS` some route of
    ``routes`` serves there (``"GET, HEAD, POST"``, in alphabetical order), ``None`` when none does (a mount's
    files answer their own).

    Starlette's own 405 names the methods of the first route of the path alone, and a path often has
    several (one for GET, one for HEAD, one for POST)."""
    allowed = [method for method in METHODS
               if any(not isinstance(route, Mount) and route.matches({**scope, "method": method})[0] == Match.FULL
                      for route in routes)]
    return ", ".join(allowed) or None
