"""What a browser holds of the table page: the page's elements, parsed with the standard library, and the
out-of-band swaps htmx's WebSocket extension makes with each frame the page's socket receives.

:func:`parse` reads HTML into :class:`Element` trees; :meth:`Page.apply` swaps a frame's top-level elements
in by element id, as htmx-ext-ws does (each top-level element of a message is an out-of-band swap,
``hx-swap-oob`` or ``"true"``); :meth:`Page.region` writes an element back as text, the same way for a page
however it came to hold it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})
"""Elements that have no end tag."""

IGNORED_ATTRIBUTES = frozenset({"hx-swap-oob"})
"""Attributes a region is compared without: htmx reads ``hx-swap-oob`` to know where an element goes, and a
page's element carries it or not depending on whether it came in the page or in a frame (the score sheet's
last trick is one); what the page shows is the same either way."""


@dataclass
class Element:
    """One element: its tag, attributes in order and children (elements and text)."""

    tag: str
    attrs: list[tuple[str, str | None]] = field(default_factory=list)
    children: list[Element | str] = field(default_factory=list)

    def get(self, name: str) -> str | None:
        """The value of attribute ``name`` (``None``: absent, or present without a value)."""
        return next((value for key, value in self.attrs if key == name), None)

    def text(self) -> str:
        """The element written as HTML, attributes in order, text escaped one way, comments and the attributes
        of :data:`IGNORED_ATTRIBUTES` left out."""
        attrs = "".join(f' {key}' if value is None else f' {key}="{html.escape(value)}"'
                        for key, value in self.attrs if key not in IGNORED_ATTRIBUTES)
        if self.tag in VOID:
            return f"<{self.tag}{attrs}>"
        children = _one_body(self.children) if self.tag == "table" else self.children
        inner = "".join(child.text() if isinstance(child, Element) else html.escape(child, quote=False)
                        for child in children)
        return f"<{self.tag}{attrs}>{inner}</{self.tag}>"


def _one_body(children: list[Element | str]) -> list[Element | str]:
    """A table's ``children`` with its bodies as one, and no white space between its rows and bodies: the page
    adds a deal's row to the score sheet in a body of its own (``_score_sheet_added.html``), which shows as the
    rows of one body do, and a table shows no text between them."""
    bodies = [child for child in children if isinstance(child, Element) and child.tag == "tbody"]
    rows = [row for body in bodies for row in body.children if not (isinstance(row, str) and row.isspace())]
    kept: list[Element | str] = []
    for child in children:
        if isinstance(child, str) and child.isspace():
            continue
        if child is bodies[0] if bodies else False:
            kept.append(Element("tbody", list(bodies[0].attrs), rows))
        elif not (isinstance(child, Element) and child.tag == "tbody"):
            kept.append(child)
    return kept


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#fragment")
        self.open: list[Element] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, list(attrs))
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, list(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(text: str) -> Element:
    """``text`` (a page or a fragment) as a tree under an element of tag ``#fragment``."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def _find(parent: Element, element_id: str) -> tuple[Element, int] | None:
    """The parent and place of the element with id ``element_id`` under ``parent`` (``None``: none)."""
    for index, child in enumerate(parent.children):
        if isinstance(child, Element):
            if child.get("id") == element_id:
                return parent, index
            found = _find(child, element_id)
            if found is not None:
                return found
    return None


class Page:
    """A table page as the browser holds it: its first HTML, then each frame of its socket swapped in."""

    def __init__(self, first: str) -> None:
        self.root = parse(first)

    def element(self, element_id: str) -> Element | None:
        """The element with id ``element_id`` (``None``: the page has none)."""
        found = _find(self.root, element_id)
        if found is None:
            return None
        parent, index = found
        child = parent.children[index]
        assert isinstance(child, Element)
        return child

    def region(self, element_id: str) -> str | None:
        """The element with id ``element_id`` written as :meth:`Element.text` does (``None``: none)."""
        element = self.element(element_id)
        return None if element is None else element.text()

    def apply(self, frame: str) -> None:
        """Swap in each top-level element of ``frame`` as htmx does with an out-of-band swap: ``true`` (or
        ``outerHTML``) puts it in place of the page's element of the same id, ``beforeend`` (``:#id`` naming
        the target, else its own id) appends its children to the target's. An element whose target the page
        does not have is dropped, as htmx drops it. ``hx-preserve`` elements are kept as the page had them."""
        for node in parse(frame).children:
            if not isinstance(node, Element):
                continue
            style, _, selector = (node.get("hx-swap-oob") or "true").partition(":")
            target_id = selector.removeprefix("#") if selector else node.get("id")
            if target_id is None:
                continue
            found = _find(self.root, target_id)
            if found is None:
                continue
            parent, index = found
            target = parent.children[index]
            assert isinstance(target, Element)
            if style in ("true", "outerHTML"):
                self._preserve(target, node)
                parent.children[index] = node
            elif style == "beforeend":
                target.children.extend(node.children)
            else:
                raise AssertionError(f"a swap this page model does not know: {style!r}")

    def _preserve(self, old: Element, new: Element) -> None:
        """Keep in ``new`` the page's own elements that ``old`` holds and mark ``hx-preserve``."""
        for index, child in enumerate(new.children):
            if not isinstance(child, Element):
                continue
            if child.get("hx-preserve") is not None or any(key == "hx-preserve" for key, _ in child.attrs):
                kept = _find(old, child.get("id") or "")
                if kept is not None:
                    new.children[index] = kept[0].children[kept[1]]
                continue
            self._preserve(old, child)
