"""How long a stop takes while clients are still sending their requests' bodies.

``python -m bench.stop`` starts ``cucumber serve`` (SQLite in a temporary folder, pinned to the first core)
with some open tables, opens requests that send their headers and part of their body and then nothing
(``--clients`` of them, on the second core), sends SIGTERM, and prints one JSON line: the seconds from the
signal to the last of those requests' answers and to the process's exit, the statuses they got, and the
same stop without such clients for comparison. Nothing is asserted: the figures are for reading
(``CUCUMBER_STOP_SECONDS`` bounds the stop in any case; before the server answered these requests at once,
each held a stop up for half of it).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.cluster import free_port

SERVER_CORE, CLIENT_CORE = 0, 1
STARTUP_SECONDS = 60.0


def start_server(folder: Path, port: int, stop_seconds: float) -> subprocess.Popen[bytes]:
    """``cucumber serve`` on ``port`` with its database in ``folder``, pinned to :data:`SERVER_CORE` (where the
    machine has two cores), once ``/healthz`` answers."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder / 'stop.db'}", "CUCUMBER_RATE_LIMITS": "false",
           "CUCUMBER_LOG_LEVEL": "warning", "CUCUMBER_STOP_SECONDS": str(stop_seconds)}
    command = [sys.executable, "-m", "app", "serve", "--port", str(port)]
    if (os.cpu_count() or 1) > 1:
        command = ["taskset", "-c", str(SERVER_CORE), *command]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


def open_tables(port: int, tables: int) -> None:
    """Open ``tables`` rooms through the API."""
    for _ in range(tables):
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/rooms", data=b'{"name": "Ana"}',
                                         headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass


def half_sent(port: int) -> socket.socket:
    """A POST that promises 1,000 bytes of body and sends one."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=120)
    connection.sendall(f"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                       "Content-Length: 1000\r\n\r\n{".encode())
    return connection


def status_of(connection: socket.socket) -> int | None:
    """The status of the answer on ``connection``, read until the server closes it (``None``: no answer)."""
    data = b""
    try:
        while chunk := connection.recv(65536):
            data += chunk
    except OSError:
        pass
    parts = data.split(b" ", 2)
    return int(parts[1]) if data.startswith(b"HTTP/") and len(parts) > 1 else None


def one_stop(clients: int, tables: int, stop_seconds: float) -> dict[str, Any]:
    """Start a server, open ``tables`` tables and ``clients`` half-sent requests, stop it: the figures."""
    with tempfile.TemporaryDirectory(prefix="cucumber-stop-") as folder:
        port = free_port()
        server = start_server(Path(folder), port, stop_seconds)
        try:
            open_tables(port, tables)
            waiting = [half_sent(port) for _ in range(clients)]
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10).close()  # they are read by now
            signalled = time.monotonic()
            server.send_signal(signal.SIGTERM)
            statuses = [status_of(connection) for connection in waiting]
            answered = time.monotonic() - signalled
            server.wait(stop_seconds + 30)
            exited = time.monotonic() - signalled
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        for connection in waiting:
            connection.close()
    return {"clients": clients, "answered_seconds": round(answered, 3), "exit_seconds": round(exited, 3),
            "exit_status": server.returncode, "statuses": {str(status): statuses.count(status)
                                                           for status in sorted(set(statuses), key=str)}}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m bench.stop", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="requests that never finish their body (50)")
    parser.add_argument("--tables", type=int, default=20, help="tables open at the stop (20)")
    parser.add_argument("--stop-seconds", type=float, default=20.0, help="CUCUMBER_STOP_SECONDS (20)")
    options = parser.parse_args(argv)
    if (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {CLIENT_CORE})
    figures = {"with_clients": one_stop(options.clients, options.tables, options.stop_seconds),
               "without": one_stop(0, options.tables, options.stop_seconds)}
    print(json.dumps({"benchmark": "stop", "tables": options.tables, "stop_seconds": options.stop_seconds,
                      **figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
