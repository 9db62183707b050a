"""A slow table in Chromium: turn notifications turned on from the page (the browser's push subscription
stubbed, the server's real), a push delivered to the service worker and shown, a click on it opening the
table, and "Your tables" listing this browser's tables with the awaited one marked."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.notify.push import payload
from app.notify.turns import TurnNotice
from bench.fakepush import FakePushService
from tests.e2e.conftest import DEAL_PAUSE_SECONDS, serve
from tests.e2e.helpers import LiveServer, Tab, audit, play_until, protocol_player, sign_in
from tests.e2e.test_table_life import AWAKE_JS, locks

pytestmark = pytest.mark.e2e

VAPID_SUBJECT = "mailto:ops@cucumber.cards"


@pytest.fixture(scope="module")
def push_service() -> Iterator[FakePushService]:
    """A push service on loopback, the only one the server may push to."""
    with FakePushService() as service:
        yield service


@pytest.fixture(scope="module")
def push_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the push server, with its database ``e2e.db``."""
    return tmp_path_factory.mktemp("push-server")


@pytest.fixture(scope="module")
def push_server(e2e_ready: None, push_folder: Path, push_service: FakePushService) -> Iterator[LiveServer]:
    """A live server with Web Push on, pushing to ``push_service`` alone."""
    yield from serve(push_folder, deal_pause=DEAL_PAUSE_SECONDS, settings={
        "CUCUMBER_VAPID_SUBJECT": VAPID_SUBJECT, "CUCUMBER_PUSH_ENDPOINTS": push_service.allowlist_entry})


def subscriptions(folder: Path, code: str) -> list[tuple[str, str]]:
    """The subscriptions the server keeps for room ``code``: (endpoint, language) pairs."""
    with closing(sqlite3.connect(folder / "e2e.db")) as database:
        rows = database.execute("SELECT endpoint, language FROM push_subscriptions WHERE room_code = ?", (code,))
        return sorted(rows.fetchall())


PUSH_STUB_JS = """subscription => {
  // The browser's side of Web Push, stubbed: the permission (asked for only when the page asks) and the push
  // manager, whose subscription is one the test's push service made. Everything else is the browser's own.
  // Both last as the browser's do, from one page to the next (in the tab's session storage).
  window.permissionAsked = 0;
  window.subscribedWith = null;
  Object.defineProperty(Notification, "permission", {configurable: true,
    get: () => sessionStorage.getItem("stub.permission") || "default"});
  Notification.requestPermission = () => {
    window.permissionAsked += 1;
    sessionStorage.setItem("stub.permission", "granted");
    return Promise.resolve("granted");
  };
  const made = {endpoint: subscription.endpoint, toJSON: () => subscription};
  PushManager.prototype.getSubscription = () =>
    Promise.resolve(sessionStorage.getItem("stub.subscribed") ? made : null);
  PushManager.prototype.subscribe = (options) => {
    window.subscribedWith = {userVisibleOnly: options.userVisibleOnly,
                             key: btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))};
    sessionStorage.setItem("stub.subscribed", "yes");
    return Promise.resolve(made);
  };
}"""

LOOK = """state => {
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => state});
  Object.defineProperty(document, 'hidden', {configurable: true, get: () => state === 'hidden'});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
"""Make the page believe it is hidden or visible (a headless page is always visible), as a browser tells it."""

DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def slow_room(server: LiveServer, *names: str, hours: int = 24) -> tuple[str, list[str]]:
    """A slow room of ``hours`` a turn with ``names`` seated (the first as host): its code and their tokens."""
    host = server.post("/api/rooms", {"name": names[0], "preset": "quick", "pace": {"turn_hours": hours}})
    tokens = [host["token"]]
    for name in names[1:]:
        tokens.append(server.post(f"/api/rooms/{host['code']}/players", {"name": name})["token"])
    return host["code"], tokens


def push_key(server: LiveServer) -> str:
    """The server's public key as standard padded base64 (as the page's stub writes what it was given)."""
    key = server.get("/api/push/key")["public_key"]
    return base64.b64encode(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))).decode()


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


def notifications(tab: Tab, count: int, title: str | None = None) -> list[dict[str, Any]]:
    """The site's notifications shown now, once there are ``count`` of them (one of them titled ``title``)."""
    for _ in range(600):
        shown: list[dict[str, Any]] = tab.page.evaluate(NOTIFICATIONS_JS)
        if len(shown) == count and (title is None or any(item["title"] == title for item in shown)):
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
    assert [item["title"] for item in notifications(tab, 1, f"Still your turn at Table {code}")] == [
        f"Still your turn at Table {code}"]
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


def test_a_seated_player_turns_notifications_on_with_a_click_renews_them_at_each_visit_and_turns_them_off(
        open_tab: Any, push_server: LiveServer, push_service: FakePushService, push_folder: Path) -> None:
    code, (ana_token, ben_token) = slow_room(push_server, "Ana", "Ben")
    browser = push_service.browser()
    tab = open_tab("ana", live=push_server, locale="da-DK", **DESKTOP)
    tab.context.add_init_script(script=f"({PUSH_STUB_JS})({json.dumps(browser.subscription)})")
    sign_in(tab, code, ana_token)
    tab.context.add_cookies([{"name": "cucumber_lang", "value": "da", "url": push_server.url}])
    tab.goto(f"/r/{code}")
    button = tab.page.locator("#slow .notify-button")
    assert button.inner_text() == "Giv mig besked, når det er min tur"
    assert button.get_attribute("aria-pressed") == "false"
    # Nothing is asked for, nor sent, on load.
    assert tab.page.evaluate("() => window.permissionAsked") == 0
    assert subscriptions(push_folder, code) == []
    # The browser keeps the table's code (never its token) for "Your tables".
    assert tab.page.evaluate("() => localStorage.getItem('cucumber.tables')") == json.dumps([code])
    assert ana_token not in json.dumps(tab.page.evaluate("() => Object.assign({}, localStorage)"))

    with tab.page.expect_response(lambda answer: answer.url == f"{push_server.url}/r/{code}/push"
                                  and answer.request.method == "POST") as posted:
        button.click()
    assert posted.value.status == 201
    tab.page.wait_for_selector('#slow .notify-button[aria-pressed="true"]')
    assert tab.page.evaluate("() => window.permissionAsked") == 1
    assert tab.page.evaluate("() => window.subscribedWith") == {"userVisibleOnly": True, "key": push_key(push_server)}
    assert subscriptions(push_folder, code) == [(browser.subscription["endpoint"], "da")]
    assert audit(tab) == []

    # Each visit sends it again (the permission is the browser's from now on: not asked again).
    with tab.page.expect_response(lambda answer: answer.url == f"{push_server.url}/r/{code}/push"
                                  and answer.request.method == "POST") as renewed:
        tab.goto(f"/r/{code}")
    assert renewed.value.status == 201
    tab.page.wait_for_selector('#slow .notify-button[aria-pressed="true"]')
    assert tab.page.evaluate("() => window.permissionAsked") == 0
    assert subscriptions(push_folder, code) == [(browser.subscription["endpoint"], "da")]

    # Off: the table forgets this browser.
    with tab.page.expect_response(lambda answer: answer.url == f"{push_server.url}/r/{code}/push"
                                  and answer.request.method == "DELETE") as deleted:
        button.click()
    assert deleted.value.status == 204
    assert button.get_attribute("aria-pressed") == "false"
    assert subscriptions(push_folder, code) == []
    assert tab.problems() == [], "\n".join(tab.problems())


def test_quiet_hours_vacation_and_the_hosts_webhook_are_set_from_the_page(
        open_tab: Any, push_server: LiveServer, screenshots: Path) -> None:
    code, (ana_token, ben_token) = slow_room(push_server, "Ana", "Ben")
    tab = open_tab("ana", live=push_server, timezone_id="Europe/Copenhagen", **DESKTOP)
    sign_in(tab, code, ana_token)
    tab.goto(f"/r/{code}")
    region = tab.page.locator("#slow")
    assert region.locator("input[name=time_zone]").input_value() == "Europe/Copenhagen"
    region.locator("input[name=from]").fill("22:30")
    region.locator("input[name=to]").fill("07:15")
    region.locator(".quiet-form button[type=submit]").click()
    vacation = region.locator(".vacation-form input[name=days]")
    vacation.fill("3")
    region.locator(".vacation-form button[type=submit]").click()
    sent = [json.loads(frame) for frame in tab.sent if '"set_' in frame]
    for _ in range(100):
        sent = [json.loads(frame) for frame in tab.sent if '"set_' in frame]
        if len(sent) == 2:
            break
        tab.page.wait_for_timeout(50)
    assert [(frame["type"], frame.get("from"), frame.get("to"), frame.get("time_zone"), frame.get("days"))
            for frame in sent] == [("set_quiet_hours", "22:30", "07:15", "Europe/Copenhagen", None),
                                   ("set_vacation", None, None, None, "3")]
    # The server took both: no refusal shown, and the state says the bot plays for Ana while she is away.
    assert tab.page.locator("#flash").inner_text() == ""
    state = push_server.wait_room(code, lambda now: now["state"]["seats"][0].get("played_for") == "vacation")
    assert state["state"]["pace"] == {"turn_hours": 24}
    # Only the host has the webhook's field; Ben, seated, has the rest.
    assert region.locator(".webhook-form input[name=url]").count() == 1
    ben = open_tab("ben", live=push_server, **DESKTOP)
    sign_in(ben, code, ben_token)
    ben.goto(f"/r/{code}")
    assert ben.page.locator("#slow .quiet-form").count() == 1
    assert ben.page.locator("#slow .webhook-form").count() == 0
    assert ben.page.locator("#slow .notify-button").count() == 1
    assert audit(ben) == []
    # On a phone the settings are in the "Link and settings" panel, one tap away.
    phone = open_tab("ben-phone", live=push_server, viewport={"width": 390, "height": 844}, is_mobile=True,
                     has_touch=True)
    sign_in(phone, code, ben_token)
    phone.goto(f"/r/{code}")
    assert phone.page.locator("#slow .quiet-form").is_hidden()
    phone.page.locator('.panel-tab[data-panel="more"]').click()
    phone.page.locator("#slow .quiet-form").scroll_into_view_if_needed()
    assert phone.page.locator("#slow .quiet-form").is_visible()
    phone.page.screenshot(path=str(screenshots / "slow-settings-390.png"), full_page=True)
    assert audit(phone) == []
    assert tab.problems() == [] and ben.problems() == [] and phone.problems() == []


def test_a_slow_tables_page_closes_its_socket_while_hidden_and_a_live_tables_keeps_it(
        open_tab: Any, push_server: LiveServer) -> None:
    code, (ana_token, ben_token) = slow_room(push_server, "Ana", "Ben")
    tab = open_tab("ana", live=push_server, **DESKTOP)
    sign_in(tab, code, ana_token)
    tab.goto(f"/r/{code}")
    assert tab.page.locator("#room").get_attribute("data-awake") == "turn"
    push_server.wait_room(code, lambda now: now["state"]["seats"][0]["connected"])
    tab.page.evaluate(LOOK, "hidden")
    tab.page.wait_for_selector('#connection[data-state="closed"]', state="attached")
    push_server.wait_room(code, lambda now: not now["state"]["seats"][0]["connected"])
    tab.page.evaluate(LOOK, "visible")
    tab.wait_live()
    push_server.wait_room(code, lambda now: now["state"]["seats"][0]["connected"])

    live = push_server.post("/api/rooms", {"name": "Cy", "preset": "quick"})
    other = open_tab("cy", live=push_server, **DESKTOP)
    sign_in(other, live["code"], live["token"])
    other.goto(f"/r/{live['code']}")
    assert other.page.locator("#slow").is_hidden()
    assert other.page.locator("#room").get_attribute("data-awake") == "match"
    opened = other.sockets_opened
    other.page.evaluate(LOOK, "hidden")
    other.page.wait_for_timeout(300)
    assert other.page.locator("#connection").get_attribute("data-state") == "open"
    assert other.sockets_opened == opened
    assert tab.problems() == [] and other.problems() == []


def test_at_a_slow_table_the_screen_stays_awake_only_while_it_is_your_turn(
        open_tab: Any, push_server: LiveServer) -> None:
    code, (ana_token, ben_token) = slow_room(push_server, "Ana", "Ben")
    tab = open_tab("ana", live=push_server, **DESKTOP)
    tab.page.add_init_script(AWAKE_JS)
    sign_in(tab, code, ana_token)
    tab.goto(f"/r/{code}")
    ben = protocol_player(push_server, code, ben_token)
    tab.page.click("#controls button.start")
    push_server.wait_room(code, lambda now: now["state"]["phase"] == "playing" and now["state"]["turn"] is not None)
    for _ in range(2):  # Ana's turn, then Ben's, twice over
        play_until(push_server, code, {}, {1: ben}, lambda now: now["state"]["turn"] == 0, watchers=(tab,))
        tab.page.wait_for_function("() => window.locks.at(-1) === 'request screen'")
        play_until(push_server, code, {0: tab}, {1: ben}, lambda now: now["state"]["turn"] == 1)
        tab.page.wait_for_function("() => window.locks.at(-1) === 'release'")
    assert locks(tab)[:4] == ["request screen", "release", "request screen", "release"]
    assert tab.page.locator("#room").get_attribute("data-awake") == "turn"
    ben.close()
    assert tab.problems() == []


def test_your_tables_lists_this_browsers_slow_tables_awaited_first_with_their_deadlines(
        open_tab: Any, push_server: LiveServer) -> None:
    first, (ana_first, ben_first) = slow_room(push_server, "Ana", "Ben", hours=24)
    second, (ben_second, ana_second) = slow_room(push_server, "Ben", "Ana", hours=4)
    tab = open_tab("ana", live=push_server, timezone_id="America/New_York", locale="en-US")
    sign_in(tab, first, ana_first)
    sign_in(tab, second, ana_second)
    for code in (first, second):
        tab.goto(f"/r/{code}")  # she sits there: the browser keeps the code
    tab.goto("/tables")
    tab.page.wait_for_selector("#tables[data-ready]")
    rows = tab.page.locator(".table-row")
    assert rows.count() == 2
    assert tab.page.locator(".table-row.awaited").count() == 0
    assert audit(tab) == []

    # The first match starts: whoever is to play there is marked, with the deadline in the reader's own time.
    ben = protocol_player(push_server, second, ben_second)
    ben.send({"type": "start"})
    state = push_server.wait_room(second, lambda now: now["state"]["phase"] == "playing")["state"]
    ana_seat = 1
    tab.goto("/tables")
    tab.page.wait_for_selector("#tables[data-ready]")
    deadline = tab.page.locator(f'.table-row[data-code="{second}"] time')
    assert deadline.get_attribute("datetime") == state["deadline"]
    shown = tab.page.evaluate("() => document.querySelector('.table-row time').textContent")
    assert shown  # written in the reader's locale and time zone
    expected = tab.page.evaluate("""d => new Date(d).toLocaleString("en", {weekday: "short", day: "numeric",
      month: "short", hour: "2-digit", minute: "2-digit"})""", state["deadline"])
    assert deadline.inner_text() == expected
    # The table's own page shows it so too.
    tab.goto(f"/r/{second}")
    tab.page.wait_for_selector("#status .deadline time[data-local]")
    assert tab.page.locator("#status .deadline time").inner_text() == expected
    tab.goto("/tables")
    tab.page.wait_for_selector("#tables[data-ready]")
    if state["turn"] == ana_seat:
        assert tab.page.locator(".table-row").first.get_attribute("data-code") == second
        assert tab.page.locator(f'.table-row[data-code="{second}"].awaited .awaited-mark').inner_text() == "Your turn"
    else:
        assert tab.page.locator(f'.table-row[data-code="{second}"]').inner_text().count("Waiting for Ben") == 1
        assert tab.page.locator(".table-row.awaited").count() == 0
    assert audit(tab) == []
    ben.close()

    # A table where this browser no longer sits is forgotten; none of its tokens is ever kept.
    tab.context.clear_cookies()
    sign_in(tab, second, ana_second)
    tab.goto("/tables")
    tab.page.wait_for_selector("#tables[data-ready]")
    assert [rows.nth(index).get_attribute("data-code") for index in range(rows.count())] == [second]
    kept = tab.page.evaluate("() => JSON.stringify(Object.assign({}, localStorage))")
    assert first not in kept and ana_first not in kept and ana_second not in kept
    assert tab.problems() == []

    # Offline, the page is the site's offline page: no table's state is kept anywhere to be shown instead.
    tab.page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    tab.goto("/tables")  # the worker's page now
    tab.context.set_offline(True)
    try:
        answer = tab.page.goto(push_server.url + "/tables")
        assert answer is not None and answer.from_service_worker
        tab.page.wait_for_selector("main[data-offline]")
        assert tab.page.locator(".table-row").count() == 0
        assert audit(tab) == []
    finally:
        tab.context.set_offline(False)
    # Back by itself once the site answers (the offline page's check of the address may be cut short by
    # that very reload: not a fault).
    tab.page.wait_for_selector("#tables[data-ready]")
    assert tab.page.locator(".table-row").count() == 1


IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                 "Version/17.5 Mobile/15E148 Safari/604.1")


def test_on_an_iphone_outside_the_home_screen_the_page_says_how_to_get_notifications(
        open_tab: Any, push_server: LiveServer) -> None:
    code, (ana_token, _) = slow_room(push_server, "Ana", "Ben")
    tab = open_tab("iphone", live=push_server, user_agent=IPHONE_SAFARI, viewport={"width": 390, "height": 844},
                   is_mobile=True, has_touch=True)
    # Safari in a tab, not opened from the Home Screen, has no push manager at all.
    tab.context.add_init_script(script="delete window.PushManager;")
    sign_in(tab, code, ana_token)
    tab.goto(f"/r/{code}")
    tab.page.locator('.panel-tab[data-panel="more"]').click()
    home = tab.page.locator("#slow .notify-home")
    home.wait_for()
    assert "Add to Home Screen" in home.inner_text() and "Share" in home.inner_text()
    button = tab.page.locator("#slow .notify-button")
    assert button.is_enabled()
    button.click()
    assert tab.page.evaluate("() => document.activeElement.classList.contains('notify-home')")
    assert audit(tab) == []
    assert tab.problems() == []
