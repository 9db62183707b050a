"""Sending a room's new state to its connections, each as that viewer may see it.

Viewers who see alike (same seat, same host role, same kind of client) share
one rendering per version: a view is built and rendered once for them all.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from app.rooms.connection import Connection
from app.rooms.lobby import seat_of
from app.rooms.views import Table, room_view

log = logging.getLogger(__name__)

ViewerKey = tuple[int | None, bool, str]
"""What decides a viewer's rendering: seat (``None``: spectator), whether host, renderer kind."""


def viewer_key(table: Table, conn: Connection) -> ViewerKey:
    """How ``conn``'s viewer sees ``table``: their seat, whether they host, and their kind of client."""
    return seat_of(table.seats, conn.token_hash), conn.token_hash is not None and conn.token_hash == table.host, conn.kind


def send_state(table: Table, connections: Iterable[Connection], rendered: dict[ViewerKey, Any],
               *, whole: bool = False) -> None:
    """Queue the state of ``table`` for each of ``connections``, rendered once per kind of viewer.

    ``rendered`` holds what was rendered for ``table``'s version so far, by
    viewer; it is filled in as needed, so a later call for the same version
    (a ``sync``) renders nothing again. ``whole`` sends the whole state even
    where a connection was sent part of it before. A connection whose
    rendering fails is dropped alone (closed with 1011); the others still get
    the state.
    """
    for conn in connections:
        key = viewer_key(table, conn)
        try:
            if key not in rendered:
                seat, host, _ = key
                rendered[key] = conn.renderer.render(room_view(table, seat, host=host))
            conn.deliver(rendered[key], whole=whole)
        except Exception:
            log.exception("room %s: could not render the state for a %s connection", table.code, conn.kind)
            conn.abort()
