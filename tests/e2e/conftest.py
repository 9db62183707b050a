"""Browser tests: headless Chromium, driven by Playwright, against a live ``cucumber serve``.

The pages load htmx from a CDN; here those URLs are answered from the npm copy
in ``tests/e2e/node_modules`` (run ``npm install`` in this folder), byte for
byte, so Chromium still checks the pages' SRI hashes. Without that copy or
without Chromium the tests are skipped, or fail when ``CUCUMBER_REQUIRE_E2E=1``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import (
    CHROMIUM_ARGS,
    NODE_MODULES,
    SCREENSHOTS,
    LiveServer,
    Tab,
    cdn_packages,
    missing_cdn_copies,
)

CHROMIUM = Path(os.environ.get("CUCUMBER_CHROMIUM", "/usr/bin/chromium"))
DEAL_PAUSE_SECONDS = 0.3
SHORT_GRACE_SECONDS = 3.0


def _unavailable_reason() -> str | None:
    """Why the browser tests cannot run here, or ``None``."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"Chromium is not installed at {CHROMIUM} (set CUCUMBER_CHROMIUM to another path)"
    missing = missing_cdn_copies()
    if missing:
        return (f"the npm copy of the pages' scripts is missing ({'; '.join(missing)}): "
                f"run `npm install` in {NODE_MODULES.parent}")
    return None


@pytest.fixture(scope="session")
def e2e_ready() -> None:
    """Skip the browser tests when their tools are missing; fail instead when CI requires them."""
    skip_unless_ready(_unavailable_reason())


def skip_unless_ready(reason: str | None) -> None:
    """Skip the test when ``reason`` says why a tool it needs is missing; fail instead when CI requires the
    browser tests (``CUCUMBER_REQUIRE_E2E=1``); nothing when ``reason`` is ``None``."""
    if reason is None:
        return
    if os.environ.get("CUCUMBER_REQUIRE_E2E") == "1":
        pytest.fail(f"{reason} (CUCUMBER_REQUIRE_E2E=1)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_command() -> list[str]:
    script = Path(sys.executable).with_name("cucumber")
    if script.exists():
        return [str(script)]
    found = shutil.which("cucumber")
    return [found] if found else [sys.executable, "-m", "app"]


def start_server(folder: Path, *, deal_pause: float, away_grace: float = 600.0,
                 settings: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], LiveServer]:
    """Run ``cucumber serve`` on a free port with a fresh SQLite database in ``folder``.

    ``deal_pause`` and ``away_grace`` are the server's settings of those names, in seconds; ``settings``
    more of them, as environment variables (``{"CUCUMBER_VAPID_SUBJECT": …}``).

    Returns the process and a handle on it once ``/healthz`` answers; raises
    ``RuntimeError`` with the server's log if it does not start in 30 s.
    """
    port = _free_port()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("CUCUMBER_") and key != "DATABASE_URL"}
    env.update({
        "CUCUMBER_DATABASE_URL": f"sqlite:///{folder / 'e2e.db'}",
        "CUCUMBER_DEAL_PAUSE_SECONDS": str(deal_pause),
        "CUCUMBER_BOT_DELAY_SECONDS": "0.05",
        "CUCUMBER_AWAY_GRACE_SECONDS": str(away_grace),
        "CUCUMBER_LOG_LEVEL": "warning",
        # The coach's background analysis is off: a test that shows it analyses its match itself
        # (analyse_match), instead of waiting on a worker at the lowest priority of a busy machine.
        "CUCUMBER_ANALYSIS_WORKERS": "0",
        "PYTHONUNBUFFERED": "1",
        # The rate limits keep their defaults: a session of play in browsers must never meet them.
        **(settings or {}),
    })
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([*_server_command(), "serve", "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = LiveServer(f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + 30
    while not server.is_healthy():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_server(process)
            raise RuntimeError(f"cucumber serve did not start:\n{server.log_text()}")
        time.sleep(0.1)
    return process, server


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Stop a server of ``start_server``: SIGTERM, then SIGKILL if it has not ended in 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def serve(folder: Path, *, deal_pause: float, away_grace: float = 600.0,
          settings: dict[str, str] | None = None) -> Iterator[LiveServer]:
    """A fixture's live server (:func:`start_server` with these settings), stopped when the fixture ends."""
    process, live = start_server(folder, deal_pause=deal_pause, away_grace=away_grace, settings=settings)
    try:
        yield live
    finally:
        stop_server(process)


@pytest.fixture(scope="session")
def server(e2e_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One live server for the whole run, with a short pause between deals."""
    yield from serve(tmp_path_factory.mktemp("server"), deal_pause=DEAL_PAUSE_SECONDS)


@pytest.fixture(scope="session")
def slow_server(e2e_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A live server whose pause between deals is long enough to look at the deal summary."""
    yield from serve(tmp_path_factory.mktemp("slow-server"), deal_pause=2.5)


@pytest.fixture(scope="session")
def presence_server(e2e_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A live server whose away grace is short (so its pages beat every second): presence in seconds."""
    yield from serve(tmp_path_factory.mktemp("presence-server"), deal_pause=DEAL_PAUSE_SECONDS,
                     away_grace=SHORT_GRACE_SECONDS)


@pytest.fixture(scope="session")
def playwright_driver(e2e_ready: None) -> Iterator[Any]:
    """Playwright, started once for every browser of the run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


def _launch(playwright: Any, **options: Any) -> Iterator[Any]:
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                          **options)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture(scope="session")
def browser(playwright_driver: Any) -> Iterator[Any]:
    """Headless Chromium, shared by every test of the run."""
    yield from _launch(playwright_driver)


@pytest.fixture(scope="session")
def bfcache_browser(playwright_driver: Any) -> Iterator[Any]:
    """Headless Chromium with its back/forward cache on, as people's browsers have it (Playwright
    turns it off by default, with ``--disable-back-forward-cache``)."""
    yield from _launch(playwright_driver, ignore_default_args=["--disable-back-forward-cache"])


def _tab_opener(browser: Any, server: LiveServer) -> Iterator[Callable[..., Tab]]:
    contexts: list[Any] = []
    packages = cdn_packages()

    def open_(label: str, *, live: LiveServer | None = None, **options: Any) -> Tab:
        context = browser.new_context(**options)
        contexts.append(context)
        return Tab.open(context, label, live or server, packages)

    yield open_
    for context in contexts:
        context.close()


@pytest.fixture
def open_tab(browser: Any, server: LiveServer) -> Iterator[Callable[..., Tab]]:
    """Open a page in a new browser context (its own cookies: one person each).

    ``open_tab(label, live=…, **context_options)``; every context is closed
    after the test. The CDN is answered from the npm copy; any other request
    that leaves the server is refused and recorded on the tab.
    """
    yield from _tab_opener(browser, server)


@pytest.fixture
def open_cached_tab(bfcache_browser: Any, presence_server: LiveServer) -> Iterator[Callable[..., Tab]]:
    """Like ``open_tab``, in the browser with a back/forward cache, on the server with a short away grace."""
    yield from _tab_opener(bfcache_browser, presence_server)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder screenshots are written to for review (ignored by git)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
