"""What the outbound side is told about a turn, and the :class:`Notifier` the server keeps for it.

A :class:`TurnNotice` says whose turn it is at which table and until when; the
:class:`Notifier` turns it into Web Push messages and a chat webhook's post.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from app.config.settings import Settings
from app.notify.push import PushSender, Subscription, VapidKeys, parse_subscription
from app.notify.turns import TurnNotice
from app.notify.urls import (
    PUSH_ENDPOINT_REFUSED,
    Allowlist,
    Resolver,
    check_url,
    resolve_public,
)
from app.notify.webhook import WebhookSender
from app.storage import Storage, StorageError

__all__ = ["Notifier", "PushOff", "TurnNotice"]

log = logging.getLogger(__name__)

THREADS = 2
"""Threads of the notifier's own, for reading subscriptions and encrypting pushes: the event loop's shared
threads may be busy with the rooms' storage when a burst of turns is pushed."""
STALE_DAYS = 35
"""A subscription whose page has not been opened for this long is forgotten at the next start: a slow match in
which nobody acts for 30 days has ended."""


class PushOff(Exception):
    """The server sends no push notifications (``CUCUMBER_PUBLIC_URL`` is not https and
    ``CUCUMBER_VAPID_SUBJECT`` is unset), so it takes no subscription."""


class Notifier:
    """The server's outbound side: Web Push to the players' browsers and a table's chat webhook.

    Built by :meth:`start` in the app's lifespan and kept on ``app.state.notifier``. With push off
    (``push_enabled`` false, ``public_key`` ``None``) it pushes nothing (:meth:`push_turn` returns 0)
    and refuses subscriptions with :class:`PushOff`; webhooks still work. Every request it sends
    goes to an address checked first (``app.notify.urls``): pinned, with short timeouts, following no
    redirect. Neither subscriptions nor webhook URLs are ever logged. ``resolver`` looks host names up
    (default: the system's resolver) and ``tls`` checks https (default: the system's authorities): tests
    give their own. ``on_push`` and ``on_webhook`` are told how each push attempt and each post ended (the
    outcomes of :class:`~app.notify.push.PushSender` and :class:`~app.notify.webhook.WebhookSender`).
    """

    push_enabled: bool
    public_key: str | None

    def __init__(self, *, settings: Settings, storage: Storage | None, keys: VapidKeys | None,
                 resolver: Resolver | None = None, tls: ssl.SSLContext | None = None,
                 on_push: Callable[[str], None] | None = None, on_webhook: Callable[[str], None] | None = None) -> None:
        self.settings = settings
        self.storage = storage
        self.keys = keys
        self.push_enabled = keys is not None and storage is not None
        self.public_key = keys.public_key if keys is not None and self.push_enabled else None
        self.resolver: Resolver = resolver or resolve_public
        self.push_allowlist = Allowlist.parse(settings.push_endpoints)
        self.webhook_allowlist = Allowlist.parse(settings.webhook_hosts)
        self._push = PushSender(keys, subject=settings.push_subject, resolver=self.resolver,
                                allowlist=self.push_allowlist, tls=tls, on_outcome=on_push) \
            if keys is not None else None
        self._webhook = WebhookSender(resolver=self.resolver, allowlist=self.webhook_allowlist, tls=tls,
                                      on_outcome=on_webhook)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._threads = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="cucumber-notify")
        if self._push is not None:
            self._push.threads = self._threads

    @classmethod
    async def start(cls, settings: Settings, storage: Storage, *, resolver: Resolver | None = None,
                    tls: ssl.SSLContext | None = None, on_push: Callable[[str], None] | None = None,
                    on_webhook: Callable[[str], None] | None = None) -> Notifier:
        """The notifier for ``settings``: with push on, its VAPID keys are read from ``storage``, or made (P-256)
        and stored at the first start (one pair for every process of a cluster), and subscriptions not renewed
        for :data:`STALE_DAYS` are forgotten. Raises :class:`~app.storage.StorageError` when the database fails,
        ``ValueError`` for an allowlist setting that cannot be read."""
        keys = None
        if settings.push_on:
            keys = await asyncio.to_thread(VapidKeys.load_or_make, storage)
            forgotten = await asyncio.to_thread(storage.forget_stale_subscriptions,
                                                renewed_before=datetime.now(UTC) - timedelta(days=STALE_DAYS))
            if forgotten:
                log.info("forgot %d push subscription(s) not renewed for %d days", forgotten, STALE_DAYS)
        return cls(settings=settings, storage=storage, keys=keys, resolver=resolver, tls=tls, on_push=on_push,
                   on_webhook=on_webhook)

    # The calls of the slow room

    async def push_turn(self, *, token_hash: str, notice: TurnNotice, still_due: Callable[[], bool]) -> int:
        """Push ``notice`` to every browser the seat with ``token_hash`` subscribed at table ``notice.room_code``;
        returns how many pushes the push services accepted (201).

        Each push's TTL is the time left to the deadline and its topic the room's code, so a newer push
        replaces one not yet delivered. A 404 or 410 deletes that subscription at once; a 429, a 5xx or a
        failed connection is tried again with back-off (honouring ``Retry-After``) while ``still_due()``
        says the turn still waits and the deadline has not passed. Returns when every subscription has its
        final answer, which may take until the deadline: run it as a task (:meth:`send_turn`) to wait for
        nothing. Returns 0 with push off. Raises nothing for a failed send (they are logged, without the
        subscription); :class:`~app.storage.StorageError` when the subscriptions cannot be read.
        """
        if self._push is None or self.storage is None:
            return 0
        storage = self.storage
        records = await self._run(storage.push_subscriptions, room_code=notice.room_code,
                                          token_hash=token_hash)
        subscriptions = [Subscription(record.endpoint, record.p256dh, record.auth, record.language)
                         for record in records]
        if not subscriptions:
            return 0

        async def gone(subscription: Subscription) -> None:
            await self._run(storage.delete_push_subscription, room_code=notice.room_code,
                                    endpoint=subscription.endpoint)

        results = await asyncio.gather(*(self._push.deliver(subscription, notice, still_due=still_due, gone=gone)
                                         for subscription in subscriptions))
        return sum(results)

    def send_turn(self, *, token_hash: str, notice: TurnNotice, still_due: Callable[[], bool]) -> asyncio.Task[int]:
        """:meth:`push_turn` as a task of its own, kept until it ends (and cancelled by :meth:`close`); a
        database failure is logged, and the task's result is 0."""
        return self._keep(self._push_logged(token_hash=token_hash, notice=notice, still_due=still_due))

    async def _push_logged(self, *, token_hash: str, notice: TurnNotice, still_due: Callable[[], bool]) -> int:
        try:
            return await self.push_turn(token_hash=token_hash, notice=notice, still_due=still_due)
        except StorageError as error:
            log.warning("the pushes of a turn at room %s were not sent: %s", notice.room_code, error)
            return 0

    async def post_webhook(self, url: str, notice: TurnNotice, language: str) -> bool:
        """Post ``notice`` to the chat webhook at ``url`` (Discord or Slack, by its host), in ``language`` (a code
        of ``app.wording.language.LANGUAGES``; another is English): "Ana's turn at Table K7QXM" and the
        deadline in the chat's own date markup. Returns whether the chat accepted it (2xx); a refused URL,
        a redirect, a timeout or any other answer is ``False``, logged without the URL."""
        return await self._webhook.post(url, notice, language)

    def send_webhook(self, url: str, notice: TurnNotice, language: str) -> asyncio.Task[bool]:
        """:meth:`post_webhook` as a task of its own, kept until it ends (and cancelled by :meth:`close`)."""
        return self._keep(self.post_webhook(url, notice, language))

    async def subscribe(self, *, room_code: str, token_hash: str, subscription: dict[str, Any],
                        language: str) -> None:
        """Keep the browser's PushSubscription JSON ``subscription`` (``endpoint`` and ``keys.p256dh``,
        ``keys.auth``; other fields are ignored) for the seat with ``token_hash`` at ``room_code``, its pushes
        to be written in ``language``. Subscribing again renews it (and moves it to this seat). A seat keeps
        its :data:`~app.storage.push.MAX_PER_SEAT` most recently renewed subscriptions.

        Raises :class:`PushOff` with push off, :class:`RefusedUrl` (``push_endpoint_refused``) for an
        endpoint the allowlist or the address checks refuse or keys that are not a browser's, before any
        request is made; :class:`~app.storage.StorageError` when the database fails.
        """
        if self.storage is None or not self.push_enabled:
            raise PushOff("push notifications are off on this server")
        parsed = parse_subscription(subscription)
        target = check_url(parsed.endpoint, self.push_allowlist, PUSH_ENDPOINT_REFUSED)
        await target.resolve(self.resolver)
        await self._run(self.storage.keep_push_subscription, room_code=room_code, token_hash=token_hash,
                                endpoint=target.url, p256dh=parsed.p256dh, auth=parsed.auth, language=language,
                                now=datetime.now(UTC))

    async def unsubscribe(self, *, room_code: str, token_hash: str, endpoint: str) -> None:
        """Forget the subscription at ``endpoint`` of the seat with ``token_hash`` at ``room_code``; nothing
        happens for one it does not know. Raises :class:`~app.storage.StorageError`."""
        if self.storage is None or not isinstance(endpoint, str):
            return
        await self._run(self.storage.delete_push_subscription, room_code=room_code, endpoint=endpoint,
                                token_hash=token_hash)

    async def drop_seat(self, *, room_code: str, token_hash: str) -> None:
        """Forget every subscription of the seat with ``token_hash`` at ``room_code`` (the seat was removed,
        or moved to another browser). Raises :class:`~app.storage.StorageError`."""
        if self.storage is None:
            return
        await self._run(self.storage.delete_seat_subscriptions, room_code=room_code, token_hash=token_hash)

    async def drop_room(self, *, room_code: str) -> None:
        """Forget every subscription at table ``room_code`` (it has ended). Raises
        :class:`~app.storage.StorageError`."""
        if self.storage is None:
            return
        await self._run(self.storage.delete_room_subscriptions, room_code=room_code)

    def check_webhook(self, url: str) -> str:
        """``url`` as it will be used, if it may be a table's chat webhook: an https (or listed) URL on a host
        of ``CUCUMBER_WEBHOOK_HOSTS``, without userinfo, of a Discord or Slack incoming webhook. Raises
        :class:`RefusedUrl` (``webhook_refused``) otherwise. Its addresses are checked again at each post."""
        return self._webhook.check(url)

    async def close(self) -> None:
        """Cancel the sends still running (at the server's stop) and wait for them to end."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._threads.shutdown(wait=False)

    async def _run(self, call: Callable[..., Any], /, **arguments: Any) -> Any:
        """``call(**arguments)`` in one of the notifier's threads."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, partial(call, **arguments))

    def _keep(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


