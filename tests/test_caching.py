"""Who may keep each response: every route has a decision, and each answers with it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, WebSocketRoute

from app.pages.assets import ASSETS
from app.web.caching import IMMUTABLE, ONE_URL, PRIVATE, ROOM_STATE, ROUTE_POLICIES, SHARED, Policy, policy_for
from tests.api.conftest import open_room
from tests.api.test_language import finished_match

EXPECTED: dict[tuple[str, str], Policy] = {
    # The same for everyone who speaks one language: kept briefly by anyone, by language.
    ("GET", "/"): SHARED,
    ("GET", "/rules"): SHARED,
    ("GET", "/matches"): SHARED,
    ("GET", "/tables"): SHARED,
    ("GET", "/matches/{match_id}"): SHARED,
    ("GET", "/api/matches"): SHARED,
    ("GET", "/api/matches/{match_id}/record"): SHARED,
    ("GET", "/api/matches/{match_id}/analysis"): ONE_URL,
    ("GET", "/sw.js"): ONE_URL,
    ("GET", "/api/push/key"): ONE_URL,
    ("GET", "/manifest/{code}.webmanifest"): ONE_URL,
    ("GET", "/offline/{code}"): ONE_URL,
    ("GET", "/api/openapi.json"): SHARED,
    ("GET", "/api/docs"): SHARED,
    ("GET", "/docs/oauth2-redirect"): SHARED,
    # A room's state in JSON (a spectator's): asked again each time.
    ("GET", "/api/rooms/{code}"): ROOM_STATE,
    # A seat cookie read or set, a token or a seat link shown, a cookie set, or the server's state now.
    ("GET", "/r/{code}"): PRIVATE,
    ("GET", "/r/{code}/take"): PRIVATE,
    ("GET", "/r/{code}/turn"): PRIVATE,
    ("POST", "/r/{code}/take"): PRIVATE,
    ("POST", "/r/{code}/join"): PRIVATE,
    ("GET", "/r/{code}/join"): PRIVATE,
    ("POST", "/rooms"): PRIVATE,
    ("GET", "/rooms"): PRIVATE,
    ("POST", "/api/rooms"): PRIVATE,
    ("POST", "/api/rooms/{code}/players"): PRIVATE,
    ("POST", "/api/rooms/{code}/take"): PRIVATE,
    ("POST", "/language"): PRIVATE,
    ("POST", "/api/rooms/{code}/push"): PRIVATE,
    ("DELETE", "/api/rooms/{code}/push"): PRIVATE,
    ("POST", "/r/{code}/push"): PRIVATE,
    ("DELETE", "/r/{code}/push"): PRIVATE,
    ("GET", "/healthz"): PRIVATE,
    ("GET", "/readyz"): PRIVATE,
    ("GET", "/metrics"): PRIVATE,
}
"""Every HTTP route but ``/static`` (by method and path; HEAD as GET) → the policy of its answer."""
SOCKETS = {"/api/rooms/{code}/ws", "/r/{code}/ws"}


def every_route(routes: list[BaseRoute]) -> Iterator[BaseRoute]:
    """The app's routes, those of the routers it includes too."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from every_route(included.routes)
        else:
            yield route


def test_every_route_has_a_decision_and_this_test_lists_it(site: TestClient) -> None:
    routes = list(every_route(site.app.routes))
    assert {route.name for route in routes} == set(ROUTE_POLICIES)  # type: ignore[attr-defined]
    served = {(method, route.path) for route in routes if not isinstance(route, WebSocketRoute)  # type: ignore[attr-defined]
              for method in getattr(route, "methods", None) or () if method != "HEAD"}
    assert served == set(EXPECTED)
    assert {route.path for route in routes if isinstance(route, WebSocketRoute)} == SOCKETS
    assert {route.path for route in routes if type(route).__name__ == "Mount"} == {"/static"}  # type: ignore[attr-defined]


def test_each_route_answers_with_its_policy(site: TestClient) -> None:
    _, match_id = finished_match(site)
    code, tokens = open_room(site, ["Ana", "Ben"])
    values = {"code": code, "match_id": match_id}
    bodies: dict[tuple[str, str], dict[str, Any]] = {
        ("POST", "/r/{code}/take"): {"data": {"secret": "nothing"}},
        ("POST", "/r/{code}/join"): {"data": {"name": "Cy"}},
        ("POST", "/rooms"): {"data": {"name": "Dag", "preset": "agurk"}},
        ("POST", "/api/rooms"): {"json": {"name": "Eve"}},
        ("POST", "/api/rooms/{code}/players"): {"json": {"name": "Fay"}},
        ("POST", "/api/rooms/{code}/take"): {"json": {"secret": "nothing"}},
        ("POST", "/language"): {"data": {"lang": "da", "next": "/"}},
    }
    for (method, template), policy in EXPECTED.items():
        path = template.format(**values)
        for asked in (method, "HEAD") if method == "GET" else (method,):
            site.cookies.clear()
            site.cookies.set(f"cucumber_{code}", tokens[0], domain="testserver.local", path=f"/r/{code}")
            answer = site.request(asked, path, follow_redirects=False, **bodies.get((method, template), {}))
            expected = policy if answer.status_code in (200, 304) else PRIVATE
            assert answer.headers["cache-control"] == expected.cache_control, (asked, path, answer.status_code)
            assert answer.headers.get("vary") == expected.vary, (asked, path)
    # The shared pages were answered as pages, not refusals (whose answers nobody keeps).
    site.cookies.clear()
    for path in ["/", "/rules", "/matches", "/tables", f"/matches/{match_id}", "/api/matches",
                 f"/api/matches/{match_id}/record", "/api/openapi.json", "/api/docs", f"/api/rooms/{code}"]:
        assert site.get(path).status_code == 200, path


def test_static_files_are_immutable_under_their_hash_and_checked_again_under_their_plain_name(
        site: TestClient) -> None:
    current = site.get(f"/static/{ASSETS.hashed('app.js')}")
    assert current.headers["cache-control"] == IMMUTABLE.cache_control == "public, max-age=31536000, immutable"
    assert "set-cookie" not in current.headers and "vary" not in current.headers
    again = site.get(f"/static/{ASSETS.hashed('app.js')}", headers={"if-none-match": current.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE.cache_control
    plain = site.get("/static/app.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == ONE_URL.cache_control == "no-cache"
    moved = site.get("/static/app.0123456789.js", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["cache-control"] == "private, no-store"
    assert site.get("/static/nothing.css").headers["cache-control"] == "private, no-store"


def test_the_policies_say_what_the_issue_asks() -> None:
    assert PRIVATE.cache_control == "private, no-store" and PRIVATE.vary is None
    assert ROOM_STATE.cache_control == "no-cache"
    assert SHARED.cache_control.startswith("public, max-age=") and SHARED.vary == "Cookie, Accept-Language"


@pytest.mark.parametrize("route", [name for name, policy in ROUTE_POLICIES.items() if policy is not None])
def test_a_response_that_sets_a_cookie_or_is_not_a_page_is_kept_by_nobody(route: str) -> None:
    assert policy_for(route, "/", 200, sets_cookie=True) is PRIVATE
    for status in (201, 303, 307, 400, 404, 405, 409, 429, 500, 503):
        assert policy_for(route, "/", status, sets_cookie=False) is PRIVATE
    assert policy_for(route, "/", 200, sets_cookie=False) is ROUTE_POLICIES[route]


def test_an_unknown_route_is_kept_by_nobody() -> None:
    assert policy_for(None, "/nothing", 200, sets_cookie=False) is PRIVATE
    assert policy_for("a_route_added_later", "/later", 200, sets_cookie=False) is PRIVATE


def test_the_language_cookie_alone_leaves_a_shared_page_shared_and_its_copies_apart(site: TestClient) -> None:
    site.cookies.set("cucumber_lang", "da")
    answer = site.get("/rules")
    assert answer.headers["cache-control"] == SHARED.cache_control and answer.headers["vary"] == SHARED.vary
    assert 'lang="da"' in answer.text
