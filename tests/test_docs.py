"""The documents agree with the code: every cited rules section exists, every options table is the engine's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.game.rules import CHOICE, NUMBER, NUMBER_OR_WORD, OPTIONS, PRESETS, RuleOption, Rules
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SOURCES = sorted(path for pattern in ("*.py", "*.html", "*.js") for path in (ROOT / "app").rglob(pattern))

CITATION = re.compile(r"§\s?(\d+)(?:\.(\d+))?(?:[–-](?:(\d+)\.)?(\d+))?")
HEADING = re.compile(r"^#{2,3} §(\d+(?:\.\d+)?) ", re.M)


def cited_sections(text: str) -> set[str]:
    """Every section a text cites, ranges spelled out: ``§2.2–2.4`` → 2.2, 2.3, 2.4."""
    found = set()
    for match in CITATION.finditer(text):
        chapter, first, range_chapter, last = match.groups()
        if first is None:
            found.add(chapter)
            continue
        if last is None or (range_chapter or chapter) != chapter:
            found.add(f"{chapter}.{first}")
            if last is not None:
                found.add(f"{range_chapter}.{last}")
            continue
        found.update(f"{chapter}.{number}" for number in range(int(first), int(last) + 1))
    return found


def test_citations_are_read_with_their_ranges():
    assert cited_sections("docs/rules.md §2.4, §3 ``follow`` and §2.7–2.10; §4") == {
        "2.4", "3", "2.7", "2.8", "2.9", "2.10", "4"}


def test_every_cited_section_is_a_heading_of_the_rules():
    headings = set(HEADING.findall(RULES.read_text(encoding="utf-8")))
    missing = {}
    for path in SOURCES:
        for section in cited_sections(path.read_text(encoding="utf-8")) - headings:
            missing.setdefault(section, []).append(str(path.relative_to(ROOT)))
    assert missing == {}


def test_the_rules_have_every_section_of_the_house_game():
    headings = HEADING.findall(RULES.read_text(encoding="utf-8"))
    assert headings == ["1", "2", *(f"2.{number}" for number in range(1, 11)), "3", "4"]


def test_the_code_cites_the_rules_in_the_repository():
    assert [str(path) for path in SOURCES if "RULES.md" in path.read_text(encoding="utf-8")] == []
    assert any("docs/rules.md §" in path.read_text(encoding="utf-8") for path in SOURCES)


# ---------------------------------------------------------------------------
# The options tables of the README and of docs/rules.md §3 are the engine's


def readme_row(option: RuleOption) -> str:
    """The README's table row for an option, made from the engine's table."""
    words = ", ".join(f"`{word}`" for word in option.choices)
    numbers = f"{option.low} … {option.high}"
    values = {CHOICE: words, NUMBER: numbers, NUMBER_OR_WORD: f"{words} or {numbers} (deals)"}[option.kind]
    default = f"`{option.default}`" if isinstance(option.default, str) else str(option.default)
    return f"| `{option.name}` | {values} | {default} |"


def table_after(text: str, header: str) -> list[str]:
    """The rows of the Markdown table whose header line is ``header``."""
    lines = text.splitlines()
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_readme_options_table_is_the_engines():
    rows = table_after((ROOT / "README.md").read_text(encoding="utf-8"), "| option | values | default |")
    assert rows == [readme_row(option) for option in OPTIONS]


def test_the_rules_specification_names_every_option_with_its_default():
    header = "| option | possible values | default | where it comes from |"
    rows = table_after(RULES.read_text(encoding="utf-8"), header)
    cells = {row.split("|")[1].strip().strip("`"): row.split("|")[3].strip() for row in rows}
    assert set(cells) == {option.name for option in OPTIONS}
    for option in OPTIONS:
        assert cells[option.name].strip("`").startswith(str(option.default)), option.name


def test_the_rules_specification_gives_every_preset_its_options():
    # docs/rules.md §3, "Presets": the options each preset names (as `name: word` or `name` N), defaults for the rest.
    rows = table_after(RULES.read_text(encoding="utf-8"), "| preset | options | where it comes from |")
    written = {}
    for row in rows:
        name, options = (cell.strip() for cell in row.split("|")[1:3])
        pairs = re.findall(r"`(\w+)(?:: (\w+)`|` (\d+))", options)
        written[name.strip("`")] = {option: word or int(number) for option, word, number in pairs}
    assert {name: Rules().changed(**options) for name, options in written.items()} == PRESETS


# ---------------------------------------------------------------------------
# The README's configuration table is the settings'


def readme_default(value: Any) -> str:
    """A setting's default as the README's table writes it."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, list):
        value = json.dumps(value)
    return f"`{value}`"


def test_the_readme_lists_every_setting_with_its_default():
    rows = table_after((ROOT / "README.md").read_text(encoding="utf-8"), "| variable | default | meaning |")
    listed = {cells[1].strip().strip("`"): cells[2].strip() for cells in (row.split("|") for row in rows)}
    variable = {name: "DATABASE_URL" if name == "database_url" else f"CUCUMBER_{name.upper()}"
                for name in Settings.model_fields}
    expected = {variable[name]: readme_default(field.default) for name, field in Settings.model_fields.items()}
    assert {name: listed.get(name) for name in expected} == expected
    assert set(listed) == set(expected)

