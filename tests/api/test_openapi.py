"""The API schema (``/api/openapi.json``) is exactly the JSON API: schemathesis, in-process over ASGI with its
default checks, finds nothing against it; every route under ``/api`` is in it; its refusals are described."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from typing import Any

import jsonschema_rs
import schemathesis
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test
from schemathesis.core.parameters import ParameterLocation

from app.api.room_api import PLAYER_NAME
from app.common.names import NAME_MAX, InvalidName, clean_name
from app.config.settings import Settings
from app.main import create_app

SEED = 37
"""The seed of every run of the schemathesis tests, so that a run repeats the one before (pass
``--hypothesis-seed`` to try others)."""
EXAMPLES = 50
"""Cases generated for each operation in each phase (schemathesis' own default is 100)."""
WORKFLOWS = 20
"""Sequences of linked calls generated."""

_FOLDER = tempfile.mkdtemp(prefix="cucumber-openapi-")
atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)
APP = create_app(Settings(database_url=f"sqlite:///{_FOLDER}/openapi.db", rate_limits=False,
                          deal_pause_seconds=0.0, bot_delay_seconds=0.0))
"""The app schemathesis calls: its own database, limits off (schemathesis sends hundreds of requests from
one address). Schemathesis runs its lifespan for each operation's test."""


def served_schema() -> dict[str, Any]:
    """The schema as ``GET /api/openapi.json`` serves it (the route needs nothing of the lifespan)."""
    answer = TestClient(APP).get("/api/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def is_name(text: str) -> bool:
    try:
        clean_name(text)
    except InvalidName:
        return False
    return True


NAMES = st.text(st.characters(categories=("L", "M", "N", "P", "S", "Zs")), min_size=1,
                max_size=NAME_MAX).filter(is_name)
"""Names a player may have (``format: player-name``), drawn from the characters names are made of."""

schemathesis.openapi.format(PLAYER_NAME, NAMES)
SERVED = served_schema()
SCHEMA = schemathesis.openapi.from_dict(SERVED)
SCHEMA.app = APP  # called in-process, over ASGI (as schemathesis.openapi.from_asgi does)


def body_is_valid(operation: dict[str, Any], body: Any) -> bool:
    """Whether ``body`` is one the request body schema of ``operation`` (from :data:`SERVED`) allows, its
    names checked as the server checks them."""
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    validator = jsonschema_rs.validator_for({**schema, "components": SERVED["components"]},
                                            formats={PLAYER_NAME: is_name}, validate_formats=True)
    return validator.is_valid(body)


@SCHEMA.hook
def filter_case(context: schemathesis.HookContext, case: schemathesis.Case) -> bool:
    """Leave out a case meant to have a body the schema does not allow whose body the schema allows after all.

    Schemathesis cannot tell a name (``format: player-name``) from any other text: to break that format, it
    draws any text and takes it for a bad name, which it may not be ("0"). A case whose body breaks nothing
    else is then no case of a bad body, and the server rightly takes it.
    """
    meta = case.meta
    body = meta.components.get(ParameterLocation.BODY) if meta is not None else None
    if body is None or not body.mode.is_negative or not isinstance(case.body, dict):
        return True  # no body, one meant to be allowed, or not a JSON object: nothing a name can change
    operation = SERVED["paths"][case.operation.path][case.method.lower()]
    return not body_is_valid(operation, case.body)


@SCHEMA.parametrize()
@seed(SEED)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_answers_as_its_schema_says(case: schemathesis.Case) -> None:
    case.call_and_validate()


Workflows = seed(SEED)(SCHEMA.as_state_machine())
"""Sequences of calls that follow the schema's links: open a room, then read it and take seats in it."""


def test_calls_that_follow_the_links_answer_as_the_schema_says() -> None:
    run_state_machine_as_test(Workflows, settings=settings(max_examples=WORKFLOWS, stateful_step_count=6,
                                                           deadline=None, suppress_health_check=list(HealthCheck)))


def methods_by_path(app: Any) -> dict[str, set[str]]:
    """Every HTTP address (path) a route of ``app`` serves, with the methods served there."""
    methods: dict[str, set[str]] = {}
    for route in iter_route_contexts(app.routes):
        if route.methods:
            methods.setdefault(route.path, set()).update(route.methods)
    return methods


def api_operations(app: Any) -> set[tuple[str, str]]:
    """Every ``(METHOD, path)`` a route under ``/api`` serves over HTTP (HEAD aside: it is GET's twin, and the
    API's documentation page and schema aside)."""
    return {(method, path) for path, methods in methods_by_path(app).items()
            if path.startswith("/api/") and path not in (APP.docs_url, APP.openapi_url)
            for method in methods if method != "HEAD"}


def test_every_route_of_the_api_is_in_the_schema_and_tested() -> None:
    assert {("POST", "/api/rooms"), ("GET", "/api/matches")} <= api_operations(APP)
    served = served_schema()
    documented = {(method.upper(), path) for path, item in served["paths"].items() for method in item}
    assert api_operations(APP) <= documented
    operations = [result.ok() for result in SCHEMA.get_all_operations()]  # an operation it cannot test raises
    tested = {(operation.method.upper(), operation.path) for operation in operations}
    assert api_operations(APP) <= tested


def test_the_schema_has_no_page_and_no_form() -> None:
    served = served_schema()
    assert all(path.startswith("/api/") or path in ("/healthz", "/readyz") for path in served["paths"])
    for item in served["paths"].values():
        for operation in item.values():
            for answer in operation["responses"].values():
                assert set(answer.get("content", {"application/json": None})) == {"application/json"}
            assert set(operation.get("requestBody", {}).get("content", {"application/json": None})) == {
                "application/json"}


def test_every_refusal_is_described_with_the_error_body() -> None:
    served = served_schema()
    error = {"$ref": "#/components/schemas/ErrorBody"}
    for path, item in served["paths"].items():
        if not path.startswith("/api/"):
            continue
        for method, operation in item.items():
            refusals = {status: answer for status, answer in operation["responses"].items() if status >= "400"}
            assert refusals, (method, path)
            for status, answer in refusals.items():
                assert answer["content"]["application/json"]["schema"] == error, (method, path, status)
                assert "`" in answer["description"], (method, path, status)  # names its error codes
            if method == "post":
                assert {"400", "403", "422", "429", "503"} <= set(refusals), path
                assert "Retry-After" in refusals["429"]["headers"]
    # A code or an id in the path is any text: no request for them is unfit (422), only one for nothing (404).
    assert "422" not in served["paths"]["/api/rooms/{code}"]["get"]["responses"]
    assert "422" in served["paths"]["/api/matches"]["get"]["responses"]


def test_a_request_body_says_what_the_route_takes() -> None:
    create = served_schema()["components"]["schemas"]["CreateRoom"]
    assert create["required"] == ["name"]
    assert create["properties"]["name"]["type"] == "string"  # never null: the route refuses it
    assert create["additionalProperties"] is False
    rules = create["properties"]["rules"]["anyOf"][0]
    assert rules["properties"]["hand_size"] == {"type": "integer", "minimum": 3, "maximum": 7}
    assert rules["additionalProperties"] is False


def test_a_whole_number_written_with_a_point_is_that_number(client: TestClient) -> None:
    answer = client.post("/api/rooms", json={"name": "Ana", "rules": {"hand_size": 5.0, "threshold": 30}})
    assert answer.status_code == 201
    state = client.get(f"/api/rooms/{answer.json()['code']}").json()["state"]
    assert state["rules"]["hand_size"] == 5 and isinstance(state["rules"]["hand_size"], int)
    refused = client.post("/api/rooms", json={"name": "Ana", "rules": {"hand_size": 5.5}})
    assert refused.status_code == 422 and refused.json()["error"] == "invalid_rules"


def test_a_method_an_address_does_not_take_is_answered_with_every_method_it_does(client: TestClient) -> None:
    addresses = methods_by_path(client.app)
    assert addresses["/rooms"] == {"GET", "HEAD", "POST"} and addresses["/api/rooms/{code}"] == {"GET", "HEAD"}
    for path, methods in addresses.items():
        address = path.replace("{code}", "ABCDE").replace("{match_id}", "m" * 16)
        allow = ", ".join(sorted(methods))
        for method in {"OPTIONS", "PUT", "DELETE", "PATCH", "GET", "POST"} - methods:
            answer = client.request(method, address)
            assert answer.status_code == 405, (method, path)
            assert answer.headers["allow"] == allow, (method, path)
            if path.startswith("/api/") and path != client.app.docs_url:  # type: ignore[attr-defined]
                assert answer.json()["error"] == "method_not_allowed"


def test_a_body_is_told_valid_by_its_names_as_the_server_tells_them() -> None:
    create = SERVED["paths"]["/api/rooms"]["post"]
    assert body_is_valid(create, {"name": "0"}) and body_is_valid(create, {"name": " Ana  Lee "})
    assert not body_is_valid(create, {"name": "\x00"}) and not body_is_valid(create, {"name": " "})
    assert not body_is_valid(create, {"name": "Ana", "rules": {"lives": 4}})
