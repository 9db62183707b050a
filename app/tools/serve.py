"""``cucumber serve``: the web server in one uvicorn process.

Rooms live in the process's memory, so there is exactly one worker.
"""

from __future__ import annotations

WS_MAX_FRAME_BYTES = 64 * 1024
"""Largest WebSocket frame the server reads at all; a client message may have at most
``CUCUMBER_MAX_MESSAGE_BYTES`` (4 KiB) anyway."""
WS_MAX_QUEUE = 4
"""Frames a socket reads ahead of the room. Clients send a message at a time and wait for its
answer; a deep queue would only hold a flooder's frames in memory."""


def serve(host: str | None, port: int | None) -> int:
    """Run the server with uvicorn until interrupted; a ``None`` host or port takes the setting.

    Returns 0 once uvicorn stops. WebSocket frames over 64 KiB are refused by
    the protocol layer; smaller oversized messages get the protocol's
    ``too_large`` error.
    """
    import uvicorn  # the server's own imports wait until it is asked for

    from app.main import create_app
    from app.settings import Settings

    settings = Settings()
    if host is not None:
        settings.host = host
    if port is not None:
        settings.port = port
    # The app reads the proxy headers itself (create_app, from CUCUMBER_TRUSTED_PROXIES); uvicorn
    # must not apply them a second time from its own FORWARDED_ALLOW_IPS.
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, workers=1,
                log_level=settings.log_level, proxy_headers=False, ws_max_size=WS_MAX_FRAME_BYTES,
                ws_max_queue=WS_MAX_QUEUE, ws_per_message_deflate=settings.ws_compression)
    return 0
