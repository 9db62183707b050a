"""Sending a room's new state to its connections, each as that viewer may see it.

Everything public is built once per version: the public view, and whatever
renderers share between viewers (the JSON of the public state, the page
regions that do not depend on who looks), once per language read. Each kind
of viewer (seat, host role, kind of client, language) then costs only its
own part: their hand and the pieces that name them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from app.rooms.connection import Connection
from app.rooms.lobby import seat_of
from app.rooms.views import RoomView, Table, public_view, viewer_view
from app.wording.language import speaking

log = logging.getLogger(__name__)

ViewerKey = tuple[int | None, bool, str, str]
"""What decides a viewer's rendering: seat (``None``: spectator), whether host, renderer kind, language."""


class Renderings:
    """What has been built of one version of a room so far, filled in as viewers need it.

    ``payloads`` holds each kind of viewer's rendered state; ``shared`` the
    pieces renderers reuse between viewers of this version (each renderer
    keys its own, with the language it was said in where it holds words).
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.payloads: dict[ViewerKey, Any] = {}
        self.shared: dict[Any, Any] = {}
        self._public: RoomView | None = None

    def view(self, seat: int | None, host: bool) -> RoomView:
        """The view of the viewer in ``seat`` (host or not), built on the public view made once."""
        if self._public is None:
            self._public = public_view(self.table)
        return viewer_view(self._public, self.table, seat, host=host)

    def key(self, conn: Connection) -> ViewerKey:
        """How ``conn``'s viewer sees the table: their seat, whether they host, their kind of client and
        their language."""
        token = conn.token_hash
        return (seat_of(self.table.seats, token), token is not None and token == self.table.host, conn.kind,
                conn.language)


def send_state(renderings: Renderings, connections: Iterable[Connection], *, whole: bool = False) -> None:
    """Queue the state in ``renderings`` for each of ``connections``, rendered once per kind of viewer.

    Each rendering is made in its viewers' language (:func:`~app.wording.language.speaking`).

    A later call for the same version (a ``sync``) renders nothing again.
    ``whole`` sends the whole state even where a connection was sent part of
    it before. A connection whose rendering fails is dropped alone (closed
    with 1011); the others still get the state.
    """
    for conn in connections:
        key = renderings.key(conn)
        try:
            if key not in renderings.payloads:
                seat, host, _, language = key
                with speaking(language):
                    renderings.payloads[key] = conn.renderer.render(renderings.view(seat, host), renderings.shared)
            conn.deliver(renderings.payloads[key], whole=whole)
        except Exception:
            log.exception("room %s: could not render the state for a %s connection", renderings.table.code,
                          conn.kind)
            conn.abort()
