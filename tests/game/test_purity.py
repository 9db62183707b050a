"""The engine is pure: standard library only, no clock, no I/O, no hidden random state.

Every module of ``app.game`` is parsed (not imported) and checked.
"""

import ast
import sys
from pathlib import Path

import pytest

import app.game

GAME = Path(app.game.__file__).parent
MODULES = sorted(GAME.glob("*.py"))

# Standard-library modules that mean a clock, I/O, processes or the environment.
IMPURE = {
    "time", "datetime", "calendar", "os", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "socket",
    "select", "selectors", "ssl", "asyncio", "threading", "multiprocessing", "concurrent", "subprocess",
    "signal", "logging", "urllib", "http", "sqlite3", "secrets", "uuid", "sched", "fileinput", "builtins",
}
IMPURE_CALLS = {"open", "print", "input", "exec", "eval", "compile", "__import__", "breakpoint", "exit", "quit"}


def top(name: str) -> str:
    return name.split(".", maxsplit=1)[0]


def problems(source: str, name: str = "<module>") -> list[str]:
    """Every way ``source`` breaks the purity rules, as messages (empty when pure)."""
    tree = ast.parse(source, name)
    found = []
    random_names = set()  # names bound to the random module in this source
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found += _check_import(alias.name)
                if alias.name == "random":
                    random_names.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # relative: inside app.game
            found += _check_import(node.module or "")
            if node.module == "random":
                found += [f"from random import {alias.name}: only the Random class may be used"
                          for alias in node.names if alias.name != "Random"]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in IMPURE_CALLS:
            found.append(f"line {node.lineno}: calls {node.func.id}()")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in random_names
                and node.attr != "Random"):
            found.append(f"line {node.lineno}: random.{node.attr} uses the module-level generator")
    for node in _import_time_nodes(tree):
        if isinstance(node, ast.Call) and _is_random_call(node.func, random_names):
            found.append(f"line {node.lineno}: builds a random generator when the module is imported")
    return found


def _check_import(module: str) -> list[str]:
    if module == "app.game" or module.startswith("app.game."):
        return []
    if module == "__future__":
        return []
    if top(module) not in sys.stdlib_module_names:
        return [f"imports {module}, which is neither the standard library nor app.game"]
    if top(module) in IMPURE:
        return [f"imports {module} (a clock, I/O or the environment)"]
    return []


def _import_time_nodes(tree: ast.Module):
    """Every node evaluated when the module is imported (not the bodies of functions)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # Decorators and default values run at import; the body does not.
            pending += node.decorator_list if not isinstance(node, ast.Lambda) else []
            pending += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            continue
        yield node
        pending += list(ast.iter_child_nodes(node))


def _is_random_call(func: ast.expr, random_names: set[str]) -> bool:
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in random_names) or (isinstance(func, ast.Name) and func.id == "Random")


def test_the_engine_has_modules():
    names = {path.stem for path in MODULES}
    assert {"cards", "rules", "errors", "events", "match", "views", "record", "simulate", "standings"} <= names


@pytest.mark.parametrize("path", MODULES, ids=[path.stem for path in MODULES])
def test_module_is_pure(path):
    assert problems(path.read_text(encoding="utf-8"), str(path)) == []


@pytest.mark.parametrize(("source", "expected"), [
    ("import time\n", "imports time"),
    ("from datetime import datetime\n", "imports datetime"),
    ("import fastapi\n", "neither the standard library"),
    ("from sqlalchemy.orm import Session\n", "neither the standard library"),
    ("import random\nrandom.shuffle([])\n", "random.shuffle"),
    ("import random as r\ndef f():\n    return r.random()\n", "random.random"),
    ("from random import choice\n", "only the Random class"),
    ("import random\nRNG = random.Random(1)\n", "when the module is imported"),
    ("import random\ndef f(rng=random.Random()):\n    pass\n", "when the module is imported"),
    ("def f():\n    print('x')\n", "calls print()"),
    ("DATA = open('cards.txt').read()\n", "calls open()"),
])
def test_the_check_catches_impure_code(source, expected):
    found = problems(source)
    assert any(expected in problem for problem in found), found


def test_the_check_accepts_what_the_engine_does():
    source = (
        "from __future__ import annotations\nimport functools\nimport random\n"
        "from collections.abc import Sequence\nfrom app.game.cards import Card\nfrom . import rules\n"
        "def deal(rng: random.Random) -> float:\n    return rng.random()\n"
        "def fresh(seed: int) -> random.Random:\n    return random.Random(seed)\n"
    )
    assert problems(source) == []
