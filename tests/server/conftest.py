"""A real ``cucumber serve`` process on a free port, and blocking JSON-protocol clients for it."""

from __future__ import annotations

import itertools
import json
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
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.score_sheets import whole_sheet

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


class Client:
    """A blocking JSON-protocol connection to a server process; ``state`` is the latest state, its score sheet
    whole (the deals a state adds are added to the sheet held)."""

    def __init__(self, server: Server, code: str, token: str | None) -> None:
        self._context = connect(f"ws://127.0.0.1:{server.port}/api/rooms/{code}/ws", open_timeout=10)
        self.socket: ClientConnection = self._context.__enter__()
        self.socket.send(json.dumps({"type": "hello", "token": token} if token else {"type": "hello"}))
        self.state: dict[str, Any] | None = None
        self.version = -1
        self.versions: list[int] = []
        """The version of every state received, in order."""
        self.frames: list[str] = []
        """Every frame received, as sent."""
        self.next_state()

    def send(self, message: dict[str, Any]) -> None:
        """Send one message."""
        self.socket.send(json.dumps(message))

    def receive(self, timeout: float = 20) -> dict[str, Any]:
        """The next message."""
        frame = self.socket.recv(timeout=timeout)
        self.frames.append(frame)
        message = json.loads(frame)
        if message["type"] == "state":
            self.version = message["version"]
            self.state = whole_sheet(message["state"], self.state and self.state["score_sheet"])
            self.versions.append(self.version)
        return message

    def next_state(self) -> dict[str, Any]:
        """Receive until the next state."""
        while self.receive()["type"] != "state":
            pass
        return self.state  # type: ignore[return-value]

    def next_error(self) -> dict[str, Any]:
        """Receive until the next error."""
        while True:
            message = self.receive()
            if message["type"] == "error":
                return message

    def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Receive states until ``check(state)`` holds."""
        while self.state is None or not check(self.state):
            self.next_state()
        return self.state

    def close_code(self, timeout: float = 20) -> int | None:
        """Read until the server closes the connection; its close code."""
        try:
            while True:
                self.receive(timeout)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None

    def close(self) -> None:
        """Close the connection."""
        self._context.__exit__(None, None, None)
