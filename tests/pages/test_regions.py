"""What each live region may read: its own value, and nothing of another viewer.

A region's block renders from its value alone (app/pages/regions.py), so
what the renderer keeps under that value is exactly what the block shows.
These checks read the templates' and the projection's source, so that an
edit that reads anything else fails here and not, unseen, in a viewer's page.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from jinja2 import nodes

from app.pages import regions
from app.pages.pieces import PIECES
from app.pages.rendering import templates
from app.pages.table import LIVE_REGIONS, PageConstants

TEMPLATES = Path(__file__).parents[2] / "app" / "templates"
CONSTANTS = set(PageConstants._fields)


def names_read(node: nodes.Node) -> set[str]:
    """The names ``node`` reads that it does not set itself (by ``set``, a loop, a macro's arguments or an
    import)."""
    stored = {name.name for name in node.find_all(nodes.Name) if name.ctx in ("store", "param")}
    for imported in node.find_all(nodes.FromImport):
        stored.update(name if isinstance(name, str) else name[1] for name in imported.names)
    return {name.name for name in node.find_all(nodes.Name) if name.ctx == "load"} - stored


def blocks(template: str) -> dict[str, nodes.Block]:
    """The blocks of ``template``, by name."""
    source = (TEMPLATES / template).read_text(encoding="utf-8")
    return {block.name: block for block in templates.env.parse(source).find_all(nodes.Block)}


def test_each_live_region_reads_its_own_value_and_the_pages_constants_alone():
    page = blocks("room.html")
    allowed_everywhere = set(templates.env.globals) | CONSTANTS  # filters are no names: nothing to read
    for name in LIVE_REGIONS:
        read = names_read(page[name]) - allowed_everywhere
        assert read <= {name}, (name, read)
    seat = blocks("_seat.html")["seat"]
    assert names_read(seat) - allowed_everywhere <= {"seat"}
    # What the live regions include reads their value too.
    for block in (page[name] for name in LIVE_REGIONS):
        for included in block.find_all(nodes.Include):
            assert isinstance(included.template, nodes.Const)
            assert included.template.value in INCLUDED, included.template.value
    for template, value in INCLUDED.items():
        source = (TEMPLATES / template).read_text(encoding="utf-8")
        assert names_read(templates.env.parse(source)) - allowed_everywhere == {value}, template


INCLUDED = {"_score_sheet.html": "scoresheet", "_score_sheet_added.html": "scoresheet"}
"""The templates the live regions include, or the renderer renders from a region's value, with the value they
read."""


def test_each_piece_reads_its_own_value_alone():
    source = (TEMPLATES / "_pieces.html").read_text(encoding="utf-8")
    macros = {macro.name: macro for macro in templates.env.parse(source).find_all(nodes.Macro)}
    assert set(macros) == set(PIECES)
    for name, macro in macros.items():
        assert names_read(macro) - set(templates.env.globals) == set(), name


def test_the_check_above_sees_a_block_that_reads_what_is_not_its_own():
    template = templates.env.parse("{% block status %}{{ status.version }}{{ view.hand }}{% endblock %}")
    block = next(template.find_all(nodes.Block))
    assert names_read(block) == {"status", "view"}


def attributes_read(function: object) -> set[str]:
    """The attributes the source of ``function`` reads, by name."""
    tree = ast.parse(inspect.getsource(function))  # type: ignore[arg-type]
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def test_only_the_hand_region_reads_a_viewers_hand():
    """Every other region is built from the public view and the viewer's seat and host role: a hidden card
    can reach a page through the hand region only, which shows a viewer their own."""
    private = {"hand", "at_rest", "view", "table"}
    for name, function in inspect.getmembers(regions, inspect.isfunction):
        if function.__module__ != regions.__name__:
            continue
        read = attributes_read(function) & private
        if name == "your_hand":
            assert {"hand", "at_rest"} <= read
        elif name == "your_slow":
            assert read == {"table"}  # the host's own webhook, shown to the host alone
        else:
            assert read == set(), (name, read)
