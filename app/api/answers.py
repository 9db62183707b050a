"""What the JSON API answers when it refuses, as its OpenAPI schema says it: the error body, and each route's
statuses with their error codes (docs/protocol.md, "HTTP API")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.rooms.errors import ErrorCode


class ErrorBody(BaseModel):
    """The body of every refusal of the JSON API: ``{"error": code, "message": why}``."""

    model_config = ConfigDict(extra="forbid")
    error: ErrorCode = Field(description="Stable code of the reason (docs/protocol.md lists every one).")
    message: str = Field(description="Why, in words, in the language of the request's Accept-Language.")


RETRY_AFTER = {"Retry-After": {"description": "Whole seconds to wait before asking again.",
                               "schema": {"type": "integer", "minimum": 1}}}
"""The header of a refusal that waiting ends (429, and 503 ``server_stopping`` and ``room_moving``)."""

READ = {503: "`storage_unavailable`: the database cannot be read now."}
"""Refusals of every read of stored matches."""
POSTED = {
    400: "`bad_request`: the body cannot be read (such as JSON nested too deeply).",
    403: "`cross_site`: the request comes from a page of another site.",
    422: "`bad_request`: the body is not a JSON object of the fields described, or a field is not of its type.",
    429: "`rate_limited`: this address sent too many requests; wait for `Retry-After` seconds.",
    503: "`server_stopping`: the server is stopping (it may be restarting); ask again after `Retry-After` "
         "seconds. `storage_unavailable`: the database cannot be written now.",
}
"""Refusals of every request that may change something (any method but GET and HEAD)."""
ROOM = {
    404: "`no_such_room`: no open room has this code.",
    503: "`room_moving`: the room is moving to another server process; ask again after `Retry-After` seconds.",
}
"""Refusals of every route of one room (its code in the path)."""


def refusals(*groups: Mapping[int, str]) -> dict[int | str, dict[str, Any]]:
    """A route's ``responses`` for FastAPI: each status of ``groups`` (their reasons joined, the later ones
    after the earlier), with :class:`ErrorBody` as its body and, for 429 and 503, the ``Retry-After``
    header. A 422 among them replaces FastAPI's own (whose body the app never sends)."""
    reasons: dict[int, list[str]] = {}
    for group in groups:
        for status, reason in group.items():
            reasons.setdefault(status, []).append(reason)
    answers: dict[int | str, dict[str, Any]] = {}
    for status in sorted(reasons):
        answer: dict[str, Any] = {"model": ErrorBody, "description": " ".join(reasons[status])}
        if status in (429, 503):
            answer["headers"] = RETRY_AFTER
        answers[status] = answer
    return answers


VALIDATION_ERROR = "#/components/schemas/HTTPValidationError"
BAD_REQUEST = "`bad_request`: a parameter or the body is not of the type described."


def error_bodies(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI ``schema`` FastAPI made, with its own 422 answers (``{"detail": […]}``, which the app never
    sends: it answers :class:`ErrorBody`) described as the app answers them, or left out where no request can
    be unfit (:func:`can_be_unfit`), and their models left out."""
    error = {"$ref": f"#/components/schemas/{ErrorBody.__name__}"}
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            answer = operation.get("responses", {}).get("422")
            if answer is None or answer["content"]["application/json"]["schema"] != {"$ref": VALIDATION_ERROR}:
                continue
            if can_be_unfit(operation):
                operation["responses"]["422"] = {"description": BAD_REQUEST,
                                                 "content": {"application/json": {"schema": error}}}
            else:
                del operation["responses"]["422"]
    models = schema.get("components", {}).get("schemas", {})
    models.pop("HTTPValidationError", None)
    models.pop("ValidationError", None)
    models.setdefault(ErrorBody.__name__, ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}"))
    return schema


def can_be_unfit(operation: dict[str, Any]) -> bool:
    """Whether a request to OpenAPI ``operation`` can fail its parameters' or body's types (a 422): it has a
    body, or a parameter other than text in the path (any text is a path's part; a code or an id that names
    nothing is a 404)."""
    return "requestBody" in operation or any(
        parameter["in"] != "path" or set(parameter["schema"]) - {"title"} != {"type"}
        or parameter["schema"]["type"] != "string" for parameter in operation.get("parameters", ()))
