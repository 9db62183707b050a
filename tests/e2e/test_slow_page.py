"""A slow table in Chromium: turn notifications turned on from the page (the browser's push subscription
stubbed, the server's real), a push delivered to the service worker and shown, a click on it opening the
table, and "Your tables" listing this browser's tables with the awaited one marked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from app.notify.push import payload
from app.notify.turns import TurnNotice
from bench.fakepush import FakePushService
from tests.e2e.conftest import DEAL_PAUSE_SECONDS, serve
from tests.e2e.helpers import LiveServer, Tab

pytestmark = pytest.mark.e2e

VAPID_SUBJECT = "mailto:ops@cucumber.cards"


@pytest.fixture(scope="module")
def push_service() -> Iterator[FakePushService]:
    """A push service on loopback, the only one the server may push to."""
    with FakePushService() as service:
        yield service


@pytest.fixture(scope="module")
def push_server(e2e_ready: None, tmp_path_factory: pytest.TempPathFactory,
                push_service: FakePushService) -> Iterator[LiveServer]:
    """A live server with Web Push on, pushing to ``push_service`` alone."""
    folder = tmp_path_factory.mktemp("push-server")
    yield from serve(folder, deal_pause=DEAL_PAUSE_SECONDS, settings={
        "CUCUMBER_VAPID_SUBJECT": VAPID_SUBJECT, "CUCUMBER_PUSH_ENDPOINTS": push_service.allowlist_entry})


def wait_for_worker(tab: Tab) -> None:
    """Wait until the site's service worker is active (it controls the pages loaded from then on)."""
    tab.page.evaluate("async () => { await navigator.serviceWorker.ready; }")


def registration_id(tab: Tab, session: Any) -> str:
    """The id DevTools gives the site's service worker registration."""
    found: dict[str, str] = {}

    def seen(event: dict[str, Any]) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"] == tab.server.url + "/" and not registration.get("isDeleted"):
                found["id"] = registration["registrationId"]

    session.on("ServiceWorker.workerRegistrationUpdated", seen)
    session.send("ServiceWorker.enable")
    for _ in range(300):  # the events come with the answer to enable; a busy machine may take its time
        if "id" in found:
            break
        tab.page.wait_for_timeout(100)
    assert "id" in found, "DevTools named no registration of the site's worker"
    return found["id"]


NOTIFICATIONS_JS = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
  .map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url}))"""

CLICK_JS = """async (tag) => {
  const [notification] = await self.registration.getNotifications({tag});
  self.dispatchEvent(new NotificationEvent("notificationclick", {notification}));
}"""
"""Dispatches the worker's ``notificationclick`` handler for the notification of ``tag``, as a click would."""


def notifications(tab: Tab, count: int) -> list[dict[str, Any]]:
    """The site's notifications shown now, once there are ``count`` of them."""
    for _ in range(600):
        shown: list[dict[str, Any]] = tab.page.evaluate(NOTIFICATIONS_JS)
        if len(shown) == count:
            return shown
        tab.page.wait_for_timeout(50)
    raise AssertionError(f"{count} notifications expected, {len(shown)} shown: {shown}")


def deliver(tab: Tab, session: Any, registration: str, notice: TurnNotice) -> None:
    """A push of ``notice``, as the server writes it, delivered to the site's worker by DevTools."""
    session.send("ServiceWorker.deliverPushMessage", {
        "origin": tab.server.url, "registrationId": registration, "data": payload(notice, "en").decode()})


def test_a_push_shows_its_tables_notification_and_a_click_on_it_opens_the_table(
        open_tab: Any, push_server: LiveServer) -> None:
    code = push_server.post("/api/rooms", {"name": "Ana"})["code"]
    other = push_server.post("/api/rooms", {"name": "Ana"})["code"]
    tab = open_tab("phone", live=push_server, permissions=["notifications"])
    tab.goto("/tables")
    wait_for_worker(tab)
    tab.goto("/tables")  # now the worker's page
    session = tab.context.new_cdp_session(tab.page)
    registration = registration_id(tab, session)
    deadline = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)

    deliver(tab, session, registration, TurnNotice(code, "Ana", deadline, reminder=False))
    shown = notifications(tab, 1)
    assert shown == [{"title": f"Your turn at Table {code}", "body": "Ana, it is your turn to play.", "tag": code,
                      "url": f"/r/{code}"}]
    # A newer push for the same table replaces the one before; another table's stands beside it.
    deliver(tab, session, registration, TurnNotice(code, "Ana", deadline, reminder=True))
    deliver(tab, session, registration, TurnNotice(other, "Ana", deadline, reminder=False))
    shown = notifications(tab, 2)
    assert sorted((item["tag"], item["title"]) for item in shown) == sorted(
        [(code, f"Still your turn at Table {code}"), (other, f"Your turn at Table {other}")])
    assert not any(word in json.dumps(shown) for word in ("hand", "card\"", "token"))

    # A click with no window on the table: the table opens (here in the site's window, which a click that is
    # not the browser's may send there: Chromium lets only a real click open a new window).
    worker = tab.context.service_workers[0]
    worker.evaluate(CLICK_JS, code)
    tab.page.wait_for_url(f"{push_server.url}/r/{code}")
    tab.wait_live()
    assert [item["tag"] for item in notifications(tab, 1)] == [other]  # the clicked one is closed

    # A click for a table already open in a window: that window is the one; no other moves, none opens.
    second = tab.context.new_page()
    second.goto(push_server.url + "/tables")
    deliver(tab, session, registration, TurnNotice(code, "Ana", deadline, reminder=False))
    notifications(tab, 2)
    worker.evaluate(CLICK_JS, code)
    assert [item["tag"] for item in notifications(tab, 1)] == [other]
    second.wait_for_timeout(300)
    assert [page.url for page in tab.context.pages] == [f"{push_server.url}/r/{code}", f"{push_server.url}/tables"]
    session.detach()
    assert tab.problems() == []
