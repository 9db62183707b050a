"""Who may keep a response, and for how long: the ``Cache-Control`` (and ``Vary``) of every HTTP response,
decided here alone, by what the response depends on.

Every route is named in :data:`ROUTE_POLICIES` (a test lists them all, so a
new route cannot go without a decision); a response of no route, or of a
route not named, is kept by nobody. A file that must keep one URL (a service
worker script at the site's root, a web app manifest) is served by a route of
its own named there with :data:`ONE_URL`, which makes browsers and proxies ask
again before each use, rather than from ``/static`` under a hashed name.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.pages.assets import ASSETS


@dataclass(frozen=True, slots=True)
class Policy:
    """How a kind of response may be kept: its ``Cache-Control`` and, when it may be shared, the request headers
    (``Vary``) that choose among the copies kept."""

    cache_control: str
    vary: str | None = None


PRIVATE = Policy("private, no-store")
"""Kept by nobody, not even the browser: what depends on a seat cookie (a hand, a seat link, the host's
controls), sets a cookie, or says how the server is now (health, metrics)."""
ROOM_STATE = Policy("no-cache", vary="Accept-Language")
"""A room's state in JSON: it changes with every play, so it is never used without asking the server again."""
SHARED = Policy("public, max-age=30", vary="Cookie, Accept-Language")
"""A page the same for everyone who speaks one language (the home page, the rules, finished matches): anyone
may keep it briefly. By ``Cookie`` as well as ``Accept-Language``, as the language cookie chooses the page's
language; a response that sets a cookie is :data:`PRIVATE` however its route is named."""
IMMUTABLE = Policy("public, max-age=31536000, immutable")
"""A static file under the URL that names its content (:mod:`app.pages.assets`): it never changes."""
ONE_URL = Policy("no-cache")
"""A file whose URL stays the same when it changes (a static file by its plain name, a service worker
script, a manifest): kept, but checked with the server before each use."""

STATIC_ROUTE = "static"
"""The name of the ``/static`` mount, whose files are :data:`IMMUTABLE` under their current hashed name and
:data:`ONE_URL` under their plain name (the redirect from a name of another version, not a 200, is kept by
nobody)."""

ROUTE_POLICIES: dict[str, Policy | None] = {
    # Pages and reads the same for everyone (in one language).
    "home": SHARED,
    "rules_page": SHARED,
    "matches_page": SHARED,
    # "Your tables": the page is the same for everyone; its script reads each table (table_turn).
    "tables_page": SHARED,
    "match_page": SHARED,
    "list_matches": SHARED,
    "match_record": SHARED,
    "openapi": SHARED,
    "swagger_ui_html": SHARED,
    "swagger_ui_redirect": SHARED,
    # A finished match's analysis: it says "waiting" until the coach is done, so it is checked before each use.
    "match_analysis": ONE_URL,
    # A room as a spectator sees it, in JSON.
    "room_state": ROOM_STATE,
    # The table page reads the seat cookie; the forms and the API's posts set it (and answer with a token);
    # the page of a seat link takes a seat; the language switcher sets a cookie.
    "room_page": PRIVATE,
    "take_seat_page": PRIVATE,
    # One slow table as "Your tables" shows it to the browser whose seat cookie comes with the request.
    "table_turn": PRIVATE,
    "create_room": PRIVATE,
    "join_room": PRIVATE,
    "take_seat": PRIVATE,
    "create_room_form": PRIVATE,
    "join_room_form": PRIVATE,
    "take_seat_form": PRIVATE,
    "rooms_form_again": PRIVATE,
    "join_form_again": PRIVATE,
    "set_language": PRIVATE,
    # A seat's push subscription, by its token or its seat cookie.
    "subscribe_push": PRIVATE,
    "unsubscribe_push": PRIVATE,
    "subscribe_push_page": PRIVATE,
    "unsubscribe_push_page": PRIVATE,
    # The server's VAPID public key: the same for everyone, and for as long as the database keeps it.
    "push_key": ONE_URL,
    # How the server is now.
    "healthz": PRIVATE,
    "readyz": PRIVATE,
    "metrics_text": PRIVATE,
    # The installed app's files that keep one URL: the service worker script, the manifest and the offline
    # page (one per language in its URL; the worker keeps that one for when the network is gone).
    "service_worker": ONE_URL,
    "web_manifest": ONE_URL,
    "offline_page": ONE_URL,
    # WebSockets: no HTTP answer to keep.
    "protocol_socket": None,
    "room_socket": None,
    STATIC_ROUTE: None,  # by path: see STATIC_ROUTE
}
"""Each route's policy, by the route's name (``None`` for routes whose answer is not decided by name)."""

KEPT_STATUSES = frozenset({200, 304})
"""Only these may be kept; any other answer (a redirect, a refusal, an error) is :data:`PRIVATE`."""


def policy_for(route_name: str | None, path: str, status: int, *, sets_cookie: bool) -> Policy:
    """The policy of a response with ``status`` to a request for ``path`` that route ``route_name`` served
    (``None``: no route did), ``sets_cookie`` when the response sets one."""
    if sets_cookie or status not in KEPT_STATUSES:
        return PRIVATE
    if route_name == STATIC_ROUTE:
        return IMMUTABLE if ASSETS.is_current(path.removeprefix("/static/")) else ONE_URL
    return ROUTE_POLICIES.get(route_name or "") or PRIVATE


def served_by(scope: Scope) -> str | None:
    """The name of the route that served a request (its ``scope`` after routing), ``None`` when none did.

    FastAPI's routes leave themselves in the scope; the app's own Starlette routes (the schema, the API
    explorer) and the ``/static`` mount leave only what they call: a route's function is named as the route.
    """
    route = scope.get("route")
    if route is not None:
        return str(route.name)
    endpoint = scope.get("endpoint")
    if endpoint is ASSETS:
        return STATIC_ROUTE
    return getattr(endpoint, "__name__", None)


class CacheHeaders:
    """ASGI middleware: gives every HTTP response the ``Cache-Control`` of :func:`policy_for` (replacing any the
    route set) and the request headers its policy varies by (added to ``Vary``). WebSockets pass untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, deciding the headers of its response as it starts."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                policy = policy_for(served_by(scope), scope["path"], message["status"],
                                    sets_cookie="set-cookie" in headers)
                headers["Cache-Control"] = policy.cache_control
                if policy.vary is not None:
                    headers.add_vary_header(policy.vary)
            await send(message)

        await self.app(scope, receive, send_with_policy)
