"""A server behind the nginx of docs/hosting.md: with a proxy cache on, a seated player's page reaches that player
alone; and a browser that has sat in 500 rooms still loads every page and socket through it."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from bench.cluster import foreground_conf, nginx_binary
from tests.server.conftest import Server, free_port, open_socket

HOSTING = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"
SEATED = """hx-vals='{"type": "leave"}'"""  # the page of a seated player has the button that gives the seat up
COOKIE_BOUND = 4096
CACHE = """\
        proxy_cache cucumber;
        proxy_cache_valid 200 10s;
        add_header X-Cache-Status $upstream_cache_status always;
"""
"""A micro-cache, as operators put in front of a site: whatever the server lets it keep, kept 10 s."""

pytestmark = pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed (apt-get install nginx)")


def hosting_location() -> str:
    """The ``location / { … }`` of the nginx example of docs/hosting.md, as written there."""
    text = HOSTING.read_text()
    block = re.search(r"```nginx\n(.*?)```", text, re.S)
    assert block is not None, "docs/hosting.md has no nginx example"
    location = re.search(r"^( *)location / \{\n.*?^\1\}\n", block.group(1), re.S | re.M)
    assert location is not None, "the nginx example of docs/hosting.md has no location /"
    return location.group(0)


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start nginx (a child process) in front of a server with docs/hosting.md's ``location /``, optionally with
    :data:`CACHE` in it; returns its base URL. Stopped after the test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(server: Server, *, cache: bool = False) -> str:
        folder = tmp_path / f"nginx{len(processes)}"
        port = free_port()
        location = hosting_location().replace("http://127.0.0.1:8000", f"http://127.0.0.1:{server.port}")
        assert f"127.0.0.1:{server.port}" in location
        if cache:
            location = location.replace("location / {\n", "location / {\n" + CACHE, 1)
        (folder / "nginx.conf").write_text(foreground_conf(folder, f"""\
    proxy_cache_path {folder}/cache keys_zone=cucumber:1m;
    server {{
        listen 127.0.0.1:{port};
{location}    }}
""", connections=1024))
        process = subprocess.Popen([str(nginx_binary()), "-p", f"{folder}/", "-c", str(folder / "nginx.conf")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        processes.append(process)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    return base
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log = (folder / "error.log").read_text() if (folder / "error.log").exists() else ""
                raise RuntimeError(f"nginx did not start: {log}")
            time.sleep(0.1)

    yield start
    for process in processes:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def hand_on(page: str) -> list[str]:
    """The cards of the hand a table page shows (its ``#hand`` region)."""
    region = re.search(r'<section id="hand".*?</section>', page, re.S)
    assert region is not None
    return re.findall(r'<button[^>]*class="card-button[^>]*data-card="(\w+)"', region.group(0))


def start_match(server: Server, code: str, token: str) -> None:
    """The host starts the match (over the JSON protocol, straight to the server) and waits until it is dealt."""
    with open_socket(server, code, token) as host:
        host.send({"type": "start"})
        host.until(lambda state: state["phase"] == "playing")


def test_behind_a_proxy_cache_no_one_but_ana_ever_receives_anas_page(make_server, tmp_path, nginx) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'cache.db'}", rate_limits="false")
    base = nginx(server, cache=True)
    with httpx.Client(base_url=base, timeout=10) as ana, httpx.Client(base_url=base, timeout=10) as ben, \
            httpx.Client(base_url=base, timeout=10) as visitor:
        opened = ana.post("/api/rooms", json={"name": "Ana"}).json()
        code = opened["code"]
        ben.post(f"/api/rooms/{code}/players", json={"name": "Ben"})
        start_match(server, code, opened["token"])
        hands: dict[str, list[str]] = {}
        for attempt in range(3):  # well within the cache's 10 s, each time Ana first
            for name, client in (("ana", ana), ("ben", ben), ("visitor", visitor)):
                for language in ("en", "da"):
                    page = client.get(f"/r/{code}", headers={"Accept-Language": language})
                    assert page.status_code == 200
                    hands.setdefault(name, hand_on(page.text))
                    assert hand_on(page.text) == hands[name], (attempt, name, language)
                    assert page.headers["x-cache-status"] in ("MISS", "BYPASS"), (attempt, name)
                    assert page.headers["cache-control"] == "private, no-store"
        assert len(hands["ana"]) == len(hands["ben"]) == 7 and not set(hands["ana"]) & set(hands["ben"])
        assert hands["visitor"] == []
        # The cache is on: what is the same for everyone is kept and served again from it.
        assert [visitor.get("/rules").headers["x-cache-status"] for _ in range(2)] == ["MISS", "HIT"]
        script = re.search(r'src="(/static/app\.[0-9a-f]+\.js)"', visitor.get("/").text)
        assert script is not None
        assert [visitor.get(script.group(1)).headers["x-cache-status"] for _ in range(2)] == ["MISS", "HIT"]
        # Ben with Ana's language and no cookie of his own yet still gets no copy of her page.
        assert hand_on(httpx.get(f"{base}/r/{code}", headers={"Accept-Language": "en"}).text) == []


def test_a_browser_that_has_sat_in_500_rooms_loads_every_page_and_socket_through_the_documented_nginx(
        make_server, tmp_path, nginx) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'rooms.db'}", rate_limits="false")
    base = nginx(server)
    sent: list[int] = []

    def cookie_header(client: httpx.Client, url: str) -> str:
        request = client.build_request("GET", url)
        header = request.headers.get("cookie", "")
        sent.append(len(header))
        return header

    with httpx.Client(base_url=base, timeout=20) as browser:
        codes = []
        for number in range(500):
            opened = browser.post("/api/rooms", json={"name": f"Ana {number}"})
            assert opened.status_code == 201, opened.text
            codes.append(opened.json()["code"])
        seat_cookies = [cookie for cookie in browser.cookies.jar if cookie.name.startswith("cucumber_")
                        and cookie.name != "cucumber_viewer"]
        assert len(seat_cookies) == 500  # the browser holds them all, each for its own room
        for path in ["/", "/rules", "/matches", "/api/matches", f"/api/rooms/{codes[0]}"]:
            cookie_header(browser, path)
            assert browser.get(path).status_code == 200, path
        for code in codes:
            cookie_header(browser, f"/r/{code}")
            page = browser.get(f"/r/{code}")
            assert page.status_code == 200 and SEATED in page.text, code
            header = cookie_header(browser, f"/r/{code}/ws")
            with connect(f"{base.replace('http', 'ws')}/r/{code}/ws", open_timeout=20,
                         additional_headers={"Cookie": header}) as socket:
                assert SEATED in socket.recv(timeout=20), code
    assert max(sent) < COOKIE_BOUND, max(sent)
