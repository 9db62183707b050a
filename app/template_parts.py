"""``{% part %}``: a piece of a template kept by what it shows, so that it is rendered once for all the
renders that show it alike (the table page's live regions, from one version of a room to the next).

Its own module, importing Jinja2 and the language only, so that Babel's
extraction (babel.cfg) can read templates that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
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

    def parse(self, parser: Parser) -> nodes.Node:
        """Read ``{% part key, … %}`` and its body up to ``{% endpart %}``."""
        lineno = next(parser.stream).lineno
        keys = [parser.parse_expression()]
        while parser.stream.skip_if("comma"):
            keys.append(parser.parse_expression())
        body = parser.parse_statements(("name:endpart",), drop_needle=True)
        place = nodes.Const(f"{parser.name}:{lineno}")
        call = self.call_method("_part", [nodes.Name("parts", "load"), place, nodes.Tuple(keys, "load")])
        return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    @staticmethod
    def _part(store: Any, place: str, keys: tuple[Hashable, ...], caller: Callable[[], str]) -> str:
        if store is None or isinstance(store, Undefined):  # a render without a store
            return caller()
        key = ("part", place, language(), keys)
        html: str | None = store.get(key)
        if html is None:
            html = store[key] = caller()
        return html
