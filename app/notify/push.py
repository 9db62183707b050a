"""Web Push (RFC 8030) to the players' browsers: the server's VAPID keys, the payload of a turn, its
encryption (aes128gcm, RFC 8291, with pywebpush) and its delivery with retries.

A push holds no card and no hand: the room, whose turn it is, the deadline,
and a title and body in the language the subscribing page spoke.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02

from app.notify.outbound import Answer, SendFailed, post
from app.notify.turns import TurnNotice
from app.notify.urls import PUSH_ENDPOINT_REFUSED, Allowlist, RefusedUrl, Resolver, check_url
from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, say, speaking

if TYPE_CHECKING:
    from app.storage import Storage

log = logging.getLogger(__name__)

MAX_PAYLOAD_BYTES = 3000
"""A push's JSON before encryption is at most this long (push services take about 4 KB after it)."""
FIRST_RETRY_SECONDS = 1.0
"""The wait before the first retry of a push the service could not take (429, 5xx, no answer); it doubles
with each retry, up to :data:`MAX_RETRY_SECONDS`, unless ``Retry-After`` says otherwise."""
MAX_RETRY_SECONDS = 300.0
VAPID_TOKEN_SECONDS = 12 * 3600
"""How long a VAPID token (the JWT of the ``Authorization`` header) is valid; push services take up to 24 h."""
TOKEN_REUSE_SECONDS = 3600
"""How long one signed token is used for a push service before another is signed."""
URGENCY = "high"
"""A turn waits on the player: the push service may wake a sleeping phone for it (RFC 8030, section 5.3)."""
KEY_LENGTH = {"p256dh": 65, "auth": 16}
"""Bytes of the browser's keys: an uncompressed P-256 point, and the authentication secret."""
MAX_KEY_TEXT = 200


def b64url(data: bytes) -> str:
    """``data`` in unpadded base64url, as Web Push writes keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """The bytes of unpadded (or padded) base64url ``text``; ``ValueError`` when it is not base64url."""
    if not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class VapidKeys:
    """The server's VAPID key pair (RFC 8292): ``private_key`` the 32-byte P-256 secret, ``public_key`` the
    uncompressed point (65 bytes, the pages' ``applicationServerKey``), both unpadded base64url."""

    private_key: str
    public_key: str

    @classmethod
    def make(cls) -> VapidKeys:
        """A new random key pair."""
        vapid = Vapid02()
        vapid.generate_keys()
        secret = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
        point = vapid.public_key.public_bytes(serialization.Encoding.X962,
                                              serialization.PublicFormat.UncompressedPoint)
        return cls(b64url(secret), b64url(point))

    @classmethod
    def load_or_make(cls, storage: Storage) -> VapidKeys:
        """The key pair kept in ``storage``, or a new one stored there first (when several processes start at
        once, the one stored first is everyone's). Raises :class:`~app.storage.StorageError`."""
        kept = storage.vapid_keys()
        if kept is None:
            made = cls.make()
            kept = storage.keep_vapid_keys(private_key=made.private_key, public_key=made.public_key,
                                           created_at=datetime.now(UTC))
        return cls(*kept)

    def signer(self) -> Vapid02:
        """py-vapid's signer for this key pair."""
        return Vapid02.from_raw(self.private_key.encode("ascii"))


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription as kept: its ``endpoint`` URL, its keys ``p256dh`` and ``auth`` (unpadded
    base64url) and the ``language`` its pushes are written in."""

    endpoint: str
    p256dh: str
    auth: str
    language: str = DEFAULT_LANGUAGE


def parse_subscription(subscription: object) -> Subscription:
    """The endpoint and keys of a browser's PushSubscription JSON (``{"endpoint": …, "keys": {"p256dh": …,
    "auth": …}, …}``; other fields, such as ``expirationTime``, are ignored). Raises
    :class:`~app.notify.urls.RefusedUrl` (``push_endpoint_refused``) when it is not one: no endpoint, or keys
    that are not base64url of a P-256 point and a 16-byte secret."""
    if not isinstance(subscription, dict):
        raise RefusedUrl(PUSH_ENDPOINT_REFUSED, "the subscription must be a JSON object")
    endpoint, keys = subscription.get("endpoint"), subscription.get("keys")
    if not isinstance(endpoint, str) or not isinstance(keys, dict):
        raise RefusedUrl(PUSH_ENDPOINT_REFUSED, "the subscription needs an endpoint and keys")
    found: dict[str, str] = {}
    for name, length in KEY_LENGTH.items():
        value = keys.get(name)
        try:
            if not isinstance(value, str) or len(value) > MAX_KEY_TEXT or len(unb64url(value)) != length:
                raise ValueError(name)
        except ValueError:
            raise RefusedUrl(PUSH_ENDPOINT_REFUSED, f"the subscription's {name} key is not a browser's") from None
        found[name] = value.rstrip("=")
    if unb64url(found["p256dh"])[0] != 4:
        raise RefusedUrl(PUSH_ENDPOINT_REFUSED, "the subscription's p256dh key is not a browser's")
    return Subscription(endpoint, found["p256dh"], found["auth"])


def utc_text(moment: datetime) -> str:
    """``moment`` (aware) as UTC ISO 8601 with ``Z``, to the second: ``2026-12-06T21:00:00Z``."""
    return moment.astimezone(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def payload(notice: TurnNotice, language: str) -> bytes:
    """The JSON a push carries (UTF-8, at most :data:`MAX_PAYLOAD_BYTES`), in ``language`` (English for a code
    not spoken here)::

        {"room": "K7QXM", "url": "/r/K7QXM", "player": "Ana", "deadline": "2026-12-06T21:00:00Z",
         "reminder": false, "lang": "en", "title": "Your turn at Table K7QXM", "body": "…"}

    No card, no hand: nothing a push service or a locked screen should not see.
    """
    language = language if language in LANGUAGES else DEFAULT_LANGUAGE
    with speaking(language):
        if notice.reminder:
            # Translators: the title of a reminder on the phone's lock screen; {code} is the table's code (K7QXM).
            title = say("Still your turn at Table {code}", code=notice.room_code)
            # Translators: the text of a reminder; {name} is the player's name.
            body = say("{name}, the table is waiting for your card.", name=notice.player)
        else:
            # Translators: the title of a notification on the phone's lock screen; {code} is the table's code.
            title = say("Your turn at Table {code}", code=notice.room_code)
            # Translators: the text of a notification; {name} is the player's name.
            body = say("{name}, it is your turn to play.", name=notice.player)
    data = {"room": notice.room_code, "url": f"/r/{notice.room_code}", "player": notice.player,
            "deadline": utc_text(notice.deadline), "reminder": notice.reminder, "lang": language,
            "title": title, "body": body}
    encoded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(encoded) > MAX_PAYLOAD_BYTES:  # names are 20 characters at most; this is a guard, not a case
        raise ValueError(f"a push's payload is {len(encoded)} bytes, more than {MAX_PAYLOAD_BYTES}")
    return encoded


def retry_after(answer: Answer, now: float | None = None) -> float | None:
    """The seconds an answer's ``Retry-After`` asks to wait (whole seconds or an HTTP date), ``None`` without
    one or for one that cannot be read."""
    value = answer.headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class PushSender:
    """Sends the pushes of turns, signed with ``keys`` for VAPID subject ``subject`` (``mailto:`` or
    ``https:``), to endpoints ``allowlist`` allows, resolved by ``resolver``. ``first_retry`` is the first
    back-off in seconds (it doubles at each retry); ``tls`` checks https (default: the system's authorities).
    ``on_outcome`` is told how each attempt ended: ``accepted``, ``gone``, ``retry``, ``refused`` or
    ``unsent``."""

    def __init__(self, keys: VapidKeys, *, subject: str | None, resolver: Resolver, allowlist: Allowlist,
                 first_retry: float = FIRST_RETRY_SECONDS, tls: ssl.SSLContext | None = None,
                 on_outcome: Callable[[str], None] | None = None) -> None:
        self.keys = keys
        self.tls = tls
        self.on_outcome = on_outcome or (lambda _outcome: None)
        self.subject = subject or ""
        self.resolver = resolver
        self.allowlist = allowlist
        self.first_retry = first_retry
        self.threads: Executor | None = None
        """Where the CPU work of a push runs (``None``: the event loop's default threads)."""
        self._signer = keys.signer()
        self._tokens: dict[str, tuple[float, str]] = {}

    def authorization(self, audience: str) -> str:
        """The ``Authorization`` header (``vapid t=…,k=…``) for push service ``audience`` (its origin), signed
        anew once the one in use is :data:`TOKEN_REUSE_SECONDS` old."""
        now = time.time()
        kept = self._tokens.get(audience)
        if kept is not None and now - kept[0] < TOKEN_REUSE_SECONDS:
            return kept[1]
        claims = {"aud": audience, "exp": int(now) + VAPID_TOKEN_SECONDS, "sub": self.subject}
        header = str(self._signer.sign(claims)["Authorization"])
        self._tokens[audience] = (now, header)
        return header

    def encrypt(self, subscription: Subscription, data: bytes) -> bytes:
        """``data`` encrypted for ``subscription``'s browser (aes128gcm, a new ephemeral key and salt each
        time)."""
        # Imported at the first push: pywebpush brings aiohttp and requests, a third of a second at every start
        # of a server that may never push.
        from pywebpush import WebPusher  # noqa: PLC0415

        info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
        return bytes(WebPusher(info).encode(data, "aes128gcm")["body"])

    def request(self, subscription: Subscription, notice: TurnNotice, *, ttl: int,
                audience: str) -> tuple[dict[str, str], bytes]:
        """The headers and encrypted body of one push of ``notice`` (CPU work: run it off the event loop)."""
        body = self.encrypt(subscription, payload(notice, subscription.language))
        headers = {"Authorization": self.authorization(audience), "TTL": str(ttl), "Topic": notice.room_code,
                   "Urgency": URGENCY, "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream"}
        return headers, body

    async def deliver(self, subscription: Subscription, notice: TurnNotice, *, still_due: Callable[[], bool],
                      gone: Callable[[Subscription], Awaitable[Any]]) -> int:
        """Push ``notice`` to ``subscription`` until its push service takes it: 1 when it did (2xx), else 0.

        A 404 or 410 calls ``gone(subscription)`` (it no longer exists) at once. A 429, a 5xx, or no answer
        is tried again after ``Retry-After`` or the back-off, for as long as ``still_due()`` holds and the
        deadline has not passed; the TTL of each try is the time then left. A redirect or any other answer
        ends it. The endpoint is checked again before each try (the allowlist, its addresses), and it is
        never logged.
        """
        wait = self.first_retry
        while True:
            left = notice.seconds_left()
            if left < 1 or not still_due():
                return 0
            try:
                target = check_url(subscription.endpoint, self.allowlist, PUSH_ENDPOINT_REFUSED)
                await target.resolve(self.resolver)
            except RefusedUrl as refused:
                log.warning("a push was not sent: %s", refused.reason)
                self.on_outcome("unsent")
                return 0
            headers, body = await asyncio.get_running_loop().run_in_executor(
                self.threads, partial(self.request, subscription, notice, ttl=int(left), audience=target.parts.origin))
            pause: float | None = None
            try:
                answer = await post(target, headers=headers, body=body, tls=self.tls)
            except SendFailed as failed:
                log.info("a push service did not answer (%s); trying again", failed)
            else:
                if answer.accepted:
                    self.on_outcome("accepted")
                    return 1
                if answer.status in (404, 410):
                    self.on_outcome("gone")
                    await gone(subscription)
                    return 0
                if answer.status != 429 and answer.status < 500:
                    log.warning("a push service refused a push with %d", answer.status)
                    self.on_outcome("refused")
                    return 0
                pause = retry_after(answer)
            self.on_outcome("retry")
            pause = wait if pause is None else pause
            if pause >= notice.seconds_left():
                return 0
            await asyncio.sleep(pause)
            wait = min(wait * 2, MAX_RETRY_SECONDS)
