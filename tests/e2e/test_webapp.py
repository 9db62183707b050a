"""The site as an installable app, in Chromium: its installability check, and its service worker offline,
which keeps the static files and the offline page and never a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.wording.language import speaking, translations
from tests.e2e.conftest import CHROMIUM
from tests.e2e.helpers import CHROMIUM_ARGS, LiveServer, Tab, audit, cdn_packages, protocol_player, sign_in

pytestmark = pytest.mark.e2e

CACHED_PATHS_JS = """async () => {
  const found = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    found[name] = (await cache.keys()).map(request => new URL(request.url).pathname + new URL(request.url).search);
  }
  return found;
}"""

BACKGROUND_JS = "() => getComputedStyle(document.body).backgroundColor"


def wait_for_worker(tab: Tab) -> None:
    """Wait until the site's service worker is active (it controls the pages loaded from then on)."""
    tab.page.evaluate("async () => { await navigator.serviceWorker.ready; }")


def cached_paths(tab: Tab) -> dict[str, list[str]]:
    """Every cache of the site, by name, with the paths (and queries) of what it holds."""
    result: dict[str, list[str]] = tab.page.evaluate(CACHED_PATHS_JS)
    return result


def said(code: str, message: str) -> str:
    with speaking(code):
        return translations(code).gettext(message)


def test_chromium_finds_nothing_that_keeps_the_site_from_being_installed(playwright_driver: Any, server: LiveServer,
                                                                       tmp_path: Path) -> None:
    # A browser profile of its own: Playwright's other contexts are "incognito", where nothing installs.
    context = playwright_driver.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    try:
        tab = Tab.open(context, "installer", server, cdn_packages())
        check_installable(tab)
    finally:
        context.close()


def check_installable(tab: Tab) -> None:
    for path in ["/", "/rules", "/matches"]:
        tab.goto(path)
        session = tab.context.new_cdp_session(tab.page)
        try:
            errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
            manifest = session.send("Page.getAppManifest")
        finally:
            session.detach()
        assert errors == [], f"{path}: {errors}"
        assert manifest["url"].endswith("/manifest/en.webmanifest") and not manifest["errors"], manifest
    assert tab.problems() == []


def test_offline_a_room_shows_the_offline_page_in_the_visitors_language_and_never_a_kept_table(
        open_tab: Any, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ben", "preset": "quick"})
    code = host["code"]
    ben = protocol_player(server, code, host["token"])
    ana_token = server.post(f"/api/rooms/{code}/players", {"name": "Ana"})["token"]
    ben.send({"type": "start"})
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")

    # Ana's browser is set to English; she chose Danish on the site (its cookie), which the offline page speaks.
    tab = open_tab("ana", locale="en-GB")
    tab.context.add_cookies([{"name": "cucumber_lang", "value": "da", "url": server.url}])
    sign_in(tab, code, ana_token)
    tab.goto(f"/r/{code}")
    wait_for_worker(tab)
    assert tab.page.evaluate("() => navigator.serviceWorker.controller") is None  # the page it registered from
    tab.goto(f"/r/{code}")  # now through the worker
    assert tab.page.evaluate("() => navigator.serviceWorker.controller.state") == "activated"
    hand = [card["card"] for card in tab.snapshot()["hand"]]
    assert hand, "Ana holds no cards"
    assert tab.problems() == []
    online_background = tab.page.evaluate(BACKGROUND_JS)

    kept = cached_paths(tab)
    assert kept, "the worker kept nothing"
    every_path = [path for paths in kept.values() for path in paths]
    assert all(path.startswith(("/static/", "/offline/")) for path in every_path), kept
    assert {f"/offline/{code}" for code in ("da", "en", "sv", "de", "es", "it")} <= set(every_path)
    # The offline page's stylesheet and script, by their names (a URL may carry a hash before the suffix).
    for name, suffix in (("app", ".css"), ("webapp", ".js")):
        assert any(path.startswith(f"/static/{name}.") and path.endswith(suffix) for path in every_path), kept

    tab.context.set_offline(True)
    try:
        for path in [f"/r/{code}", f"/r/{code}/take", "/", f"/r/{code}?again=1"]:
            answer = tab.page.goto(server.url + path)
            assert answer is not None and answer.from_service_worker
            tab.page.wait_for_selector("main[data-offline]")
            assert tab.page.url == server.url + path  # the address stays the page's own
            assert tab.page.locator("html").get_attribute("lang") == "da"
            assert tab.page.locator("h1").inner_text() == said("da", "You are offline")
            assert tab.page.locator("#hand, #seats, #status, [data-card]").count() == 0
            content = tab.page.content()
            assert not any(f'data-card="{card}"' in content for card in hand)
            # The offline page is styled from the kept stylesheet, and is for everyone.
            assert tab.page.evaluate(BACKGROUND_JS) == online_background
            assert audit(tab) == [], path
        # What is not a page is not answered from any cache either.
        failed = tab.page.evaluate("""async (path) => {
            try { await fetch(path); return false; } catch (error) { return true; } }""", f"/api/rooms/{code}")
        assert failed
        assert all(path.startswith(("/static/", "/offline/"))
                   for paths in cached_paths(tab).values() for path in paths)
    finally:
        tab.context.set_offline(False)

    # Back online, the offline page loads its own address again by itself: the table, with Ana's hand.
    tab.page.wait_for_selector("main#room")
    tab.wait_live()
    assert [card["card"] for card in tab.snapshot()["hand"]] == hand
    ben.close()
