"""``cucumber serve``: the web server in one uvicorn process.

Rooms live in the process's memory, so there is exactly one worker. Several
processes share the rooms only in cluster mode (``CUCUMBER_REDIS_URL``).
"""

from __future__ import annotations

import asyncio
import gc
import math
import socket
import sys
import threading
from types import FrameType
from typing import TextIO

GC_THRESHOLDS = (700, 10, 20_000)
"""The garbage collector's thresholds (:func:`gc.set_threshold`): Python's own, except that a full collection
waits for 20,000 collections of the middle generation instead of 10 (the server collects it twenty times a
second itself, :data:`YOUNG_COLLECTION_SECONDS`: one every quarter of an hour or so), and, as always, for
the objects that reached the oldest since the last one to be a quarter of those it holds.

A full collection stops the server for as long as it takes to look at every object, and a thousand tables
with their sockets hold about a million. By Python's defaults one came every few seconds at that load, each
a pause every table felt (``cucumber bench load``; the figures are in docs/journal/performance-history.md).
The rooms make almost no garbage that only a full collection can free
(cycles): plays, states and frames are freed as soon as they are dropped, so waiting longer costs little
memory."""
YOUNG_COLLECTION_SECONDS = 0.05
"""How often the server collects the collector's young and middle generations itself (:func:`collect_young`).

What outlives a collection goes to the oldest generation, where only a full collection looks at it again;
a room's version lasts seconds, so most of what a play makes and keeps is looked at once. Looked at
soon after being made, those objects are still in the processor's cache: collections took less of the
server's time, in shorter pauses, than when the young generation was collected less often and the middle
one every other time, so that an object was looked at up to twice, later (the figures are in
docs/journal/performance-history.md)."""
WS_MAX_FRAME_BYTES = 64 * 1024
"""Largest WebSocket message the server reads at all (a bigger one closes the socket with 1009); a
client message may have at most ``CUCUMBER_MAX_MESSAGE_BYTES`` (4 KiB) anyway."""
WS_IMPLEMENTATION = "websockets-sansio"
"""uvicorn's WebSocket layer: its sans-I/O one on the ``websockets`` package's protocol (not its default,
``auto``, which picks the older ``websockets`` layer). It costs less CPU time a
frame than uvicorn's ``wsproto`` layer, to send one and more so to read one; an open socket holds a little
more memory with it, which the plain Starlette routes of the room sockets (``app.api.sockets``) save
again (the figures are in docs/journal/performance-history.md). Like ``wsproto``, it stops reading a socket after
each whole message until the room has taken it, so a client that floods holds few frames in memory."""
STOP_MARGIN_SECONDS = 5.0
"""How long past ``stop_seconds`` a process asked to stop may still be there before it gives up: it logs
where it is stuck and exits with status 1 (:func:`app.common.waits.exit_if_stuck`). Its steps left once the stop's
time is up have half a second each (``app.cluster.node.STOP_STEP_SECONDS``), so a stop that goes well ends
well within this."""


def serve(host: str | None, port: int | None, *, err: TextIO = sys.stderr) -> int:
    """Run the server with uvicorn until interrupted; a ``None`` host or port takes the setting.

    Returns 0 once uvicorn stops; 2, with the reason on ``err``, for settings
    that cannot be used (such as Redis with SQLite); uvicorn's 3 when the app
    cannot start (another process holds the database, Redis unreachable).
    WebSocket frames over 64 KiB are refused by the protocol layer; smaller
    oversized messages get the protocol's ``too_large`` error. On SIGTERM or
    Ctrl-C the process first hands its rooms over (``Node.drain``), while
    uvicorn closes its connections: a request still sending its body is
    answered 503 at once (``app.api.stopping``), and those still open after
    half of ``stop_seconds`` are cut off. A process
    still there :data:`STOP_MARGIN_SECONDS` after ``stop_seconds`` logs where
    it is stuck and exits at once with status 1.
    """
    import uvicorn  # the server's own imports wait until it is asked for
    from pydantic import ValidationError

    from app.config.settings import Settings

    try:
        settings = Settings()
    except ValidationError as error:
        reasons = "; ".join(problem["msg"].removeprefix("Value error, ") for problem in error.errors())
        print(f"cucumber serve: the settings cannot be used: {reasons}", file=err)
        return 2
    if host is not None:
        settings.host = host
    if port is not None:
        settings.port = port

    from app.common.waits import exit_if_stuck
    from app.main import create_app

    app = create_app(settings)

    class HandingOver(uvicorn.Server):
        """uvicorn's server, which tells the app to hand its rooms over as soon as it is asked to stop, and
        makes sure that the process then ends; while it serves, it collects the young objects on time
        (:func:`collect_young`)."""

        guard: threading.Timer | None = None

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            node = getattr(app.state, "node", None)
            try:
                loop = asyncio.get_running_loop()  # a signal handler runs in the loop's thread, between steps
            except RuntimeError:
                loop = None
            if node is not None and loop is not None:
                loop.call_soon_threadsafe(node.drain)
            if self.guard is None:
                self.guard = exit_if_stuck(loop, settings.stop_seconds + STOP_MARGIN_SECONDS)
            super().handle_exit(sig, frame)

        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            collector = asyncio.get_running_loop().create_task(collect_young())
            try:
                await super().serve(sockets)
            finally:
                collector.cancel()

    # The app reads the proxy headers itself (create_app, from CUCUMBER_TRUSTED_PROXIES); uvicorn
    # must not apply them a second time from its own FORWARDED_ALLOW_IPS.
    config = uvicorn.Config(app, host=settings.host, port=settings.port, workers=1, log_level=settings.log_level,
                            proxy_headers=False, ws=WS_IMPLEMENTATION, ws_max_size=WS_MAX_FRAME_BYTES,
                            ws_per_message_deflate=settings.ws_compression,
                            timeout_graceful_shutdown=connections_stop_seconds(settings.stop_seconds))
    server = HandingOver(config)
    settle_collector()
    server.run()
    if not server.started:
        return 3
    return 0


def connections_stop_seconds(stop_seconds: float) -> int:
    """How long a stopping process lets its open connections close before it cuts them off: half of
    ``stop_seconds`` (the other half is for the rooms' handover and the rest), in whole seconds as uvicorn
    takes it, at least 1."""
    return max(1, math.floor(stop_seconds / 2))


def settle_collector() -> None:
    """Set the garbage collector for a long-running server: :data:`GC_THRESHOLDS`, and everything loaded
    so far (the modules, the app) moved out of its sight with :func:`gc.freeze`, so that no collection
    looks through them again. Call it once, after the imports and before any room exists: a room
    frozen with them would never be freed once closed, as it holds cycles (its timer calls it back)."""
    gc.set_threshold(*GC_THRESHOLDS)
    gc.collect()
    gc.freeze()


async def collect_young(seconds: float = YOUNG_COLLECTION_SECONDS) -> None:
    """Collect the young and middle generations together every ``seconds``, until cancelled (nothing while
    the collector is disabled).

    Python starts a young collection when allocations outnumber deallocations by 700, not when 700 new objects
    are alive. A busy room frees about as many objects as it makes: each version's views and texts replace
    the version before's, most of them already in an older generation. So the young generation grew to tens
    of thousands of live objects between two collections, and each of those, looking at them all, stopped
    every room for long enough to make the slowest plays of a server at human pace
    (docs/journal/performance-history.md). Collected on a timer, the same objects are looked at in short
    pauses; collected with the middle
    generation each time, what survives goes straight to the oldest instead of being looked at again.
    """
    while True:
        await asyncio.sleep(seconds)
        if gc.isenabled():
            gc.collect(1)
