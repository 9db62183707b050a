"""The shape of the code: no import circles, dependencies one way, the room core small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def import_cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return groups


def test_no_module_of_the_app_takes_part_in_an_import_circle():
    graph = grimp.build_graph("app")
    # Packages' own __init__ modules re-export their members; circles through them count too.
    assert import_cycles(graph, set(graph.modules)) == []


def test_the_cycle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="c", imported="d")
    assert import_cycles(graph, {"a", "b", "c", "d"}) == [["a", "b", "c"]]


def test_dependencies_run_one_way_as_the_import_contracts_say():
    result = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_room_module_stays_small():
    lines = (ROOT / "app" / "rooms" / "room.py").read_text(encoding="utf-8").count("\n")
    assert lines < 400, f"app/rooms/room.py has {lines} lines: move a concern out of Room"


ROOM_PARTS = frozenset({"lobby", "chat", "presence", "current"})
"""The parts of a room (:class:`~app.rooms.room.Room`) that only the room itself handles."""


def parts_reached(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each place in ``source`` that reads an attribute named as a part of a room
    (:data:`ROOM_PARTS`), whatever the name before it: ``room.lobby``, ``other.chat``, ``f().current``."""
    return sorted((node.lineno, ast.unparse(node)) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Attribute) and node.attr in ROOM_PARTS)


def test_the_routes_call_the_room_never_its_parts():
    reached = [f"{path.relative_to(ROOT)}:{line}: {text}" for path in sorted((ROOT / "app" / "api").rglob("*.py"))
               for line, text in parts_reached(path.read_text(encoding="utf-8"))]
    assert reached == [], "the routes reach into a room's parts: give Room a method that says what they want"


def test_the_parts_finder_finds_a_part_through_any_name():
    source = "from app.rooms.chat import Chat\nroom.lobby.knows(x)\nhere = table.chat\nf().current.match_id\n"
    assert parts_reached(source) == [(2, "room.lobby"), (3, "table.chat"), (4, "f().current")]


ENTRY_POINTS = frozenset({"__init__.py", "__main__.py", "cli.py", "main.py"})
"""The only modules at the top of ``app``: the package, ``python -m app``, the command line and the app."""


def test_every_module_of_the_app_sits_in_the_folder_of_its_layer():
    loose = sorted(path.name for path in (ROOT / "app").glob("*.py") if path.name not in ENTRY_POINTS)
    assert loose == [], "modules at the top of app/: move each into the folder of its layer (docs/architecture.md)"
