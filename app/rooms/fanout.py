"""Sending a room's new state to its connections, each as that viewer may see it.

Everything public is built once per version: the public view, and whatever
renderers share between viewers (the JSON of the public state, the page
regions that do not depend on who looks), once per language read. Each kind
of viewer (seat, host role, kind of client, language) then costs only its
own part: their hand and the pieces that name them. What a renderer made
for one version it may keep for the next (:class:`Kept`): a page region
whose content did not change is not rendered again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from app.rooms.connection import Connection, Renderer
from app.rooms.kept import Kept, Shared
from app.rooms.lobby import seat_index
from app.rooms.views import KnownSheet, RoomView, Table, Viewer, known_sheet, public_view
from app.wording.language import language, speaking

log = logging.getLogger(__name__)


ViewerKey = tuple[int | None, bool, str, str]
"""What decides a viewer's rendering: seat (``None``: spectator), whether host, renderer kind, language."""


class Renderings:
    """What has been built of one version of a room so far, filled in as viewers need it.

    ``payloads`` holds each kind of viewer's rendered state; ``shared`` the
    pieces renderers reuse between the viewers a version is sent to at once (each renderer
    keys its own, with the language it was said in where it holds words),
    and in ``shared.kept`` what they keep for later versions: the
    ``previous`` version's renderings pass it on (``previous`` of the same version, built again to read
    the turn clock anew, passes on all it kept).
    """

    def __init__(self, table: Table, previous: Renderings | None = None) -> None:
        self.table = table
        self.payloads: dict[ViewerKey, Any] = {}
        if previous is None:
            kept = Kept()
        elif previous.table.version == table.version:
            kept = previous.shared.kept  # the same version's facts read again (its turn clock): all it kept stays
        else:
            kept = previous.shared.kept.following()
        self.shared: Shared = Shared(kept)
        self._public: RoomView | None = None
        self._viewers: dict[tuple[int | None, bool], Viewer] = {}
        # The score sheet of the version before: worked out again only once a deal has been completed.
        self._known_sheet = previous.known_sheet() if previous is not None else None
        self._seat_of: dict[str, int] | None = None  # each person's seat, by token hash, once asked

    def public(self) -> RoomView:
        """What everyone sees of this version (:func:`~app.rooms.views.public_view`), built once."""
        if self._public is None:
            self._public = public_view(self.table, self._known_sheet)
        return self._public

    def viewer(self, seat: int | None, host: bool) -> Viewer:
        """The viewer in ``seat`` (host or not), whose view is built on the public view as far as asked."""
        viewer = self._viewers.get((seat, host))
        if viewer is None:
            viewer = self._viewers[seat, host] = Viewer(self.public(), self.table, seat, host)
        return viewer

    def view(self, seat: int | None, host: bool) -> RoomView:
        """The whole view of the viewer in ``seat`` (host or not), built once per version."""
        return self.viewer(seat, host).view()

    def let_go(self) -> None:
        """Forget the views built so far and what renderers shared between their viewers (the payloads
        and what renderers keep stay): a room's version often lasts seconds, and views kept that long
        outlive the garbage collector's young generations, where every later collection would look at them
        again. A view or shared piece asked for later is built again."""
        if self._public is not None:
            self._known_sheet = known_sheet(self.table, self._public)
            self._public = None
        self._viewers.clear()
        self.shared = Shared(self.shared.kept)

    def known_sheet(self) -> KnownSheet | None:
        """The latest score sheet worked out, with the deals it was worked out from (``None``: none yet)."""
        if self._public is None:
            return self._known_sheet
        return known_sheet(self.table, self._public)

    def key(self, conn: Connection) -> ViewerKey:
        """How ``conn``'s viewer sees the table: their seat, whether they host, their kind of client and
        their language."""
        token = conn.token_hash
        if token is None:
            return None, False, conn.kind, conn.language
        if self._seat_of is None:
            self._seat_of = seat_index(self.table.seats)
        return self._seat_of.get(token), token == self.table.host, conn.kind, conn.language


def send_state(renderings: Renderings, connections: Iterable[Connection], *, whole: bool = False) -> None:
    """Queue the state in ``renderings`` for each of ``connections``, rendered once per kind of viewer;
    then let go of the views built for it (:meth:`Renderings.let_go`).

    Each rendering is made in its viewers' language (:func:`~app.wording.language.speaking`).

    A later call for the same version (a ``sync``) renders nothing again.
    ``whole`` sends the whole state even where a connection was sent part of
    it before. A connection whose rendering fails is dropped alone (closed
    with 1011); the others still get the state. What renderers kept from the
    version before and this one did not use is then let go.
    """
    for conn in connections:
        key = renderings.key(conn)
        try:
            if key not in renderings.payloads:
                renderings.payloads[key] = _render(conn.renderer, renderings, key)
            conn.deliver(renderings.payloads[key], whole=whole)
        except Exception:
            log.exception("room %s: could not render the state for a %s connection", renderings.table.code,
                          conn.kind)
            conn.abort()
    renderings.let_go()
    renderings.shared.kept.settle()


def _render(renderer: Renderer, renderings: Renderings, key: ViewerKey) -> Any:
    """What ``renderer`` makes of ``renderings`` for the viewer ``key``, in the viewer's language."""
    seat, host, _, code = key
    if code == language():  # most often so: the language is chosen only where it is another
        return renderer.render(renderings.viewer(seat, host), renderings.shared)
    with speaking(code):
        return renderer.render(renderings.viewer(seat, host), renderings.shared)
