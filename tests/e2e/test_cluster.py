"""A match in two browsers through nginx in front of three processes, while the room's owner is killed:
the pages reconnect by themselves and the match goes on to its end."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.game.record import check_record
from bench.cluster import Cluster
from tests.cluster.conftest import cluster_services  # noqa: F401 (a fixture)
from tests.cluster.ownership import current_owners
from tests.e2e.conftest import DEAL_PAUSE_SECONDS
from tests.e2e.helpers import LiveServer, Tab, check_pages, play_until, sign_in, sync_pages

pytestmark = [pytest.mark.e2e, pytest.mark.cluster, pytest.mark.postgres, pytest.mark.redis]

CUT_SOCKET = re.compile(r"console error: (WebSocket connection to '\S+/r/\w+/ws' failed|\[object Event\]$)")
"""What Chromium and htmx log when a page's socket is cut (the process behind it was killed)."""


@pytest.fixture
def cluster(e2e_ready: None, cluster_services: tuple[str, str],  # noqa: F811
            tmp_path: Path) -> Iterator[tuple[Cluster, LiveServer]]:
    """Three processes behind nginx, and the proxy as a :class:`LiveServer` for the tabs."""
    postgres_url, redis = cluster_services
    settings = {"CUCUMBER_DEAL_PAUSE_SECONDS": str(DEAL_PAUSE_SECONDS), "CUCUMBER_RATE_LIMITS": "true"}
    with Cluster(tmp_path / "cluster", postgres_url=postgres_url, redis_url=redis, settings=settings) as running:
        yield running, LiveServer(running.url, tmp_path / "cluster" / "app0.log")


def test_a_match_through_the_proxy_goes_on_after_its_owner_is_killed(
        open_tab, cluster: tuple[Cluster, LiveServer]) -> None:
    running, proxy = cluster
    host = proxy.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 3}})
    code = host["code"]
    guest = proxy.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    ana, ben = open_tab("Ana", live=proxy), open_tab("Ben", live=proxy)
    sign_in(ana, code, host["token"])
    sign_in(ben, code, guest["token"])
    for tab in (ana, ben):
        tab.goto(f"/r/{code}")
    ana.page.click("#controls button.start")
    proxy.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    players: dict[int, Tab] = {0: ana, 1: ben}
    answer = play_until(proxy, code, players, {}, lambda now: len(now["state"]["trick"]) == 1)
    assert check_pages(answer, players, [])
    opened = {tab.label: tab.sockets_opened for tab in (ana, ben)}

    owner = running.app_named(current_owners(running.database_url, [code]).get(code, ""))
    assert owner is not None, "the room has no owner in the database"
    killed_at = time.monotonic()
    owner.kill()

    # Nobody touches the pages: they see their socket go and come back, through the proxy, to
    # whichever process has the room now.
    deadline = time.monotonic() + 30
    while any(tab.sockets_opened == opened[tab.label] for tab in (ana, ben)):
        assert time.monotonic() < deadline, "a page did not reconnect by itself"
        ana.page.wait_for_timeout(100)
    for tab in (ana, ben):
        tab.page.wait_for_selector('#connection[data-state="open"]', state="attached", timeout=30_000)
    answer = sync_pages(proxy, code, [ana, ben], timeout=30)
    assert check_pages(answer, players, [])
    answer = play_until(proxy, code, players, {}, lambda now: now["state"]["trick"] != answer["state"]["trick"])
    print(f"\nbrowser failover: kill to the next play {time.monotonic() - killed_at:.2f} s")

    final = play_until(proxy, code, players, {}, lambda now: now["state"]["phase"] == "finished")
    record = proxy.get(f"/api/matches/{final['state']['match_id']}/record")
    outcome = check_record(record)
    assert outcome["ok"] and outcome["finished"] and outcome["winners"] == final["state"]["winners"]
    for tab in (ana, ben):
        # The browser reports the socket that the kill cut; anything else is a problem.
        problems = [line for line in tab.problems() if not CUT_SOCKET.search(line)]
        assert problems == [], problems
