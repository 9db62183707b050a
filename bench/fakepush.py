"""A push service on loopback, standing in for Google's, Mozilla's, Apple's and Microsoft's (RFC 8030), and
the browsers subscribed to it, for the tests (``tests/notify/fakepush.py`` names it there) and the benchmarks.

It checks each push as a real service would: the VAPID ``Authorization``
header (py-vapid verifies its signature; its claims are read), the
``aes128gcm`` body (decrypted with http_ece with the browser's keys, which
the fake made), the TTL and the topic. What it answers is scripted per
browser: 201 by default, or 410, 429 with ``Retry-After``, 500, a redirect.

Use::

    with FakePushService() as service:               # listening on 127.0.0.1, a port of its own
        settings = Settings(..., vapid_subject="mailto:ops@cucumber.cards",
                            push_endpoints=service.allowlist_entry)
        browser = service.browser()                  # a browser's keys and endpoint
        browser.subscription                         # the PushSubscription JSON a page would send
        service.script(browser, 429, 201, retry_after=1)  # its next answers, then 201 again
        pushes = service.wait_for(1, timeout=10)     # Delivery objects: payload, headers, status answered
        service.forget(browser)                      # from now on 410 Gone, as for an unsubscribed browser

In async tests, ``await service.wait_for_async(n)`` waits without blocking
the event loop. Every push is checked; one that fails a check is answered
400 or 401 and listed in ``service.faults`` (a test asserts it is empty).
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

PUSH_PATH = "/push/"
"""Where the fake's endpoints are: ``http://127.0.0.1:PORT/push/<id>``."""
MAX_TTL = 28 * 24 * 3600


def b64url(data: bytes) -> str:
    """Unpadded base64url, as browsers write their keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """A browser subscribed to the fake service: its own P-256 key pair and auth secret (as a browser makes
    them), and its endpoint. ``pushes`` are the deliveries it received (accepted ones only)."""

    id: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    pushes: list[Delivery] = field(default_factory=list)

    @property
    def p256dh(self) -> str:
        """The browser's public key, unpadded base64url (``keys.p256dh``)."""
        point = self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                           serialization.PublicFormat.UncompressedPoint)
        return b64url(point)

    @property
    def subscription(self) -> dict[str, Any]:
        """The PushSubscription JSON a page sends for this browser (``subscription.toJSON()``)."""
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)}}


@dataclass(frozen=True)
class Delivery:
    """One push the fake received: for ``browser`` (its id), the ``status`` it answered, the request's
    ``headers`` (lower-case names), the decrypted ``payload`` (parsed JSON; ``None`` if it could not be
    read), the VAPID ``claims``, and when it arrived (``received_at``, ``time.monotonic()`` and
    ``received_wall``, ``time.time()``)."""

    browser: str
    status: int
    headers: dict[str, str]
    payload: Any
    claims: dict[str, Any]
    received_at: float
    received_wall: float

    @property
    def ttl(self) -> int:
        """The push's ``TTL`` header, in seconds."""
        return int(self.headers["ttl"])

    @property
    def topic(self) -> str | None:
        """The push's ``Topic`` header."""
        return self.headers.get("topic")


@dataclass(frozen=True)
class Answer:
    """A scripted answer: its ``status`` and, for 429 and 503, its ``Retry-After`` (seconds); for a 3xx, the
    ``Location``."""

    status: int
    retry_after: int | None = None
    location: str | None = None


class Server(ThreadingHTTPServer):
    """The HTTP server, with room for many connections arriving at once (the standard one queues 5, and
    a sixth waits a second or more for the kernel to try again)."""

    request_queue_size = 1024
    daemon_threads = True


class LoopbackServer:
    """An HTTP stand-in for an outside service on a free port of ``host``, answering in threads of its own
    while started (``with``, or :meth:`serve` from a subclass's ``start``) until :meth:`close`."""

    host = "127.0.0.1"
    _server: ThreadingHTTPServer | None = None

    def serve(self, handler: type[BaseHTTPRequestHandler], name: str) -> None:
        """Listen with ``handler`` answering each request, in a thread called ``name``."""
        self._server = Server((self.host, 0), handler)
        threading.Thread(target=self._server.serve_forever, name=name, daemon=True).start()

    def start(self) -> LoopbackServer:
        """Listen and answer; returns itself."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop listening (again: nothing)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._server is not None, "start it first"
        return int(self._server.server_address[1])


class FakePushService(LoopbackServer):
    """The fake push service, listening on ``127.0.0.1`` (a free port) once started (``with`` or
    :meth:`start`). ``vapid_key``, when given, is the only VAPID public key (base64url) it takes, as a
    real service holds a subscription to the key it was made with. Thread-safe: the server answers in
    threads of its own."""

    def __init__(self, *, vapid_key: str | None = None, host: str = "127.0.0.1") -> None:
        self.vapid_key = vapid_key
        self.host = host
        self.browsers: dict[str, Browser] = {}
        self.deliveries: list[Delivery] = []
        self.faults: list[str] = []
        self._scripts: dict[str | None, deque[Answer]] = {}
        self._gone: set[str] = set()
        self._changed = threading.Condition()

    # Running

    def start(self) -> FakePushService:
        """Listen and answer in a thread of its own; returns itself."""
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                answer = service._receive(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(answer.status)
                if answer.retry_after is not None:
                    self.send_header("Retry-After", str(answer.retry_after))
                if answer.location is not None:
                    self.send_header("Location", answer.location)
                elif answer.status == 201:
                    self.send_header("Location", f"{service.base_url}message/{secrets.token_hex(8)}")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read the deliveries, not a log."""

        self.serve(Handler, "fake-push")
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/``."""
        return f"http://{self.host}:{self.port}/"

    @property
    def allowlist_entry(self) -> str:
        """The ``CUCUMBER_PUSH_ENDPOINTS`` entry that lets the server push here (http on loopback: listed as it
        is)."""
        return f"http://{self.host}:{self.port}{PUSH_PATH}"

    # The browsers and the answers

    def browser(self) -> Browser:
        """A new browser subscribed here, with keys of its own."""
        ident = secrets.token_urlsafe(12)
        made = Browser(ident, f"{self.base_url.rstrip('/')}{PUSH_PATH}{ident}",
                       ec.generate_private_key(ec.SECP256R1()), secrets.token_bytes(16))
        with self._changed:
            self.browsers[ident] = made
        return made

    def script(self, browser: Browser | None, *statuses: int, retry_after: int | None = None,
               location: str | None = None) -> None:
        """Answer the next pushes to ``browser`` (``None``: to any browser without a script of its own) with
        ``statuses`` in turn, then 201 again. ``retry_after`` goes with each 429 and 503, ``location`` with
        each 3xx."""
        key = None if browser is None else browser.id
        with self._changed:
            queue = self._scripts.setdefault(key, deque())
            for status in statuses:
                queue.append(Answer(status, retry_after if status in (429, 503) else None,
                                    location if 300 <= status < 400 else None))

    def forget(self, browser: Browser) -> None:
        """The browser unsubscribed (or its subscription expired): every later push to it is answered 410."""
        with self._changed:
            self._gone.add(browser.id)

    # Waiting

    def accepted(self) -> list[Delivery]:
        """The deliveries answered 201, in order."""
        with self._changed:
            return [delivery for delivery in self.deliveries if delivery.status == 201]

    def wait_for(self, count: int, *, timeout: float = 30.0, accepted: bool = True) -> list[Delivery]:
        """Wait until ``count`` pushes have arrived (answered 201, unless ``accepted`` is false: any answer);
        returns all of them. Raises ``TimeoutError`` after ``timeout`` seconds (a guard against a hang, not a
        measure: make it generous)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [d for d in self.deliveries if d.status == 201 or not accepted]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(found)} of {count} pushes arrived in {timeout} s")
                self._changed.wait(left)

    async def wait_for_async(self, count: int, *, timeout: float = 30.0, accepted: bool = True) -> list[Delivery]:
        """:meth:`wait_for` for a test on the event loop (it waits in a thread)."""
        return await asyncio.to_thread(self.wait_for, count, timeout=timeout, accepted=accepted)

    # The checks

    def _receive(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        received_at, received_wall = time.monotonic(), time.time()
        ident = path.removeprefix(PUSH_PATH) if path.startswith(PUSH_PATH) else None
        with self._changed:
            browser = self.browsers.get(ident or "")
            gone = ident in self._gone
        if browser is None:
            return self._record(ident or path, Answer(404), headers, None, {}, received_at, received_wall)
        claims, fault = self._check_vapid(headers)
        payload: Any = None
        if fault is None:
            fault = self._check_headers(headers)
        if fault is None:
            try:
                plain = http_ece.decrypt(body, private_key=browser.private_key, auth_secret=browser.auth,
                                         version="aes128gcm")
                payload = json.loads(plain)
            except Exception as error:  # any failure to decrypt or parse is the sender's fault
                fault = f"the body could not be decrypted and read: {type(error).__name__}: {error}"
        if fault is not None:
            with self._changed:
                self.faults.append(fault)
            return self._record(browser.id, Answer(401 if "vapid" in fault.lower() else 400), headers, payload,
                                claims, received_at, received_wall)
        answer = Answer(410) if gone else self._next_answer(browser.id)
        return self._record(browser.id, answer, headers, payload, claims, received_at, received_wall)

    def _next_answer(self, ident: str) -> Answer:
        with self._changed:
            for key in (ident, None):
                queue = self._scripts.get(key)
                if queue:
                    return queue.popleft()
        return Answer(201)

    def _record(self, ident: str, answer: Answer, headers: dict[str, str], payload: Any, claims: dict[str, Any],
                received_at: float, received_wall: float) -> Answer:
        delivery = Delivery(ident, answer.status, headers, payload, claims, received_at, received_wall)
        with self._changed:
            self.deliveries.append(delivery)
            browser = self.browsers.get(ident)
            if browser is not None and answer.status == 201:
                browser.pushes.append(delivery)
            self._changed.notify_all()
        return answer

    def _check_vapid(self, headers: dict[str, str]) -> tuple[dict[str, Any], str | None]:
        """The VAPID token's claims, and what is wrong with the ``Authorization`` header (``None``: nothing)."""
        authorization = headers.get("authorization", "")
        try:
            scheme, _, params = authorization.partition(" ")
            parts = dict(item.split("=", 1) for item in params.split(","))
            if scheme.lower() != "vapid" or not Vapid02.verify(authorization):
                return {}, "VAPID: the signature does not verify"
            claims = json.loads(unb64url(parts["t"].split(".")[1]))
        except Exception as error:  # a header that cannot even be read
            return {}, f"VAPID: the Authorization header cannot be read: {type(error).__name__}"
        if self.vapid_key is not None and parts["k"] != self.vapid_key:
            return claims, "VAPID: signed with another key than the subscription's"
        if claims.get("aud") != self.base_url.rstrip("/"):
            return claims, f"VAPID: the audience is {claims.get('aud')!r}, not this service"
        if not 0 < claims.get("exp", 0) - time.time() <= 24 * 3600:
            return claims, "VAPID: the token expires in the past or more than 24 h ahead"
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            return claims, "VAPID: the subject is not mailto: or https:"
        return claims, None

    @staticmethod
    def _check_headers(headers: dict[str, str]) -> str | None:
        if headers.get("content-encoding") != "aes128gcm":
            return "the content encoding is not aes128gcm"
        ttl = headers.get("ttl", "")
        if not ttl.isdigit() or int(ttl) > MAX_TTL:
            return f"the TTL {ttl!r} is not a number of seconds up to 28 days"
        topic = headers.get("topic")
        if topic is not None and (len(topic) > 32 or not all(c.isalnum() or c in "-_" for c in topic)):
            return "the topic is not up to 32 base64url characters"
        return None
