"""Web Push through a fake push service on loopback: each push is checked (VAPID) and decrypted there with
the browser's own keys; the service's answers decide what the server does next."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import UTC, datetime, timedelta

import pytest

from app.config.settings import Settings
from app.notify import Notifier, PushOff, RefusedUrl, TurnNotice
from app.notify.push import MAX_PAYLOAD_BYTES, VapidKeys, payload
from tests.notify.conftest import SUBJECT
from tests.notify.fakepush import FakePushService

pytestmark = pytest.mark.anyio

CODE = "K7QXM"
SEAT = "a" * 64
OTHER_SEAT = "b" * 64


def notice(*, hours: float = 4, reminder: bool = False, player: str = "Ana") -> TurnNotice:
    return TurnNotice(CODE, player, datetime.now(UTC) + timedelta(hours=hours), reminder)


async def subscribe(notifier: Notifier, service: FakePushService, *, seat: str = SEAT, language: str = "en"):
    browser = service.browser()
    await notifier.subscribe(room_code=CODE, token_hash=seat, subscription=browser.subscription, language=language)
    return browser


async def test_a_push_arrives_signed_encrypted_and_holding_no_card(notifier, service):
    browser = await subscribe(notifier, service)
    turn = notice()
    assert await notifier.push_turn(token_hash=SEAT, notice=turn, still_due=lambda: True) == 1
    [delivery] = browser.pushes
    assert service.faults == []
    assert delivery.payload == {
        "room": CODE, "url": f"/r/{CODE}", "player": "Ana",
        "deadline": turn.deadline.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "reminder": False, "lang": "en", "title": f"Your turn at Table {CODE}", "body": "Ana, it is your turn to play.",
    }
    assert delivery.topic == CODE
    assert 4 * 3600 - 60 < delivery.ttl <= 4 * 3600  # the time left
    assert delivery.claims["sub"] == SUBJECT and delivery.claims["aud"] == service.base_url.rstrip("/")
    assert delivery.headers["urgency"] == "high"


async def test_the_push_is_in_the_language_of_the_subscription_and_says_when_it_is_a_reminder(notifier, service):
    danish = await subscribe(notifier, service, language="da")
    english = await subscribe(notifier, service)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(reminder=True), still_due=lambda: True) == 2
    assert danish.pushes[0].payload["title"] == f"Stadig din tur ved Bord {CODE}"
    assert danish.pushes[0].payload["lang"] == "da" and danish.pushes[0].payload["reminder"] is True
    assert english.pushes[0].payload["body"] == "Ana, the table is waiting for your card."


async def test_only_the_seats_own_browsers_get_its_push(notifier, service):
    mine = await subscribe(notifier, service)
    theirs = await subscribe(notifier, service, seat=OTHER_SEAT)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 1
    assert len(mine.pushes) == 1 and theirs.pushes == []


async def test_a_gone_subscription_is_deleted_at_once(notifier, service, push_storage):
    browser = await subscribe(notifier, service)
    service.forget(browser)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 0
    assert push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT) == []
    assert [delivery.status for delivery in service.deliveries] == [410]
    # Nothing is left to push to.
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 0
    assert len(service.deliveries) == 1


async def test_a_busy_push_service_is_asked_again_after_its_retry_after(notifier, service, push_storage):
    browser = await subscribe(notifier, service)
    service.script(browser, 429, retry_after=1)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 1
    busy, taken = service.deliveries
    assert (busy.status, taken.status) == (429, 201)
    assert taken.received_at - busy.received_at >= 0.9  # waited as asked (a lower bound only)
    assert len(push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT)) == 1


async def test_a_failing_push_service_is_asked_again_only_while_the_turn_waits(notifier, service):
    browser = await subscribe(notifier, service)
    service.script(browser, 500, 503, 500, retry_after=0)
    asked = []

    def still_due() -> bool:
        asked.append(len(service.deliveries))
        return len(service.deliveries) < 2  # the player played after the second try

    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=still_due) == 0
    assert [delivery.status for delivery in service.deliveries] == [500, 503]


async def test_a_push_is_not_sent_once_the_deadline_has_passed(notifier, service):
    await subscribe(notifier, service)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(hours=-1), still_due=lambda: True) == 0
    assert service.deliveries == []


async def test_a_redirect_is_not_followed(notifier, service):
    browser = await subscribe(notifier, service)
    elsewhere = service.browser()
    service.script(browser, 307, location=elsewhere.endpoint)
    assert await notifier.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 0
    assert [delivery.status for delivery in service.deliveries] == [307]
    assert elsewhere.pushes == []


async def test_a_refused_endpoint_is_not_kept_and_never_asked(notifier, service, push_storage):
    browser = service.browser()
    for endpoint in ("https://push.evil.net/x", f"http://user:pw@127.0.0.1:{service.port}/push/x",
                     f"http://127.0.0.1:{service.port}/admin"):
        with pytest.raises(RefusedUrl) as caught:
            await notifier.subscribe(room_code=CODE, token_hash=SEAT, language="en",
                                     subscription={**browser.subscription, "endpoint": endpoint})
        assert caught.value.code == "push_endpoint_refused"
    for keys in ({}, {"p256dh": "x", "auth": "y"}, {"p256dh": browser.p256dh, "auth": "AAAA"},
                 {"p256dh": browser.subscription["keys"]["auth"], "auth": browser.subscription["keys"]["auth"]}):
        with pytest.raises(RefusedUrl):
            await notifier.subscribe(room_code=CODE, token_hash=SEAT, language="en",
                                     subscription={**browser.subscription, "keys": keys})
    assert push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT) == []
    assert service.deliveries == []


async def test_a_seat_keeps_its_five_latest_subscriptions_and_drops_them_with_the_seat(notifier, service, push_storage):
    browsers = [await subscribe(notifier, service) for _ in range(6)]
    kept = {record.endpoint for record in push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT)}
    assert kept == {browser.endpoint for browser in browsers[1:]}
    # Subscribing again renews: the first one back, the oldest of the others out.
    await notifier.subscribe(room_code=CODE, token_hash=SEAT, subscription=browsers[1].subscription, language="en")
    await notifier.unsubscribe(room_code=CODE, token_hash=OTHER_SEAT, endpoint=browsers[1].endpoint)  # not theirs
    await notifier.unsubscribe(room_code=CODE, token_hash=SEAT, endpoint=browsers[2].endpoint)
    await notifier.unsubscribe(room_code=CODE, token_hash=SEAT, endpoint="https://never.known/x")
    assert len(push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT)) == 4
    await notifier.drop_seat(room_code=CODE, token_hash=SEAT)
    assert push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT) == []


async def test_a_subscription_moves_with_its_browser_to_another_seat(notifier, service, push_storage):
    browser = await subscribe(notifier, service)
    await notifier.subscribe(room_code=CODE, token_hash=OTHER_SEAT, subscription=browser.subscription, language="en")
    assert push_storage.push_subscriptions(room_code=CODE, token_hash=SEAT) == []
    assert await notifier.push_turn(token_hash=OTHER_SEAT, notice=notice(), still_due=lambda: True) == 1


async def test_sends_run_beside_the_caller(notifier, service):
    browser = await subscribe(notifier, service)
    service.script(browser, 503, retry_after=1)
    started = time.monotonic()
    task = notifier.send_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True)
    assert time.monotonic() - started < 0.5 and not task.done()  # the caller went on at once
    assert await task == 1


async def test_the_keys_are_made_once_and_kept(service, push_storage, tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'push.db'}", vapid_subject=SUBJECT,
                        push_endpoints=service.allowlist_entry)
    first = await Notifier.start(settings, push_storage)
    second = await Notifier.start(settings, push_storage)
    assert first.public_key == second.public_key
    assert re.fullmatch(r"[A-Za-z0-9_-]{87}", first.public_key or "")  # 65 bytes, unpadded base64url
    kept = VapidKeys(*push_storage.vapid_keys() or ("", ""))
    assert kept.public_key == first.public_key


async def test_with_push_off_nothing_is_pushed_and_no_subscription_taken(service, push_storage, tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'push.db'}", push_endpoints=service.allowlist_entry)
    off = await Notifier.start(settings, push_storage)
    assert not off.push_enabled and off.public_key is None
    with pytest.raises(PushOff):
        await off.subscribe(room_code=CODE, token_hash=SEAT, subscription=service.browser().subscription,
                            language="en")
    assert await off.push_turn(token_hash=SEAT, notice=notice(), still_due=lambda: True) == 0
    assert push_storage.vapid_keys() is None


def test_the_payload_stays_small_for_the_longest_names_in_every_language():
    from app.wording.language import LANGUAGES

    for language in LANGUAGES:
        for reminder in (False, True):
            data = payload(notice(reminder=reminder, player="Ｗ" * 20), language)
            assert len(data) <= MAX_PAYLOAD_BYTES
            assert b'"hand"' not in data and b'"card' not in data


async def test_many_pushes_go_out_together(notifier, service):
    seats = [f"{index:064x}" for index in range(20)]
    for seat in seats:
        await subscribe(notifier, service, seat=seat)
    results = await asyncio.gather(*(notifier.push_turn(token_hash=seat, notice=notice(), still_due=lambda: True)
                                     for seat in seats))
    assert results == [1] * 20 and service.faults == []


def test_retry_after_is_read_as_seconds_or_as_a_date():
    from app.notify.outbound import Answer
    from app.notify.push import retry_after

    now = 1_796_590_800.0  # Sun, 06 Dec 2026 21:00:00 GMT
    assert retry_after(Answer(429, {"retry-after": "7"}), now) == 7
    assert retry_after(Answer(503, {"retry-after": "Sun, 06 Dec 2026 21:00:30 GMT"}), now) == 30
    assert retry_after(Answer(503, {"retry-after": "Sun, 06 Dec 2026 20:00:00 GMT"}), now) == 0
    assert retry_after(Answer(503, {"retry-after": "soon"}), now) is None
    assert retry_after(Answer(503, {}), now) is None
