"""``{% part %}``: a piece of a template kept by what it shows, so that it is rendered once for all the
renders that show it alike (the table page's live regions, from one version of a room to the next).

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
    and ``[key] = html``; a room's :class:`~app.rooms.fanout.Kept`); a render
    without it (a whole page) renders every piece. A piece is kept under its
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
