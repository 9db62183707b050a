"""Pieces of the live regions, each a macro of ``_pieces.html`` rendered from one value, for the templates to
use as filters (``{{ seat.head|seat_head }}``: a filter is called at once, a function through the
template's context).

A piece's HTML is a pure function of its value and the language, so while a
room's live regions render (:func:`keeping`) each piece is kept in the room's
store under the macro and the value (:meth:`~app.rooms.kept.Kept.made`):
a region rendered for another viewer, or in a later version, that shows an
equal piece takes it from there. Rendered elsewhere (a whole page), a piece is
rendered each time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from markupsafe import Markup

from app.rooms.kept import Kept

_STORE: ContextVar[Kept | None] = ContextVar("pieces_store", default=None)


@contextmanager
def keeping(store: Kept) -> Iterator[None]:
    """Keep the pieces rendered within the ``with`` block in ``store`` (a room's), and take them from there."""
    token = _STORE.set(store)
    try:
        yield
    finally:
        _STORE.reset(token)


def piece(name: str, macro_of: Callable[[str], Callable[[Hashable], str]]) -> Callable[[Hashable], Markup]:
    """The template filter for the piece ``name``: its macro (``macro_of(name)``, looked up as it is called)
    called with one value, kept while a room's regions render (:func:`keeping`)."""

    def render(value: Hashable) -> Markup:
        return Markup(macro_of(name)(value))

    def shown(value: Hashable) -> Markup:
        store = _STORE.get()
        return render(value) if store is None else store.made(render, value)

    shown.__name__ = shown.__qualname__ = name
    return shown


PIECES = ("seat_head", "seat_points", "seat_held", "seat_pile", "seat_own", "trick_heading", "trick_play",
          "trick_waiting", "trick_previous", "status_detail")
"""The pieces, by the name of their macro in ``_pieces.html`` and of the template filter that renders it."""
