"""Server processes killed in the tests, and the worker processes they started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def worker_left_by_a_killed_server(script: str, *args: str) -> int:
    """Run ``script`` (Python source) as a server process with ``args``; it prints the pid of a worker process
    it started, then is killed with SIGKILL (no chance to stop its workers). Returns the worker's pid."""
    with subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True) as server:
        worker = int(server.stdout.readline())
        time.sleep(1.0)
        os.kill(worker, 0)  # it still runs: it did not end on its own
        server.send_signal(signal.SIGKILL)
    return worker


def ended(pid: int, timeout: float = 120.0) -> bool:
    """Whether process ``pid`` ends within ``timeout`` seconds (a guard against a hang, not a measure); one
    still running then is killed, and ``False`` returned. A process that has ended but that nobody has
    reaped yet (a zombie: its parent was killed, and the new one has not waited for it) has ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not running(pid):
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    return False


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (its state in ``/proc/<pid>/stat`` is not ``Z``)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            stat = file.read()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat[stat.rindex(")") + 2] != "Z"  # the state follows the name, which may hold spaces and ")"
