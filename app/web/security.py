"""What every response tells the browser (a Content-Security-Policy and the other security
headers), and the refusal of requests from other sites or over a limit.

The pages run scripts only from this server and the two pinned htmx files, talk only
to this server (its WebSockets included), and may be framed only by this site.
"""

from __future__ import annotations

import re

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.pages.rendering import HTMX_URL, HTMX_WS_URL
from app.rooms.errors import ErrorCode
from app.wording.errors import Problem, problem

HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
"""A ``Host`` header fit to stand in a policy: a name or an address, and a port."""

SITE_POLICY = {
    "default-src": "'self'",
    "script-src": f"'self' {HTMX_URL} {HTMX_WS_URL}",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'self'",
}
"""The policy of every page the site renders: no inline script or style at all."""

DOCS_POLICY = {
    **SITE_POLICY,
    # FastAPI's API explorer (/api/docs) starts Swagger UI with an inline script and draws
    # with inline styles, from its own CDN; the page shows no data of ours.
    "script-src": "'self' https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/ 'unsafe-inline'",
    "style-src": "'self' https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/ 'unsafe-inline'",
    "img-src": "'self' data: https://fastapi.tiangolo.com",
}

OTHER_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class Refused(Exception):
    """A request the server will not serve, for a reason that is not the request's content.

    ``code`` is the stable error code (``cross_site``, ``rate_limited``), ``status``
    the HTTP status (403, 429) and ``retry_after`` the seconds to wait, if waiting helps;
    ``words`` say why, as ``message`` in the language of the request that reads it;
    ``allow``, for a 405, the methods the address takes (its ``Allow`` header).
    The app answers it as JSON under ``/api`` and as a page elsewhere.
    """

    def __init__(self, code: str, words: Problem, *, status: int, retry_after: int | None = None,
                 allow: str | None = None) -> None:
        super().__init__(words)
        self.code, self.words, self.status, self.retry_after = code, words, status, retry_after
        self.allow = allow

    @property
    def headers(self) -> dict[str, str] | None:
        """The headers the answer carries (``Retry-After``, ``Allow``), or ``None``."""
        headers = {}
        if self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        if self.allow is not None:
            headers["Allow"] = self.allow
        return headers or None

    @property
    def message(self) -> str:
        """Why, in the language being spoken now."""
        return str(self.words)


def cross_site() -> Refused:
    """The refusal of a post from another site (or a page of this one that the browser
    opened from another): 403, and nothing changes."""
    return Refused(ErrorCode.CROSS_SITE, problem("cross_site"), status=403)


def unserved(method: str, status: int, allow: str | None = None) -> Refused:
    """What a request no route serves gets instead of the framework's bare ``{"detail": …}``.

    ``status`` is the framework's: 404 (no such address: ``not_found``), 405
    (the address does not take ``method``: ``method_not_allowed``, with the
    ``allow`` header it gave), 400 or anything else (a body that could not be
    read, such as JSON nested too deeply: ``bad_request``).
    """
    if status == 404:
        return Refused(ErrorCode.NOT_FOUND, problem("not_found"), status=404)
    if status == 405:
        return Refused(ErrorCode.METHOD_NOT_ALLOWED, problem("method_not_allowed", method=method), status=405,
                       allow=allow)
    return Refused(ErrorCode.BAD_REQUEST, problem("request_unreadable"), status=status)


def content_security_policy(host: str | None, *, docs: bool = False) -> str:
    """The ``Content-Security-Policy`` value for a response to a request for ``host``.

    ``host`` is the request's ``Host`` header (``None`` when absent): its ``ws:`` and
    ``wss:`` origins join ``connect-src``, for browsers whose ``'self'`` does not cover
    WebSockets yet (Safari before 16); a value that is not a host name or address
    with an optional port is left out. ``docs`` gives the looser policy of the API
    explorer page.
    """
    policy = dict(DOCS_POLICY if docs else SITE_POLICY)
    if host and HOST.fullmatch(host):
        policy["connect-src"] += f" ws://{host} wss://{host}"
    return "; ".join(f"{name} {value}" for name, value in policy.items())


class SecurityHeaders:
    """ASGI middleware: adds :func:`content_security_policy` and :data:`OTHER_HEADERS` to
    every HTTP response that does not set them itself; WebSockets pass untouched.

    ``docs_path`` is the path of the API explorer page, which gets the looser policy.
    """

    def __init__(self, app: ASGIApp, *, docs_path: str | None = None) -> None:
        self.app = app
        self.docs_path = docs_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, adding the headers to the start of its response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = content_security_policy(Headers(scope=scope).get("host"), docs=scope["path"] == self.docs_path)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in {"Content-Security-Policy": policy, **OTHER_HEADERS}.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
