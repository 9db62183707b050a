"""The web application: routes, templates, and the shared objects of its lifespan.

``app`` is what ``uvicorn app.main:app`` (and ``cucumber serve``) runs;
tests build their own with :func:`create_app` and their own settings.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from websockets.frames import Frame

from app.api import (
    health,
    language,
    match_api,
    match_pages,
    push_api,
    room_api,
    room_pages,
    site_pages,
    slow_pages,
    sockets,
    webapp_pages,
)
from app.api.answers import error_bodies
from app.api.deps import guard_posts
from app.api.language import SpeakTheVisitorsLanguage
from app.api.routing import allowed_methods
from app.api.seat_cookies import MoveOldSeatCookies
from app.api.stopping import AnswerAtStop, ServerStopping, stopping
from app.api.waking import WakeRooms
from app.cluster.node import ClusterUnavailable, Node
from app.cluster.relay import RelayMiddleware
from app.cluster.sole import LeaseHeld
from app.coach.worker import AnalysisWorkers
from app.config.settings import Settings
from app.notify import Notifier
from app.pages.assets import ASSETS
from app.pages.rendering import templates
from app.pages.table import live_context
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.persistence import RoomStore
from app.storage import Storage, StorageError
from app.web.caching import CacheHeaders
from app.web.metrics import Metrics
from app.web.ratelimit import RateLimiter
from app.web.security import Refused, SecurityHeaders, unserved
from app.wording.errors import problem, request_problems
from app.wording.language import load_catalogues

log = logging.getLogger(__name__)


class HideFrames(logging.Filter):
    """Keeps WebSocket frames out of the log: at debug level the WebSocket layer under uvicorn
    logs each frame's text, which holds players' tokens, their hands and seat links."""

    def filter(self, record: logging.LogRecord) -> bool:
        """``False`` (drop it) for a record that shows a frame."""
        args = record.args if isinstance(record.args, tuple) else ()
        return not (record.msg in ("< %s", "> %s") and args and isinstance(args[0], Frame))


HIDE_FRAMES = HideFrames()
FRAME_LOGGER = "uvicorn.error"
"""The logger uvicorn gives the WebSocket layer."""

MACHINE_PATHS = frozenset({"/healthz", "/readyz"})
"""Addresses read by programs, not people, outside ``/api``: their refusals are JSON, as the API's are.
``/metrics`` is not one: to a client it does not allow, it must look like any address nobody serves."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the application for ``settings`` (read from the environment when omitted).

    At start-up it applies pending database migrations, takes its place
    (:class:`~app.cluster.node.Node`: alone, the database's lease and every
    open room; in a cluster, Redis), starts the idle-room sweeper, and keeps
    WebSocket frames out of the log (:class:`HideFrames`). Requests
    from a proxy in ``settings.trusted_proxies`` carry the client's address
    and scheme from its ``X-Forwarded-For``/``-Proto`` headers; from anyone
    else those headers are ignored. Its metrics (``app.state.metrics``) are
    its own, on a registry of their own.
    """
    settings = settings or Settings()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        """Compile the translations, build storage, the room registry and the limiter on start; stop the rooms
        and close storage on exit."""
        await asyncio.to_thread(load_catalogues)
        logging.getLogger(FRAME_LOGGER).addFilter(HIDE_FRAMES)  # adding it twice keeps one
        storage = Storage(settings.database_url, commit_window=settings.commit_window_seconds,
                          commit_window_load=settings.commit_window_load)
        await asyncio.to_thread(storage.upgrade)
        node = Node(settings, RoomStore(storage, observer=metrics))
        registry = node.registry
        # Before the rooms are restored: a slow room's reminder that fell due while the server was down goes now.
        notifier = await Notifier.start(settings, storage, on_push=metrics.push_answered,
                                        on_webhook=metrics.webhook_posted)
        registry.notifier = notifier
        metrics.count_rooms(lambda: len(registry.rooms))
        try:
            restored = await node.start()
        except (LeaseHeld, ClusterUnavailable) as error:
            log.error("cannot start: %s", error)
            await notifier.close()
            storage.close()
            raise
        if restored:
            log.info("restored %d room(s) from storage", restored)
        log.info("process %s runs in %s mode", node.process, node.mode)
        if node.relay is not None:
            node.relay.app = app
        registry.start_sweeping()
        if notifier.push_enabled:
            log.info("push notifications are on")
        app.state.settings, app.state.storage, app.state.registry = settings, storage, registry
        app.state.notifier = notifier
        app.state.node = node
        app.state.limiter = limiter = RateLimiter.from_settings(settings, on_limited=metrics.limit_hit,
                                                                on_shared=metrics.limits_sharing)
        metrics.limits_sharing(limiter.sharing)
        coach = AnalysisWorkers(settings.database_url, settings.analysis_workers, node.process)
        started = await asyncio.to_thread(coach.start)
        if started:
            log.info("the coach analyses finished matches in %d worker process(es)", started)
        try:
            yield
        finally:
            await asyncio.to_thread(coach.stop, storage)
            await notifier.close()
            await node.stop()
            await limiter.close()
            storage.close(timeout=node.time_left())

    app = FastAPI(title="Cucumber", lifespan=lifespan, docs_url="/api/docs", redoc_url=None,
                  openapi_url="/api/openapi.json", dependencies=[Depends(guard_posts)])
    app.state.settings, app.state.metrics = settings, metrics

    def openapi() -> dict[str, Any]:
        """The JSON API's schema, made once, with the refusals described as the app answers them."""
        if app.openapi_schema is None:
            app.openapi_schema = error_bodies(FastAPI.openapi(app))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    # One for every page socket: each used to hold a copy of its own.
    app.state.live_context = live_context(app.url_path_for, settings.deal_pause_seconds,
                                                     push_offered=settings.push_on)

    @app.exception_handler(RoomError)
    async def room_error(request: Request, error: RoomError) -> JSONResponse:
        """A refused action as ``{"error": code, "message": …}`` with its status (and ``Retry-After`` when
        waiting helps)."""
        headers = None if error.retry_after is None else {"Retry-After": str(error.retry_after)}
        return JSONResponse({"error": error.code, "message": error.message}, status_code=error.status,
                            headers=headers)

    @app.exception_handler(Refused)
    async def refused(request: Request, error: Refused) -> Response:
        """A refused request (another site's post, a limit): JSON under ``/api`` and at the operators'
        addresses (:data:`MACHINE_PATHS`), a page elsewhere, with ``Retry-After`` when waiting helps."""
        if request.url.path.startswith("/api/") or request.url.path in MACHINE_PATHS:
            return JSONResponse({"error": error.code, "message": error.message}, status_code=error.status,
                                headers=error.headers)
        return templates.TemplateResponse(request, "refused.html", {"error": error}, status_code=error.status,
                                          headers=error.headers)

    @app.exception_handler(HTTPException)
    async def not_served(request: Request, error: HTTPException) -> Response:
        """An address no route serves (404), a method it does not take (405) or a body that cannot be read
        (400), answered as :func:`refused` answers a refusal rather than as a bare ``{"detail": …}``."""
        allow = None
        if error.status_code == 405:
            allow = allowed_methods(request.app.router.routes, request.scope) or (error.headers or {}).get("Allow")
        return await refused(request, unserved(request.method, error.status_code, allow))

    @app.exception_handler(ServerStopping)
    async def server_stopping(request: Request, error: ServerStopping) -> Response:
        """A request whose body was still arriving when the stop began (:class:`AnswerAtStop`): 503
        ``server_stopping``, with ``Retry-After``."""
        return await refused(request, stopping())

    @app.exception_handler(StorageError)
    async def storage_error(request: Request, error: StorageError) -> JSONResponse:
        """A database failure while reading: 503, nothing else said."""
        return JSONResponse({"error": ErrorCode.STORAGE_UNAVAILABLE, "message": str(problem("storage_read"))},
                            status_code=503)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        """A request that does not fit its route: 422 with what was wrong, in one line, in the request's
        language."""
        problems = "; ".join(dict.fromkeys(str(fault) for fault in request_problems(error.errors())))
        return JSONResponse({"error": ErrorCode.BAD_REQUEST, "message": problems}, status_code=422)

    app.include_router(health.router)
    app.include_router(room_api.router)
    app.include_router(match_api.router)
    app.include_router(push_api.router)
    app.include_router(sockets.router)
    # The schema (/api/openapi.json) is the JSON API's alone: the pages and their forms stay out of it.
    app.include_router(site_pages.router, include_in_schema=False)
    app.include_router(room_pages.router, include_in_schema=False)
    app.include_router(match_pages.router, include_in_schema=False)
    app.include_router(language.router, include_in_schema=False)
    app.include_router(webapp_pages.router, include_in_schema=False)
    app.include_router(push_api.pages, include_in_schema=False)
    app.include_router(slow_pages.router, include_in_schema=False)
    app.mount("/static", ASSETS, name="static")
    app.add_middleware(SpeakTheVisitorsLanguage)
    app.add_middleware(SecurityHeaders, docs_path=app.docs_url)
    app.add_middleware(MoveOldSeatCookies, settings=settings)
    app.add_middleware(CacheHeaders)  # outside what may set a cookie: a response that sets one is private
    if settings.cluster:
        # Outside the pages' headers and language (the owner adds its own), inside the proxy headers
        # (a relayed request carries the client's own address and scheme).
        app.add_middleware(RelayMiddleware)
    else:
        app.add_middleware(WakeRooms)  # a slow room asleep in the database wakes for whoever asks for it
    # Around the relay too, which reads a relayed request's body before anything else.
    app.add_middleware(AnswerAtStop)
    # Outermost, so that every route and middleware sees the client's own address and scheme.
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    return app


app = create_app()
