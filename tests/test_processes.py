"""The helpers that tell whether a process left by a killed server has ended (tests/processes.py)."""

from __future__ import annotations

import subprocess
import time

from tests.processes import ended, running


def test_a_process_that_ended_unreaped_has_ended_and_one_still_running_has_not():
    with subprocess.Popen(["true"]) as finished, subprocess.Popen(["sleep", "30"]) as sleeping:
        deadline = time.monotonic() + 10
        while running(finished.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not running(finished.pid)  # a zombie until it is waited for: ended all the same
        assert ended(finished.pid, timeout=1)
        assert running(sleeping.pid)
        assert not ended(sleeping.pid, timeout=0.2)  # still running at the timeout: killed
        sleeping.wait(5)
        finished.wait(5)
    assert not running(finished.pid)
