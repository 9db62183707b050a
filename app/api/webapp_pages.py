"""The site as an installable app: the web app manifest in each language, the service worker, and the
offline page it shows in the visitor's language when a page cannot be fetched.

All three are served with ``Cache-Control: no-cache``: a browser asks again (cheaply, by their
``ETag``) each time, so that a new worker or manifest reaches it at once.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from app.api.routing import get_and_head
from app.pages.assets import ASSETS
from app.pages.rendering import templates
from app.pages.webapp import manifest, static_version
from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, speaking

router = APIRouter()

STATIC = Path(__file__).resolve().parent.parent / "static"
STATIC_VERSION = static_version(STATIC)
"""The version of the static files this process serves (read once: they do not change while it runs)."""

NO_CACHE = {"Cache-Control": "no-cache"}
NOTIFICATION_ICON = "icons/icon-192.png"
"""The icon of a turn notification (under ``app/static``)."""
MANIFEST_TYPE = "application/manifest+json"


def _fresh(request: Request, body: bytes, media_type: str, headers: dict[str, str] | None = None) -> Response:
    """``body`` with ``Cache-Control: no-cache``, an ``ETag`` of its content and ``headers``; a ``304``
    without the body when the request's ``If-None-Match`` names that tag already."""
    tag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {**NO_CACHE, "ETag": tag, **(headers or {})}
    if tag in (part.strip() for part in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


@get_and_head(router, "/manifest/{code}.webmanifest", name="web_manifest")
async def web_manifest(code: str, request: Request) -> Response:
    """The web app manifest in language ``code`` (``da``, ``en``…: its name and description), as
    ``application/manifest+json``; 404 for a language not spoken here. Every page links the one of its
    own language; all of them are one app (one ``id``)."""
    if code not in LANGUAGES:
        raise HTTPException(status_code=404)

    def static_path(path: str) -> str:
        return str(request.app.url_path_for("static", path=ASSETS.hashed(path)))

    body = JSONResponse(manifest(code, static_path, str(request.app.url_path_for("home")))).body
    return _fresh(request, bytes(body), MANIFEST_TYPE)


@get_and_head(router, "/sw.js", name="service_worker")
async def service_worker(request: Request) -> Response:
    """The service worker's script, at the root so that its scope is the whole site (template ``sw.js``).

    It is named by the static files' version (:func:`app.pages.webapp.static_version`): a change to any
    of them makes a new worker, which drops the old one's caches. It also shows a table's turn
    notifications (Web Push) and opens the table when one is clicked.
    """
    offline_pages = {code: str(request.app.url_path_for("offline_page", code=code)) for code in LANGUAGES}
    script = templates.get_template("sw.js").render(
        version=STATIC_VERSION, static_prefix=str(request.app.url_path_for("static", path="")),
        offline_pages=offline_pages, default_language=DEFAULT_LANGUAGE,
        room_path=str(request.app.url_path_for("room_page", code="CODE")),
        icon=str(request.app.url_path_for("static", path=ASSETS.hashed(NOTIFICATION_ICON))))
    return _fresh(request, script.encode(), "text/javascript; charset=utf-8")


@get_and_head(router, "/offline/{code}", response_class=HTMLResponse, name="offline_page")
async def offline_page(code: str, request: Request) -> Response:
    """The page the service worker shows in language ``code`` when a page cannot be fetched (no
    network): it says so, and comes back by itself when the network does. 404 for a language not
    spoken here."""
    if code not in LANGUAGES:
        raise HTTPException(status_code=404)
    with speaking(code):
        response = templates.TemplateResponse(request, "offline.html", {})
    return _fresh(request, bytes(response.body), "text/html; charset=utf-8", {"Content-Language": code})
