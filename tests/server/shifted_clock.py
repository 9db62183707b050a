"""``python -m tests.server.shifted_clock SECONDS serve …``: ``python -m app serve …`` whose wall clock is
``SECONDS`` (a float, negative: behind) off the machine's, as after a clock step.

``time.time``, ``time.time_ns`` and ``datetime.now`` (with ``utcnow``) are shifted before the app is imported;
``time.monotonic``, which a clock step leaves alone, is not. The tests that start servers use it through
:class:`tests.server.conftest.Server`'s ``clock_shift``.
"""

from __future__ import annotations

import datetime
import runpy
import sys
import time


def shift_clock(seconds: float) -> None:
    """Set this process's wall clock ``seconds`` off from here on."""
    real_time, real_time_ns, nanoseconds = time.time, time.time_ns, round(seconds * 1e9)
    step = datetime.timedelta(seconds=seconds)
    time.time = lambda: real_time() + seconds  # type: ignore[assignment]
    time.time_ns = lambda: real_time_ns() + nanoseconds  # type: ignore[assignment]

    class Shifted(datetime.datetime):
        """The standard library's ``datetime``, with ``now`` shifted."""

        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> Shifted:
            return super().now(tz) + step

        @classmethod
        def utcnow(cls) -> Shifted:
            return cls.now(datetime.UTC).replace(tzinfo=None)

    datetime.datetime = Shifted  # type: ignore[misc]


if __name__ == "__main__":
    shift_clock(float(sys.argv[1]))
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    runpy.run_module("app", run_name="__main__", alter_sys=True)
