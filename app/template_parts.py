"""``{% part %}``: a piece of a template kept by what it shows, so that it is rendered once for all the
renders that show it alike (the table page's live regions, from one version of a room to the next), and
:class:`Pieces`, a bounded store to keep them in.

Its own module, importing Jinja2 and the language only, so that Babel's
extraction (babel.cfg) can read templates that use it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from jinja2 import Undefined, nodes
from jinja2.ext import Extension
from jinja2.parser import Parser

from app.wording.language import language


class PartExtension(Extension):
    """``{% part key, … %}…{% endpart %}``: a piece of a template rendered once for all renders that give
    the same keys, when the render is given a store to keep it in.

    The template variable ``parts`` is that store (anything with ``get(key)``
    and ``[key] = html``: the app's :class:`Pieces`, or a room's
    :class:`~app.rooms.fanout.Kept`); a render without it (a whole page)
    renders every piece. A store may be shared by every render of a process,
    every room's, so a piece must show the same for equal keys wherever it is. A piece is kept under its
    place in the template, the language being spoken and the values of its
    keys, so the keys must name everything the piece shows besides words and
    the page's constants: whatever else it reads would be shown stale, or to
    the wrong viewer. Keys are compared by value (``==``), so equal values
    of later versions find it again.
    """

    tags = {"part"}  # noqa: RUF012 (how Jinja2 reads an extension's tags)

    def parse(self, parser: Parser) -> list[nodes.Node]:
        """Read ``{% part key, … %}`` and its body up to ``{% endpart %}``.

        It becomes, inline (no macro made for each render, as a call block would):
        ``{% set found = _found(parts, place, keys) %}{% if found is none %}{% set found %}body{% endset %}
        {% do _keep(parts, place, keys, found) %}{% endif %}{{ found }}``, the keys worked out once.
        """
        lineno = next(parser.stream).lineno
        keys = [parser.parse_expression()]
        while parser.stream.skip_if("comma"):
            keys.append(parser.parse_expression())
        body = parser.parse_statements(("name:endpart",), drop_needle=True)
        place = nodes.Const(f"{parser.name}:{lineno}")
        keys_name, found_name = f"_part_keys_{lineno}", f"_part_{lineno}"
        store = nodes.Name("parts", "load")
        return [
            nodes.Assign(nodes.Name(keys_name, "store"), nodes.Tuple(keys, "load")),
            nodes.Assign(nodes.Name(found_name, "store"),
                         self.call_method("_found", [store, place, nodes.Name(keys_name, "load")])),
            nodes.If(nodes.Test(nodes.Name(found_name, "load"), "none", [], [], None, None), [
                nodes.AssignBlock(nodes.Name(found_name, "store"), None, body),
                nodes.ExprStmt(self.call_method("_keep", [store, place, nodes.Name(keys_name, "load"),
                                                          nodes.Name(found_name, "load")])),
            ], [], []),
            nodes.Output([nodes.Name(found_name, "load")]),
        ]

    @staticmethod
    def _found(store: Any, place: str, keys: tuple[Hashable, ...]) -> str | None:
        """The piece at ``place`` kept in ``store`` for ``keys`` in the language being spoken (``None``: not
        kept, or no store)."""
        if store is None or isinstance(store, Undefined):  # a render without a store
            return None
        found: str | None = store.get(("part", place, language(), keys))
        return found

    @staticmethod
    def _keep(store: Any, place: str, keys: tuple[Hashable, ...], html: str) -> None:
        """Keep the piece ``html`` rendered at ``place`` for ``keys`` in ``store`` (when there is one)."""
        if store is not None and not isinstance(store, Undefined):
            store["part", place, language(), keys] = html


class Pieces:
    """A store of rendered pieces (``{% part %}``) for all the renders of a process: at most ``limit`` of
    them, the least recently used let go first.

    A piece is kept under what it shows (its place, the language and its
    keys), so any render that asks for it again may have it: a seat's name
    and badges are the same at every play until the deal is over, and a
    play's card on the table, a number of cards held or a life count look
    alike at every table. Kept for a room's version alone, a piece of a seat
    that is not rendered again at the next play was let go before its turn
    came round again. ``limit`` bounds the memory (a piece is some hundred
    bytes of HTML); :attr:`found` and :attr:`made` count the look-ups.
    """

    __slots__ = ("_kept", "found", "limit", "made")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a store of pieces holds at least one, not {limit}")
        self.limit = limit
        self._kept: dict[Hashable, Any] = {}  # oldest first: a dict keeps the order its keys went in
        self.found = 0
        self.made = 0

    def get(self, key: Hashable) -> Any | None:
        """The piece kept under ``key`` (``None``: none), now the most recently used."""
        kept = self._kept
        piece = kept.pop(key, None)
        if piece is None:
            return None
        kept[key] = piece
        self.found += 1
        return piece

    def __setitem__(self, key: Hashable, piece: Any) -> None:
        kept = self._kept
        kept.pop(key, None)
        kept[key] = piece
        self.made += 1
        if len(kept) > self.limit:
            del kept[next(iter(kept))]

    def __len__(self) -> int:
        """How many pieces are kept."""
        return len(self._kept)
