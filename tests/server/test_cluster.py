"""Real server processes sharing rooms: a database lease alone, and in a cluster one owner per room.

Cluster tests run two ``cucumber serve`` processes on one PostgreSQL schema and one Redis (a key
prefix of the test's own), with leases of 2 s renewed every 0.5 s.
"""

from __future__ import annotations

import json
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from websockets.sync.client import connect

from app.client import Connection
from app.cluster.leases import room_key
from app.game.record import replay
from app.storage import Storage
from tests.conftest import fresh_database
from tests.server.conftest import Server, free_port, open_socket, rising
from tests.server.test_restart import Table, comparable, open_table

pytestmark = [pytest.mark.server]

LEASE = {"lease_seconds": 2, "lease_renew_seconds": 0.5}


@pytest.fixture
def cluster(postgres_server: str, redis_server: str, redis_prefix: str, tmp_path: Path,
            request: pytest.FixtureRequest) -> Iterator[tuple[Callable[..., Server], str]]:
    """A way to start cluster processes by name on a database of the test's own, and that database's URL."""
    servers: list[Server] = []
    with fresh_database("postgres", tmp_path, request) as url:

        def start(name: str, **settings: Any) -> Server:
            server = Server(url, tmp_path / f"{name}.log", redis_url=redis_server, redis_prefix=redis_prefix,
                            process_name=name, **(LEASE | settings))
            servers.append(server)
            server.start()
            return server

        try:
            yield start, url
        finally:
            for server in servers:
                server.stop()


def process_of(server: Server) -> str:
    return server.get("/healthz").json()["process"]


def owners(url: str, code: str) -> list[tuple[int, str]]:
    with Storage(url) as storage:
        return storage.room_owners(code)


def stored_plays(url: str, code: str) -> list[list[str]]:
    """The plays of room ``code``'s match in progress, deal by deal, as stored."""
    with Storage(url) as storage:
        (snapshot,) = [room for room in storage.active_rooms() if room.code == code]
        assert snapshot.match is not None
        return [deal["plays"] for deal in snapshot.match.record["deals"]]


def until_turn(table: Table, seat: int) -> dict[str, Any]:
    """Play on until it is ``seat``'s turn (in a deal under way)."""
    state = table.latest()
    while state["turn"] != seat:
        state = table.play_one()
    return state


def finish(table: Table, url: str) -> None:
    """Play the match to its end, then check the stored record holds every card, in order, as played."""
    state = table.latest()
    while state["phase"] != "finished":
        state = table.play_one()
    final = table.sync_all()[0]
    record = table.server.get(f"/api/matches/{final['match_id']}/record").json()
    assert list(replay(record).winners) == final["winners"]
    assert [deal["plays"] for deal in record["deals"]] == [
        [card for _, card in table.log[number]] for number in sorted(table.log)]


def table_of(server: Server, code: str, clients: list[Connection], seed: int) -> Table:
    """A :class:`Table` whose players are ``clients`` (on whichever process each is)."""
    table = Table.__new__(Table)
    table.server, table.code, table.tokens = server, code, []
    table.clients = clients
    table.rng = random.Random(seed)
    table.log = {}
    return table


def test_a_second_process_alone_on_the_same_database_refuses_to_start_and_forks_nothing(make_server, tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_server(url)
    code, tokens = open_table(first, ["Ana", "Ben"])
    table = Table(first, code, tokens, seed=2)
    table.clients[0].send({"type": "start"})
    table.play_one()
    second = Server(url, tmp_path / "second.log")
    with pytest.raises(RuntimeError, match="exited"):
        second.start()
    assert second.process is not None and second.process.returncode == 3
    assert "another server process" in second.log.read_text() and first.base[7:] not in second.log.read_text()
    # The first process runs on, the only owner its room ever had.
    table.play_one()
    assert owners(url, code) == [(1, process_of(first))]
    assert first.get("/readyz").json()["ready"] is True


def test_a_player_relayed_through_another_process_plays_a_whole_match_seeing_what_a_local_socket_sees(cluster):
    start, url = cluster
    owner, other = start("owner"), start("other")
    answer = owner.post("/api/rooms", {"name": "Ana", "preset": "quick"}).json()
    code, ana = answer["code"], answer["token"]
    joined = other.post(f"/api/rooms/{code}/players", {"name": "Ben"})  # a join on the other process
    assert joined.status_code == 201 and f"cucumber_{code}=" in joined.headers["set-cookie"]
    ben = joined.json()["token"]
    cy = owner.post(f"/api/rooms/{code}/players", {"name": "Cy"}).json()["token"]
    assert other.get(f"/r/{code}").status_code == 200  # the room's page, from the other process
    assert other.get(f"/api/rooms/{code}").json()["state"]["seats"][1]["name"] == "Ben"
    assert (owner.get("/healthz").json()["rooms"], other.get("/healthz").json()["rooms"]) == (1, 0)

    relayed = open_socket(other, code, ben)
    local = open_socket(owner, code, ben)  # the same player in a second tab, on the owner
    table = table_of(owner, code, [open_socket(owner, code, ana), relayed, open_socket(owner, code, cy)], seed=9)
    assert other.get("/healthz").json()["relayed_sockets"] == 1
    assert (owner.get("/healthz").json()["sockets"], owner.get("/healthz").json()["hosted_sockets"]) == (4, 1)
    table.clients[0].send({"type": "start"})
    table.latest()
    mark = table.clients[0].version
    relayed.until(lambda s: relayed.version >= mark)
    local.until(lambda s: local.version >= mark)
    relayed_from, local_from = len(relayed.frames), len(local.frames)

    finish(table, url)
    last = table.clients[0].version
    relayed.until(lambda s: relayed.version >= last)
    local.until(lambda s: local.version >= last)
    assert len(relayed.frames) - relayed_from > 20
    # Frame for frame, the relayed socket got exactly what the owner's own socket for Ben got: his view only.
    assert relayed.frames[relayed_from:] == local.frames[local_from:]
    assert relayed.state["you"]["seat"] == 1 and relayed.state["phase"] == "finished"
    assert owners(url, code) == [(1, process_of(owner))]
    relayed.close()
    wait_for(lambda: owner.get("/healthz").json()["hosted_sockets"] == 0)
    assert other.get("/healthz").json()["relayed_sockets"] == 0


def test_a_frozen_owner_loses_its_room_its_late_play_is_refused_and_its_sockets_are_closed(cluster):
    start, url = cluster
    first, second = start("first"), start("second")
    code, tokens = open_table(first, ["Ana", "Ben"])
    ana_on_first = open_socket(first, code, tokens[0])
    table = table_of(first, code, [ana_on_first, open_socket(second, code, tokens[1])], seed=5)
    table.clients[0].send({"type": "start"})
    table.play_one()
    state = until_turn(table, 0)
    card = ana_on_first.until(lambda s: ana_on_first.version >= table.clients[1].version)["you"]["legal"][0]
    before = stored_plays(url, code)
    first_process = process_of(first)

    first.signal(signal.SIGSTOP)
    # Ben's socket, relayed by the second process, is closed for a reconnect once the frozen owner's lease lapses.
    assert table.clients[1].close_code(timeout=30) == 1012
    ben_again = open_socket(second, code, tokens[1])  # the second process takes the room
    assert second.get("/healthz").json()["rooms"] == 1
    assert comparable(ben_again.state)["trick"] == state["trick"]
    assert owners(url, code) == [(1, first_process), (2, process_of(second))]
    ana_on_first.send({"type": "play", "card": card})  # waits in the frozen process's socket

    first.signal(signal.SIGCONT)
    assert ana_on_first.close_code(timeout=30) == 1012
    assert stored_plays(url, code) == before  # the late play was not stored
    # Once thawed, the process either reads the play first, and the database refuses it (a stale epoch), or
    # renews its leases first, finds this one lost and drops the room: a race, and either way nothing of the
    # play is stored (the database's refusal alone: tests/storage/test_ownership.py).
    log = first.log.read_text()
    assert (f"room '{code}' is at epoch 2, not 1: another process has taken it" in log
            or f"room {code}: its lease is another process's now; dropped" in log), log
    deadline = time.monotonic() + 10
    while first.get("/healthz").json()["rooms"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert first.get("/healthz").json()["rooms"] == 0

    # Ana comes back through the second process, still to play, and the match goes on there.
    table = table_of(second, code, [open_socket(second, code, tokens[0]), ben_again], seed=6)
    assert table.latest()["turn"] == 0 and card in table.clients[0].state["you"]["hand"]
    table.clients[0].send({"type": "play", "card": card})
    table.clients[0].until(lambda s: s["trick"] != state["trick"] or s["deal"] != state["deal"])
    for _ in range(3):
        table.play_one()
    assert [epoch for epoch, _ in owners(url, code)] == [1, 2]


@pytest.mark.parametrize("how", ["sigterm", "kill"])
def test_when_the_owner_stops_another_process_takes_its_room_with_every_acknowledged_play(cluster, how):
    start, url = cluster
    first, second = start("first"), start("second")
    code, tokens = open_table(first, ["Ana", "Ben", "Cy"])
    table = table_of(first, code, [open_socket(first, code, tokens[0]), open_socket(second, code, tokens[1]),
                                   open_socket(first, code, tokens[2])], seed=8)
    table.clients[0].send({"type": "start"})
    table.latest()
    for _ in range(7):
        table.play_one()
    seen = [comparable(state) for state in table.sync_all()]

    stopped_at = time.monotonic()
    if how == "sigterm":
        first.stop()
        assert first.process.returncode in (0, -signal.SIGTERM)  # uvicorn raises the signal again once done
        assert [client.close_code() for client in table.clients] == [1012, 1012, 1012]
    else:
        first.kill()
        assert table.clients[1].close_code(timeout=30) == 1012  # the relayed socket, once the lease lapses
    table = table_of(second, code, [open_socket(second, code, token) for token in tokens], seed=8)
    table.log = {}
    assert [comparable(client.state) for client in table.clients] == seen
    state = table.play_one()
    print(f"{how}: the next play was accepted {time.monotonic() - stopped_at:.1f} s after the owner stopped")
    assert state["turn"] is not None or state["phase"] == "finished"
    assert [epoch for epoch, _ in owners(url, code)] == [1, 2]
    assert owners(url, code)[1][1] == process_of(second)
    while table.latest()["phase"] != "finished":
        table.play_one()


def half_sent_post(server: Server, path: str) -> socket.socket:
    """A connection to ``server`` that sends a POST's headers, promising a body it never sends."""
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    connection.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
                       f"Origin: {server.base}\r\nContent-Length: 1000\r\n\r\n{{".encode())
    return connection


def read_until_closed(connection: socket.socket) -> bytes:
    """Read ``connection`` until the server has closed it, by an end of stream or a reset (a timeout raises);
    what it sent.

    A process that exits with part of the request still unread in its socket may make the kernel reset the
    connection once it has answered.
    """
    chunks = []
    try:
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def test_sigterm_ends_a_cluster_process_in_time_whatever_its_connections_are_doing(cluster):
    start, _ = cluster
    stop_seconds = 3
    first, second = start("first", stop_seconds=stop_seconds), start("second")
    here, here_tokens = open_table(first, ["Ana", "Ben"])
    there, there_tokens = open_table(second, ["Cy", "Dan"])
    local = open_socket(first, here, here_tokens[0])
    hosted = open_socket(second, here, here_tokens[1])  # relayed by the second process to this room on the first
    relayed = open_socket(first, there, there_tokens[0])  # relayed by the first process to the second's room
    health = first.get("/healthz").json()
    assert (health["rooms"], health["hosted_sockets"], health["relayed_sockets"]) == (1, 1, 1)
    # Requests whose body never comes: one for the process itself, one it would relay.
    waiting = [half_sent_post(first, "/api/rooms"), half_sent_post(first, f"/api/rooms/{there}/players")]
    try:
        first.signal(signal.SIGTERM)
        # It answers the half-sent requests at once, hands its room over and exits by itself: its guard would
        # end it with status 1 a few seconds after stop_seconds.
        first.process.wait(60)
        log = first.log.read_text()
        assert first.process.returncode in (0, -signal.SIGTERM), log[-3000:]
        assert "did not stop within" not in log and "Traceback" not in log and "ERROR" not in log, log[-3000:]
        assert local.close_code() == 1012 and hosted.close_code() == 1012 and relayed.close_code() == 1012
        for connection in waiting:
            head, _, body = read_until_closed(connection).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 503 ") and b"\r\nretry-after: 2" in head.lower(), head
            assert json.loads(body)["error"] == "server_stopping"
    finally:
        for connection in waiting:
            connection.close()
    # The room is there for the second process to take.
    assert open_socket(second, here, here_tokens[0]).state["seats"][0]["name"] == "Ana"


def test_the_processes_of_a_cluster_give_an_address_each_limit_once_not_once_each(cluster):
    start, _ = cluster
    first, second = (start(name, limit_rooms_created="3/minute") for name in ("first", "second"))
    answers = [server.post("/api/rooms", {"name": "Ana"}) for server in (first, second, first, second, first)]
    assert [answer.status_code for answer in answers] == [201, 201, 201, 429, 429]
    assert answers[3].json()["error"] == "rate_limited" and int(answers[3].headers["retry-after"]) >= 1
    for server in (first, second):
        assert "cucumber_rate_limits_shared 1.0" in server.get("/metrics").text


def test_a_room_whose_owner_does_not_answer_is_moving_and_a_room_nobody_holds_is_taken_on_demand(
        cluster, redis_server, redis_prefix):
    start, url = cluster
    first = start("first")
    code, tokens = open_table(first, ["Ana", "Ben"])
    first.stop()  # hands the room over: nobody holds it now
    ghost = redis.Redis.from_url(redis_server)
    ghost.set(room_key(redis_prefix, code), "ghost-1-0000", px=60_000)  # an owner that never answers
    second = start("second")
    answer = httpx.get(f"{second.base}/api/rooms/{code}", headers={"Accept-Language": "de"}, timeout=30)
    assert answer.status_code == 503 and answer.headers["retry-after"] == "1"
    assert answer.json()["error"] == "room_moving" and "Serverprozess" in answer.json()["message"]
    ghost.delete(room_key(redis_prefix, code))
    ghost.close()
    assert second.get(f"/api/rooms/{code}").json()["state"]["seats"][1]["name"] == "Ben"  # taken here
    assert [epoch for epoch, _ in owners(url, code)] == [1, 2] and owners(url, code)[1][1] == process_of(second)
    assert open_socket(second, code, tokens[1]).state["you"]["seat"] == 1


def test_a_room_in_play_whose_owner_died_is_taken_by_another_process_where_bots_and_away_players_play_on(cluster):
    """Another process finds the room orphaned and takes it before anyone comes back; there the table's bot
    plays its turns and a bot stands in for the player who never came back."""
    start, url = cluster
    timing = {"away_grace_seconds": 1, "bot_delay_seconds": 0.2}
    first, second = start("first", **timing), start("second", **timing)
    code, tokens = open_table(first, ["Ana", "Ben"])
    ana, ben = open_socket(first, code, tokens[0]), open_socket(second, code, tokens[1])
    ana.send({"type": "add_bot", "strength": "easy"})
    ana.until(lambda s: len(s["seats"]) == 3)
    ana.send({"type": "start"})
    ana.until(lambda s: s["phase"] == "playing")
    first_process = process_of(first)
    first.kill()
    assert ben.close_code(timeout=30) == 1012
    deadline = time.monotonic() + 30
    while second.get("/healthz").json()["rooms"] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)  # nobody has come back: the second process takes the room in play by itself
    assert owners(url, code) == [(1, first_process), (2, process_of(second))]

    ben = open_socket(second, code, tokens[1])
    played_by: set[int] = set()
    rng = random.Random(3)
    while len(played_by) < 3 and time.monotonic() < deadline:
        state = ben.next_state()
        played_by |= {play["seat"] for play in state["trick"]}
        if state["phase"] == "finished":
            break
        if state["turn"] == 1 and state["you"]["legal"]:
            ben.send({"type": "play", "card": rng.choice(state["you"]["legal"])})
    assert played_by == {0, 1, 2}  # Ana's stand-in, Ben and the bot, all on the second process
    assert state["seats"][0]["away"] is True
    assert [epoch for epoch, _ in owners(url, code)] == [1, 2]


def test_the_table_page_and_its_socket_work_through_a_process_that_does_not_own_the_room(cluster):
    start, _ = cluster
    owner, other = start("owner"), start("other")
    code, tokens = open_table(owner, ["Ana", "Ben"])
    cookie = {"Cookie": f"cucumber_{code}={tokens[1]}"}
    page = httpx.get(f"{other.base}/r/{code}", headers=cookie, timeout=10)
    assert page.status_code == 200 and "content-security-policy" in page.headers
    assert f'ws-connect="/r/{code}/ws"' in page.text
    with connect(f"ws://127.0.0.1:{other.port}/r/{code}/ws", additional_headers=cookie, open_timeout=10) as socket:
        regions = socket.recv(timeout=10)
        assert 'id="hand"' in regions and 'id="seats"' in regions
        assert other.get("/healthz").json()["relayed_sockets"] == 1
    form = httpx.post(f"{other.base}/r/{code}/join", data={"name": "Cy"}, timeout=10)  # a form, relayed
    assert form.status_code == 303 and f"cucumber_{code}=" in form.headers["set-cookie"]
    assert [seat["name"] for seat in owner.get(f"/api/rooms/{code}").json()["state"]["seats"]] == ["Ana", "Ben", "Cy"]


def test_a_cluster_process_needs_redis_to_start_and_is_not_ready_while_redis_is_down(postgres_server, tmp_path,
                                                                                       request, redis_server):
    port = free_port()
    redis_command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    with fresh_database("postgres", tmp_path, request) as url:
        server = Server(url, tmp_path / "alone.log", redis_url=f"redis://127.0.0.1:{port}/0", **LEASE)
        with pytest.raises(RuntimeError, match="exited"):
            server.start()  # no Redis there
        assert server.process.returncode == 3 and "Redis at redis://127.0.0.1" in server.log.read_text()
        own_redis = subprocess.Popen(redis_command, stdout=subprocess.DEVNULL)
        try:
            wait_for(lambda: redis.Redis(port=port).ping())
            server.start()
            assert server.get("/readyz").json() == {"ready": True, "process": process_of(server), "mode": "cluster"}
            own_redis.terminate()
            own_redis.wait(10)
            wait_for(lambda: server.get("/readyz").status_code == 503)
            assert server.get("/readyz").json()["reason"] == "redis"
            assert server.get("/healthz").status_code == 200  # alive all the same
            own_redis = subprocess.Popen(redis_command, stdout=subprocess.DEVNULL)
            wait_for(lambda: server.get("/readyz").status_code == 200)
        finally:
            server.stop()
            own_redis.terminate()
            own_redis.wait(10)


def wait_for(check: Callable[[], Any], seconds: float = 20) -> None:
    """Wait until ``check()`` is true (an exception counts as false); fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (redis.RedisError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    raise AssertionError("the condition never held")


def test_versions_only_grow_when_a_room_fails_over_to_a_process_whose_clock_is_behind(cluster):
    start, url = cluster
    first, behind = start("first"), start("behind", clock_shift=-600)
    code, tokens = open_table(first, ["Ana", "Ben"])
    ben = open_socket(behind, code, tokens[1])  # relayed to the room's owner, the first process
    table = table_of(first, code, [open_socket(first, code, tokens[0]), ben], seed=3)
    table.clients[0].send({"type": "start"})
    table.play_one()
    table.sync_all()
    seen, names = list(ben.versions), [process_of(first), process_of(behind)]

    first.signal(signal.SIGSTOP)
    assert ben.close_code(timeout=30) == 1012  # the owner's lease lapsed: reconnect
    again = open_socket(behind, code, tokens[1])  # the process whose clock is behind takes the room
    assert owners(url, code) == [(1, names[0]), (2, names[1])]
    table = table_of(behind, code, [open_socket(behind, code, tokens[0]), again], seed=4)
    table.play_one()
    table.sync_all()
    versions = seen + again.versions
    assert rising(versions), versions
    assert again.versions[0] > seen[-1] and max(versions) < 2**53
