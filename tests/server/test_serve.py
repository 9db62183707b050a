"""``cucumber serve`` reads a proxy's forwarded headers once, as the settings say, and no other way; a stop
answers the requests whose body has not come at once."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import Server, open_socket
from tests.server.test_cluster import half_sent_post, read_until_closed

pytestmark = pytest.mark.server

FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}


@pytest.mark.parametrize(("trusted", "scheme"), [("127.0.0.1", "https"), ("", "http")])
def test_a_local_proxy_is_believed_only_when_trusted(tmp_path: Path, trusted: str, scheme: str) -> None:
    server = Server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "server.log", trusted_proxies=trusted)
    server.env["FORWARDED_ALLOW_IPS"] = "*"  # uvicorn's own setting must change nothing
    server.start()
    try:
        answer = httpx.post(f"{server.base}/api/rooms", json={"name": "Ana"}, headers=FORWARDED, timeout=10)
        assert answer.status_code == 201
        assert answer.json()["url"].startswith(f"{scheme}://127.0.0.1:{server.port}/r/")
        assert ("secure" in answer.headers["set-cookie"].lower()) == (scheme == "https")
    finally:
        server.stop()


@pytest.mark.parametrize("level", ["info", "debug"])
def test_a_seat_links_secret_and_the_new_token_stay_out_of_the_log(make_server, tmp_path: Path, level: str) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", log_level=level)
    code = server.post("/api/rooms", {"name": "Ana"}).json()["code"]
    ben = open_socket(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"}).json()["token"])
    ben.send({"type": "device_link"})
    link = next(message for message in iter(ben.receive, None) if message["type"] == "link")
    assert httpx.get(link["url"], timeout=10).status_code == 200  # the page the link opens
    token = httpx.post(f"{server.base}/r/{code}/take", data={"secret": link["secret"]}, timeout=10).cookies[
        f"cucumber_{code}"]
    httpx.post(f"{server.base}/api/rooms/{code}/take", json={"secret": link["secret"]}, timeout=10)  # spent
    ben.close()
    server.stop()
    log = server.log.read_text()
    assert f"/r/{code}/take" in log  # requests are logged, without what follows the # of the link
    assert link["secret"] not in log and token not in log
    assert "TEXT '" not in log  # nor the frames of the sockets, which hold tokens and hands


def test_a_message_over_the_frame_limit_closes_the_socket_and_the_room_goes_on(make_server, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}")
    code = server.post("/api/rooms", {"name": "Ana"}).json()["code"]
    flooder, watcher = open_socket(server, code, None), open_socket(server, code, None)
    flooder.transport.socket.send("x" * (64 * 1024 + 1))
    assert flooder.close_code() == 1009  # after the states sent before it was read
    big = json.dumps({"type": "sync", "padding": "x" * 5000})  # under the frame limit: refused by the protocol
    watcher.send(json.loads(big))
    assert watcher.next_error()["code"] == "too_large"
    watcher.send({"type": "sync"})
    assert watcher.next_state()["code"] == code
    watcher.close()


def test_a_request_whose_body_never_comes_is_answered_503_at_once_when_the_server_stops(
        make_server, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", stop_seconds=60)
    code = server.post("/api/rooms", {"name": "Ana"}).json()["code"]
    api = half_sent_post(server, "/api/rooms")
    form = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    form.sendall(f"POST /r/{code}/join HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Length: 100\r\n"
                 "Content-Type: application/x-www-form-urlencoded\r\nAccept-Language: de\r\n\r\nname=".encode())
    try:
        # A request sent after them is answered once they wait for their body: the server read them first.
        assert server.get("/healthz").status_code == 200
        server.signal(signal.SIGTERM)
        answers = [read_until_closed(api), read_until_closed(form)]
        assert server.process is not None
        server.process.wait(60)  # well before the minute it would wait for their bodies
        assert server.process.returncode in (0, -signal.SIGTERM)
    finally:
        api.close()
        form.close()
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 "), answer[:300]
        assert b"\r\nretry-after: 2" in head.lower()
    assert json.loads(answers[0].partition(b"\r\n\r\n")[2])["error"] == "server_stopping"
    assert "Versuche es gleich noch einmal" in answers[1].decode()  # the page, in the visitor's language
    log = server.log.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]


def test_the_stop_benchmark_measures_a_stop_with_clients_that_never_finish_sending() -> None:
    from bench.stop import one_stop

    figures = one_stop(clients=3, tables=1, stop_seconds=20)
    assert figures["statuses"] == {"503": 3} and figures["exit_status"] in (0, -signal.SIGTERM)
    assert figures["answered_seconds"] >= 0 and figures["exit_seconds"] >= figures["answered_seconds"]
