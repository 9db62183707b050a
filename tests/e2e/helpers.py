"""Helpers for the browser tests: the live server's HTTP API, a browser tab, players over the protocol.

A :class:`Tab` reads the room page the way a person sees it (cards by their
``data-card`` codes) and records what went wrong in the browser: console
errors, failed requests, dialogs and requests that tried to leave the server.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.client import Connection
from app.pages.rendering import HTMX_URL, HTMX_WS_URL

E2E = Path(__file__).resolve().parent
NODE_MODULES = E2E / "node_modules"
SCREENSHOTS = E2E / "screenshots"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

CDN_URL = re.compile(r"^https://cdn\.jsdelivr\.net/npm/((?:@[^/]+/)?[^@/]+)@([^/]+)/(.+)$")
PAGE_SCRIPTS = (HTMX_URL, HTMX_WS_URL)
"""The CDN files the pages load; the npm copy must hold exactly these versions."""

RANKS = "23456789TJQKA"
WAIT_MS = 10_000


# ---------------------------------------------------------------- the CDN copy

def _installed_version(package: str) -> str | None:
    try:
        return json.loads((NODE_MODULES / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def missing_cdn_copies() -> list[str]:
    """What is missing from ``node_modules`` to answer the pages' CDN URLs (empty when nothing is)."""
    problems = []
    for url in PAGE_SCRIPTS:
        package, version, path = CDN_URL.match(url).groups()  # type: ignore[union-attr]
        installed = _installed_version(package)
        if installed is None:
            problems.append(f"{package} is not installed")
        elif installed != version:
            problems.append(f"{package} {installed} is installed but the pages load {version}")
        elif not (NODE_MODULES / package / path).is_file():
            problems.append(f"{package}/{path} is missing")
    return problems


def cdn_packages() -> dict[str, str]:
    """Installed package name → version, for the packages the pages load from the CDN."""
    packages = {}
    for url in PAGE_SCRIPTS:
        package = CDN_URL.match(url).group(1)  # type: ignore[union-attr]
        version = _installed_version(package)
        if version is not None:
            packages[package] = version
    return packages


CDN_HEADERS = {"Content-Type": "application/javascript; charset=utf-8", "Access-Control-Allow-Origin": "*"}
"""What the CDN's answer for a script says (the pages load them with ``crossorigin="anonymous"``)."""


def cdn_copy(url: str, packages: dict[str, str]) -> Path | None:
    """The npm copy in ``node_modules`` of a CDN URL (without query or fragment), or ``None`` when the URL
    is not one of ``packages`` (name → installed version: :func:`cdn_packages`) at that version, or
    names no file inside the package."""
    found = CDN_URL.match(url)
    if not found:
        return None
    package, version, path = found.groups()
    base = (NODE_MODULES / package).resolve()
    file = (base / path).resolve()
    if packages.get(package) == version and base in file.parents and file.is_file():
        return file
    return None


# ---------------------------------------------------------------- the server

@dataclass
class LiveServer:
    """A running ``cucumber serve``: its base URL and log, and its JSON API."""

    url: str
    log_path: Path

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """``(status, decoded JSON body)`` of one request; an error whose body is not JSON (a proxy's own page)
        gives its text."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            with error:
                text = error.read()
            try:
                return error.code, json.loads(text or b"null")
            except ValueError:
                return error.code, text.decode(errors="replace")

    def get(self, path: str) -> Any:
        """The JSON of a ``GET`` that must succeed."""
        status, body = self.request("GET", path)
        assert status == 200, f"GET {path} → {status} {body}"
        return body

    def post(self, path: str, body: Any) -> Any:
        """The JSON of a ``POST`` that must succeed."""
        status, answer = self.request("POST", path, body)
        assert status in (200, 201), f"POST {path} → {status} {answer}"
        return answer

    def room(self, code: str) -> dict[str, Any]:
        """``{"version", "state"}``: the room as a spectator sees it."""
        return self.get(f"/api/rooms/{code}")

    def wait_room(self, code: str, until: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        """Poll the room until ``until(answer)`` holds; the answer is ``{"version", "state"}``."""
        deadline = time.monotonic() + timeout
        while True:
            answer = self.room(code)
            if until(answer):
                return answer
            if time.monotonic() > deadline:
                raise AssertionError(f"room {code} never got there; last state: {answer}")
            time.sleep(0.02)

    def ws_url(self, path: str) -> str:
        """The ``ws://`` URL of a path on this server."""
        return "ws" + self.url.removeprefix("http") + path

    def is_healthy(self) -> bool:
        """Whether ``/healthz`` answers 200."""
        try:
            return self.request("GET", "/healthz")[0] == 200
        except OSError:
            return False

    def log_text(self) -> str:
        """Everything the server wrote so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


# ---------------------------------------------------------------- the rules, independently

def rank(code: str) -> int:
    """The rank of a card code, 0 for a two up to 12 for an ace."""
    return RANKS.index(code[0])


def expected_legal(hand: list[str], trick: list[str]) -> set[str]:
    """The cards of ``hand`` that may follow ``trick`` under the house rules (docs/rules.md §2.4).

    The leader plays anything; a follower a card at least as high as the
    highest in the trick, or any card of their lowest rank.
    """
    if not trick:
        return set(hand)
    top = max(rank(card) for card in trick)
    lowest = min(rank(card) for card in hand)
    return {card for card in hand if rank(card) >= top or rank(card) == lowest}


RANK_WORDS = dict(zip(RANKS, ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
                              "Jack", "Queen", "King", "Ace"), strict=True))
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def card_words(code: str) -> str:
    """A card's name as people say it: ``"9H"`` → ``"Nine of hearts"``."""
    return f"{RANK_WORDS[code[0]]} of {SUIT_WORDS[code[1]]}"


# ---------------------------------------------------------------- a browser tab

SNAPSHOT_JS = """() => {
  const cards = (root, sel) => root ? [...root.querySelectorAll(sel)].map(e => e.dataset.card) : [];
  const status = document.getElementById('status');
  const hand = [...document.querySelectorAll('#hand .card-button')].map(b => ({
    card: b.dataset.card,
    playable: b.getAttribute('aria-disabled') !== 'true' && !b.disabled,
    label: b.querySelector('.visually-hidden')?.textContent.trim() ?? null,
    reason: b.dataset.reason || null,
  }));
  const played = {};
  for (const seat of document.querySelectorAll('#seats [data-seat]')) {
    played[seat.dataset.seat] = cards(seat.querySelector('.played'), '.card[data-card]');
  }
  return {
    version: status ? +status.dataset.version : null,
    phase: status ? status.dataset.phase : null,
    turn: status && status.dataset.turn !== undefined && status.dataset.turn !== '' ? +status.dataset.turn : null,
    hand,
    trick: [...document.querySelectorAll('#trick .trick-cards .card[data-card]')].map(
      e => ({seat: +e.closest('[data-seat]').dataset.seat, card: e.dataset.card})),
    played,
    flash: (document.getElementById('flash') || {}).textContent?.trim() || '',
    connection: (document.getElementById('connection') || {dataset: {}}).dataset.state || null,
  };
}"""


@dataclass
class Tab:
    """One person's browser page, and what went wrong in it."""

    context: Any = field(repr=False)
    page: Any = field(repr=False)
    label: str
    server: LiveServer = field(repr=False)
    console_errors: list[str] = field(default_factory=list, repr=False)
    page_errors: list[str] = field(default_factory=list, repr=False)
    failed_requests: list[str] = field(default_factory=list, repr=False)
    refused_requests: list[str] = field(default_factory=list, repr=False)
    cdn_served: list[str] = field(default_factory=list, repr=False)
    dialogs: list[tuple[str, str, str]] = field(default_factory=list, repr=False)
    frames: list[str] = field(default_factory=list, repr=False)
    sent: list[str] = field(default_factory=list, repr=False)
    sockets_opened: int = 0

    @classmethod
    def open(cls, context: Any, label: str, server: LiveServer, packages: dict[str, str]) -> Tab:
        """A new page in ``context`` with the CDN answered from ``packages`` and everything recorded."""
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        tab = cls(context, page, label, server)
        own = server.url + "/"
        context.route(lambda url: not url.startswith(own), lambda route: tab._answer_outside(route, packages))
        page.on("console", lambda message: message.type == "error" and tab.console_errors.append(message.text))
        page.on("pageerror", lambda error: tab.page_errors.append(str(error)))
        page.on("requestfailed", tab._request_failed)
        page.on("response", lambda response: response.status >= 400 and tab.failed_requests.append(
            f"{response.status} {response.request.method} {response.url}"))
        page.on("dialog", tab._dialog)
        page.on("websocket", tab._socket_opened)
        return tab

    def _answer_outside(self, route: Any, packages: dict[str, str]) -> None:
        url = route.request.url.split("?", 1)[0].split("#", 1)[0]
        file = cdn_copy(url, packages)
        if file is not None:
            self.cdn_served.append(url)
            route.fulfill(status=200, body=file.read_bytes(), headers=CDN_HEADERS)
            return
        self.refused_requests.append(route.request.url)
        route.abort()

    def _request_failed(self, request: Any) -> None:
        # The browser gives up the icon's request when the page moves on before it came: not a fault of the page.
        icon = re.search(r"/static/favicon\.[0-9a-f]+\.svg$", request.url) is not None
        given_up = request.failure == "net::ERR_ABORTED" and icon
        if request.url not in self.refused_requests and not given_up:
            self.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append((dialog.type, dialog.message, dialog.default_value))
        dialog.dismiss()

    def _socket_opened(self, socket: Any) -> None:
        self.sockets_opened += 1
        socket.on("framereceived", self._frame)
        socket.on("framesent", lambda payload: self.sent.append(payload if isinstance(payload, str) else
                                                                payload.decode("utf-8", "replace")))

    def _frame(self, payload: str | bytes) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode("utf-8", "replace"))

    # ---- navigation and state

    def goto(self, path_or_url: str) -> None:
        """Open a path of the server (or a full URL) and wait for the page's live connection."""
        url = path_or_url if path_or_url.startswith("http") else self.server.url + path_or_url
        self.page.goto(url)
        if self.page.locator("main#room").count():
            self.wait_live()

    def wait_live(self) -> None:
        """Wait until the page's WebSocket is open; remember the element that holds it."""
        self.page.wait_for_selector('#connection[data-state="open"]', state="attached")
        self.page.evaluate("() => { window.roomAtStart = window.roomAtStart || document.querySelector('main#room'); }")

    def snapshot(self) -> dict[str, Any]:
        """The table as the page shows it, read at one instant (see ``SNAPSHOT_JS``)."""
        return self.page.evaluate(SNAPSHOT_JS)

    def wait_version(self, version: int) -> None:
        """Wait until the page shows room version ``version`` or later."""
        self.page.wait_for_function(
            "v => +(document.getElementById('status') || {dataset: {}}).dataset.version >= v", arg=version)

    def card(self, code: str) -> Any:
        """The locator of a card of the viewer's hand."""
        return self.page.locator(f'#hand .card-button[data-card="{code}"]')

    def problems(self) -> list[str]:
        """Console errors, uncaught errors, failed and refused requests and dialogs, labelled."""
        found = [f"console error: {text}" for text in self.console_errors]
        found += [f"page error: {text}" for text in self.page_errors]
        found += [f"failed request: {text}" for text in self.failed_requests]
        found += [f"request outside the server: {url}" for url in self.refused_requests]
        found += [f"dialog {kind}: {message}" for kind, message, _ in self.dialogs]
        return [f"{self.label}: {line}" for line in found]


def _served_room(server: LiveServer, code: str, deadline: float) -> dict[str, Any]:
    """The room as a spectator sees it (``LiveServer.room``), asked again until ``deadline`` while it changes
    hands in a cluster: ``503`` ``room_moving`` until a process takes it over (docs/cluster.md), or a proxy's
    ``502``/``504`` while the process it was sent to is gone."""
    while True:
        status, body = server.request("GET", f"/api/rooms/{code}")
        if status == 200:
            return body
        if status not in (502, 503, 504) or time.monotonic() > deadline:
            raise AssertionError(f"GET /api/rooms/{code} → {status} {body}")
        time.sleep(0.2)


def sync_pages(server: LiveServer, code: str, tabs: list[Tab], timeout: float = 10) -> dict[str, Any]:
    """Wait until every tab shows the room's current version; returns that ``{"version", "state"}``.

    Asks the server again whenever a tab has already moved past the answer.
    """
    deadline = time.monotonic() + timeout
    while True:
        answer = _served_room(server, code, deadline)
        for tab in tabs:
            tab.wait_version(answer["version"])
        if all(tab.snapshot()["version"] == answer["version"] for tab in tabs):
            again = _served_room(server, code, deadline)
            if again["version"] == answer["version"]:
                return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"pages never settled on one version; server at {answer['version']}, "
                                 f"pages at {[tab.snapshot()['version'] for tab in tabs]}")


# ---------------------------------------------------------------- players over the JSON protocol

def protocol_player(server: LiveServer, code: str, token: str) -> Connection:
    """A seated player over the JSON protocol (docs/protocol.md), to fill seats quickly: connected, with
    its first state."""
    return Connection.open(server.ws_url(f"/api/rooms/{code}/ws"), token, strict=False, timeout=10)


# ---------------------------------------------------------------- what every page must show

AXE_VERSION = "4.14.1"
"""The axe-core that ``package.json`` pins for the audit."""
AXE_SCRIPT = NODE_MODULES / "axe-core" / "axe.min.js"
AXE_RUN_JS = """async (scope) => {
  const result = await axe.run(scope ? document.querySelector(scope) : document, {resultTypes: ['violations'],
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}});
  return result.violations.map(v => `${v.id} (${v.impact}): `
    + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
}"""


def audit(tab: Tab, scope: str | None = None, *, settle: bool = True) -> list[str]:
    """The axe-core audit (npm ``axe-core`` in ``node_modules``) of the page as it is now (or of the element
    ``scope`` selects): one line per rule broken, with the first elements that break it; empty when it passes.

    The script is evaluated by the test, not loaded by the page, whose policy refuses inline scripts.
    Every rule of those tags runs; none is left out. With ``settle`` it first waits for the cards in
    motion to come to rest; without, it audits them where they are.
    """
    if not AXE_SCRIPT.is_file():
        raise AssertionError(f"axe-core is not installed: run `npm install` in {E2E}")
    if not tab.page.evaluate("() => typeof window.axe === 'object'"):
        tab.page.evaluate(AXE_SCRIPT.read_text() + "\n;undefined")
    if settle:
        tab.page.evaluate(SETTLED_JS)
    return list(tab.page.evaluate(AXE_RUN_JS, scope))


SETTLED_JS = """() => Promise.all(document.getAnimations()
  .filter(a => isFinite(a.effect?.getComputedTiming().endTime)).map(a => a.finished.catch(() => null)))"""
"""Waits for the page's finite animations (cards in motion) to end."""


UNNAMED_JS = """() => [...document.querySelectorAll('main button, main a[href], main [role=img]')]
  .filter(e => !(e.getAttribute('aria-label') || e.textContent).trim())
  .map(e => e.outerHTML.slice(0, 80))"""
"""Buttons, links and pictures (cards, hearts, presence) in the room that a screen reader could not name."""


def check_pages(answer: dict[str, Any], players: dict[int, Tab], spectators: list[Tab]) -> bool:
    """Compare every page with the room's public state (a ``sync_pages`` answer, ``{"version", "state"}``).

    Each player's page shows the server's trick, turn and played cards, as
    many cards as the server says they hold, and exactly the legal ones
    enabled (by the house rules, from the visible trick and hand) when it is
    their turn, none otherwise; every card has an accessible name. A
    spectator's page holds no hand at all, and no card that is in a hand.
    Returns ``False``, checking nothing, when the room has moved on by itself
    meanwhile (the next deal after the pause): sync again and retry.
    """
    state = answer["state"]
    tabs = [*players.values(), *spectators]
    shots = {tab.label: tab.snapshot() for tab in tabs}
    spectator_html = {tab.label: tab.page.content() for tab in spectators}
    if any(tab.snapshot()["version"] != answer["version"] for tab in tabs):
        return False
    trick = [(play["seat"], play["card"]) for play in state["trick"]]
    held: set[str] = set()
    for tab in tabs:
        assert shots[tab.label]["version"] == answer["version"], tab.label
        assert tab.page.evaluate(UNNAMED_JS) == [], tab.label
        # The element holding the WebSocket is never swapped away.
        assert tab.page.evaluate("() => document.querySelector('main#room') === window.roomAtStart"), tab.label
    for seat, tab in players.items():
        shot = shots[tab.label]
        where = f"{tab.label} (seat {seat})"
        assert shot["phase"] == state["phase"], where
        assert shot["turn"] == state["turn"], where
        assert [(play["seat"], play["card"]) for play in shot["trick"]] == trick, where
        assert shot["played"] == {str(s["seat"]): s["played"] for s in state["seats"]}, where
        hand = [held_card["card"] for held_card in shot["hand"]]
        held.update(hand)
        assert len(hand) == state["seats"][seat]["cards_left"], where
        enabled = {held_card["card"] for held_card in shot["hand"] if held_card["playable"]}
        if state["turn"] == seat:
            assert enabled == expected_legal(hand, [card for _, card in trick]), (where, hand, trick)
            assert enabled, where
        else:
            assert enabled == set(), where
        for held_card in shot["hand"]:
            words = card_words(held_card["card"])
            if held_card["playable"]:
                assert held_card["label"] == f"{words}, playable", where
            else:
                assert held_card["reason"], where
                assert held_card["label"] == f"{words}, not playable: {held_card['reason']}", where
    for tab in spectators:
        shot = shots[tab.label]
        assert shot["hand"] == [], tab.label
        assert tab.page.locator("#hand .card, #hand button").count() == 0, tab.label
        html = spectator_html[tab.label]
        assert "card-button" not in html, tab.label
        shown = set(re.findall(r'data-card="([2-9TJQKA][CDHS])"', html))
        assert not shown & held, (tab.label, shown & held)
        assert [(play["seat"], play["card"]) for play in shot["trick"]] == trick, tab.label
    return True


def play_with_keyboard(tab: Tab, card: str) -> None:
    """Tab from the hand's heading to ``card`` and press Enter, as a keyboard user plays."""
    tab.page.locator("#hand h2").click()
    for _ in range(16):
        tab.page.keyboard.press("Tab")
        if tab.page.evaluate("() => document.activeElement && document.activeElement.dataset.card") == card:
            break
    else:
        raise AssertionError(f"{tab.label}: Tab never reached {card}")
    tab.page.keyboard.press("Enter")


def standings_on_page(tab: Tab) -> list[tuple[int, str, int]]:
    """The final standings table of a page: ``(place, name, points)`` rows in order."""
    rows = tab.page.locator("#summary table.standings tbody tr")
    found = []
    for index in range(rows.count()):
        cells = rows.nth(index).locator("td")
        found.append((int(cells.nth(0).inner_text()), cells.nth(1).inner_text().replace("🏆", "").strip(),
                      int(cells.nth(2).inner_text())))
    return found


def sign_in(tab: Tab, code: str, token: str) -> None:
    """Give the tab's browser the player cookie of ``token`` for room ``code``, as joining would."""
    host = urllib.parse.urlsplit(tab.server.url).hostname
    tab.context.add_cookies([{"name": f"cucumber_{code}", "value": token, "domain": host, "path": f"/r/{code}",
                              "httpOnly": True, "sameSite": "Lax"}])


def play_until(server: LiveServer, code: str, pages: dict[int, Tab], others: dict[int, Connection],
               stop: Callable[[dict[str, Any]], bool], watchers: tuple[Tab, ...] = ()) -> dict[str, Any]:
    """Play turn after turn until ``stop(answer)`` holds for the room; returns that answer.

    A seat with a page plays its first playable card by clicking it; a seat
    in ``others`` plays its lowest legal card over the protocol; the server
    plays any other seat (a bot's, or the stand-in's of a player who stepped
    away). Every page is in sync with the answer ``stop`` sees.
    """
    while True:
        answer = sync_pages(server, code, [*pages.values(), *watchers])
        if stop(answer):
            return answer
        state = answer["state"]
        assert state["phase"] == "playing", f"the match ended first: {state['phase']}"
        turn = state["turn"]
        if turn in pages:
            pages[turn].page.locator("#hand .card-button.playable").first.click()
        elif turn in others:
            player = others[turn]
            player.wait(lambda now, who=player, seat=turn, seen=answer["version"]:
                        who.version >= seen and now["turn"] == seat)
            player.play_lowest()
        server.wait_room(code, lambda now, seen=answer["version"]: now["version"] > seen)


def analyse_match(server: LiveServer, match_id: str) -> None:
    """Have the coach analyse finished match ``match_id`` in this process, in the server's database (its own
    workers are off in these tests), as a worker would (docs/coach.md)."""
    from app.coach.worker import analyse_next
    from app.storage import Storage

    storage = Storage(f"sqlite:///{server.log_path.parent / 'e2e.db'}")
    try:
        assert analyse_next(storage, "e2e", match_id=match_id, worlds=50) == match_id
    finally:
        storage.close()
    assert server.get(f"/api/matches/{match_id}/analysis")["status"] == "done"
