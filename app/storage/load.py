"""How busy the server process is, to decide whether its writes wait for company (the commit window).

A commit window (``app.storage.batch``) saves the CPU time of the transactions it merges, at the price of
the window's wait on every play it holds. That is worth it only on a server short of CPU, where the time
saved keeps it from falling behind; with a core to spare, a play is better committed at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

LOAD_PERIOD_SECONDS = 1.0
"""How long the CPU time is measured over before the load is looked at again (seconds of wall time)."""
LOAD_HYSTERESIS = 0.1
"""How far below its opening load (fraction of a core) the load must fall for the window to close again:
the window itself lowers the load, and it should not open and close every period."""


class LoadGate:
    """Whether the process is busy enough for a commit window: open from ``opens_at`` and above.

    ``opens_at`` is the process's CPU time over the last :data:`LOAD_PERIOD_SECONDS` of wall time, as a
    fraction of one core (every thread's: the event loop's and the database writer's); the gate closes
    again only once the load falls below ``opens_at - LOAD_HYSTERESIS``. ``opens_at`` 0 keeps it open
    always. ``wall`` and ``cpu`` are the clocks (seconds), :func:`time.monotonic` and
    :func:`time.process_time` unless a test gives its own. Raises ``ValueError`` for ``opens_at`` below 0
    or not a number.
    """

    def __init__(self, opens_at: float, *, wall: Callable[[], float] = time.monotonic,
                 cpu: Callable[[], float] = time.process_time) -> None:
        if not opens_at >= 0:
            raise ValueError(f"the load that opens the commit window must be 0 or more, not {opens_at}")
        self._opens_at = opens_at
        self._wall = wall
        self._cpu = cpu
        self._since = (wall(), cpu())
        self._open = opens_at == 0
        self.load = 0.0
        """The load measured last: CPU seconds a second of wall time over the period before."""

    def is_open(self) -> bool:
        """Whether a write that finds the writer idle should wait for others now (cheap: it measures the
        load again at most once a period)."""
        if self._opens_at == 0:
            return True
        now = self._wall()
        began, used = self._since
        if now - began >= LOAD_PERIOD_SECONDS:
            spent = self._cpu()
            self.load = (spent - used) / (now - began)
            self._since = (now, spent)
            if self._open:
                self._open = self.load >= self._opens_at - LOAD_HYSTERESIS
            else:
                self._open = self.load >= self._opens_at
        return self._open
