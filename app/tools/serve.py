"""``cucumber serve``: the web server in one uvicorn process.

Rooms live in the process's memory, so there is exactly one worker. Several
processes share the rooms only in cluster mode (``CUCUMBER_REDIS_URL``).
"""

from __future__ import annotations

import asyncio
import sys
from types import FrameType
from typing import TextIO

WS_MAX_FRAME_BYTES = 64 * 1024
"""Largest WebSocket frame the server reads at all; a client message may have at most
``CUCUMBER_MAX_MESSAGE_BYTES`` (4 KiB) anyway."""
WS_MAX_QUEUE = 4
"""Frames a socket reads ahead of the room. Clients send a message at a time and wait for its
answer; a deep queue would only hold a flooder's frames in memory."""


def serve(host: str | None, port: int | None, *, err: TextIO = sys.stderr) -> int:
    """Run the server with uvicorn until interrupted; a ``None`` host or port takes the setting.

    Returns 0 once uvicorn stops; 2, with the reason on ``err``, for settings
    that cannot be used (such as Redis with SQLite); uvicorn's 3 when the app
    cannot start (another process holds the database, Redis unreachable).
    WebSocket frames over 64 KiB are refused by the protocol layer; smaller
    oversized messages get the protocol's ``too_large`` error. On SIGTERM or
    Ctrl-C the process first hands its rooms over (``Node.drain``), while
    uvicorn closes its connections.
    """
    import uvicorn  # the server's own imports wait until it is asked for
    from pydantic import ValidationError

    from app.settings import Settings

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

    from app.main import create_app

    app = create_app(settings)

    class HandingOver(uvicorn.Server):
        """uvicorn's server, which tells the app to hand its rooms over as soon as it is asked to stop."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            node = getattr(app.state, "node", None)
            try:
                loop = asyncio.get_running_loop()  # a signal handler runs in the loop's thread, between steps
            except RuntimeError:
                loop = None
            if node is not None and loop is not None:
                loop.call_soon_threadsafe(node.drain)
            super().handle_exit(sig, frame)

    # The app reads the proxy headers itself (create_app, from CUCUMBER_TRUSTED_PROXIES); uvicorn
    # must not apply them a second time from its own FORWARDED_ALLOW_IPS.
    config = uvicorn.Config(app, host=settings.host, port=settings.port, workers=1, log_level=settings.log_level,
                            proxy_headers=False, ws_max_size=WS_MAX_FRAME_BYTES, ws_max_queue=WS_MAX_QUEUE,
                            ws_per_message_deflate=settings.ws_compression)
    server = HandingOver(config)
    server.run()
    if not server.started:
        return 3
    return 0
