"""A real ``cucumber serve`` process on a free port, and blocking JSON-protocol connections to it."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.client import Connection

pytestmark = pytest.mark.server


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rising(versions: list[int]) -> bool:
    """Whether each version is above the one before."""
    return all(earlier < later for earlier, later in itertools.pairwise(versions))


class Server:
    """One server process; :meth:`kill` is ``kill -9``, :meth:`start` starts it again on the same port.

    ``clock_shift``: seconds the process's wall clock is off from the machine's (negative: behind), as
    :mod:`tests.server.shifted_clock` sets it; it may be changed before a :meth:`start`.
    """

    def __init__(self, database_url: str, log: Path, *, clock_shift: float = 0, **settings: Any) -> None:
        self.clock_shift = clock_shift
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "DATABASE_URL": database_url, "CUCUMBER_DEAL_PAUSE_SECONDS": "0",
                    "CUCUMBER_BOT_DELAY_SECONDS": "0", "CUCUMBER_LOG_LEVEL": "warning",
                    **{f"CUCUMBER_{key.upper()}": str(value) for key, value in settings.items()}}
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the process and wait until ``/healthz`` answers."""
        with open(self.log, "ab") as out:
            run = ["-m", "app"] if not self.clock_shift else ["-m", "tests.server.shifted_clock", str(self.clock_shift)]
            self.process = subprocess.Popen(
                [sys.executable, *run, "serve", "--port", str(self.port)], env=self.env,
                stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start in 30 s")

    def kill(self) -> None:
        """``kill -9``: no shutdown, no cleanup."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def signal(self, sig: int) -> None:
        """Send the process ``sig`` (``SIGSTOP`` freezes it, ``SIGCONT`` resumes it)."""
        assert self.process is not None
        self.process.send_signal(sig)

    def stop(self) -> None:
        """Stop the process if it runs."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a frozen process would not hear the SIGTERM
            self.process.terminate()
            try:
                self.process.wait(30)  # a handover on a busy machine may take a while
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        """A JSON POST to the server."""
        return httpx.post(f"{self.base}{path}", json=body, timeout=10)

    def get(self, path: str) -> httpx.Response:
        """A GET from the server."""
        return httpx.get(f"{self.base}{path}", timeout=10)


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Start servers on given databases; all are stopped after the test."""
    servers: list[Server] = []

    def make(database_url: str, **settings: Any) -> Server:
        server = Server(database_url, tmp_path / f"server{len(servers)}.log", **settings)
        servers.append(server)
        server.start()
        return server

    yield make
    for server in servers:
        server.stop()


def open_socket(server: Server, code: str, token: str | None) -> Connection:
    """A JSON-protocol connection to room ``code`` on ``server`` (as the player of ``token``, a spectator
    without), once its first state has come. It keeps every state it receives, ``versions`` in order as
    they came, whether or not they rise (the tests check that they do)."""
    return Connection.open(f"ws://127.0.0.1:{server.port}/api/rooms/{code}/ws", token, strict=False)
