"""Walking a room's versions as its renderers see them, for the tests of the renderers."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from app.rooms.fanout import Renderings
from app.rooms.views import Table
from app.wording.language import speaking

LANGUAGES = ("en", "da", "sv")
"""The languages each version is rendered in."""


def each_viewer(tables: Iterable[Table],
                viewers: Iterable[tuple[int | None, bool]]) -> Iterator[tuple[Renderings, int | None, bool]]:
    """Each of ``tables`` (a room's versions in order), its renderings made from the version before's, and in
    each of :data:`LANGUAGES` (spoken while the caller renders) each of ``viewers`` (seat, host) who may see
    it, a seat beyond the table's skipped: ``(renderings, seat, host)``."""
    viewers = list(viewers)
    previous = None
    for table in tables:
        renderings = previous = Renderings(table, previous)
        for code in LANGUAGES:
            with speaking(code):
                for seat, host in viewers:
                    if seat is None or seat < len(table.seats):
                        yield renderings, seat, host
