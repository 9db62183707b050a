"""The documents agree with the code and with each other: every cited rules section exists, every options
table is the engine's, the settings tables are the settings model's, every link leads somewhere, and the
README and the performance page stay short."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from app.config.settings import Settings
from app.game.rules import CHOICE, NUMBER, NUMBER_OR_WORD, OPTIONS, PRESETS, RuleOption, Rules

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
PLAYING = DOCS / "playing.md"
CONFIGURATION = DOCS / "configuration.md"
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
# The options tables of docs/playing.md and of docs/rules.md §3 are the engine's


def options_row(option: RuleOption) -> str:
    """docs/playing.md's table row for an option, made from the engine's table."""
    words = ", ".join(f"`{word}`" for word in option.choices)
    numbers = f"{option.low} … {option.high}"
    values = {CHOICE: words, NUMBER: numbers, NUMBER_OR_WORD: f"{words} or {numbers} (deals)"}[option.kind]
    default = f"`{option.default}`" if isinstance(option.default, str) else str(option.default)
    return f"| `{option.name}` | {values} | {default} |"


def table_after(text: str, header: str, at: int | None = None) -> list[str]:
    """The rows of the Markdown table whose header line is ``header``: the first such table, or the one whose
    header is line ``at`` (from 0). Raises ``ValueError`` when there is no such table."""
    lines = text.splitlines()
    start = (lines.index(header) if at is None else at) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def tables_after(text: str, header: str) -> list[str]:
    """The rows of every Markdown table whose header line is ``header``, in order."""
    lines = text.splitlines()
    return [row for start, line in enumerate(lines) if line == header for row in table_after(text, header, start)]


def test_the_players_guide_options_table_is_the_engines():
    rows = table_after(PLAYING.read_text(encoding="utf-8"), "| option | values | default |")
    assert rows == [options_row(option) for option in OPTIONS]


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
# docs/configuration.md's tables are the settings'


def written_default(value: Any) -> str:
    """A setting's default as docs/configuration.md's tables write it."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, list):
        value = json.dumps(value)
    return f"`{value}`"


def test_the_configuration_lists_every_setting_once_with_its_default():
    # The settings are in several tables, one per concern, all with this header.
    rows = tables_after(CONFIGURATION.read_text(encoding="utf-8"), "| variable | default | meaning |")
    written = [(cells[1].strip().strip("`"), cells[2].strip()) for cells in (row.split("|") for row in rows)]
    listed = dict(written)
    variable = {name: "DATABASE_URL" if name == "database_url" else f"CUCUMBER_{name.upper()}"
                for name in Settings.model_fields}
    expected = {variable[name]: written_default(field.default) for name, field in Settings.model_fields.items()}
    assert {name: listed.get(name) for name in expected} == expected
    assert set(listed) == set(expected)
    assert len(written) == len(listed), "a setting is listed twice"


def test_the_settings_tables_are_read_from_every_table_with_their_header():
    text = "| variable | default | meaning |\n|---|---|---|\n| `A` | `1` | a |\n\nwords\n\n" \
           "| variable | default | meaning |\n|---|---|---|\n| `B` | — | b |\n| `C` | `x` | c |\n"
    assert tables_after(text, "| variable | default | meaning |") == [
        "| `A` | `1` | a |", "| `B` | — | b |", "| `C` | `x` | c |"]
    assert written_default(None) == "—"
    assert written_default(False) == "`false`"
    assert written_default(4.0) == "`4`"
    assert written_default(0.15) == "`0.15`"
    assert written_default([]) == "`[]`"



# ---------------------------------------------------------------------------
# The README and the docs: short where they must be, and every link leads to a page and a heading that exist

README = ROOT / "README.md"
PAGES = sorted([README, *DOCS.rglob("*.md")])

FENCED = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)|<(?:img|a)\s[^>]*?(?:src|href)=\"([^\"]+)\"")
HEADING_LINE = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def relative_links(text: str) -> list[str]:
    """The links of a Markdown text that lead to a file beside it: neither a web address, nor a path on a
    running server (``/rules``), nor anything in code."""
    prose = INLINE_CODE.sub("", FENCED.sub("", text))
    targets = [inline or tag for inline, tag in LINK.findall(prose)]
    return [target for target in targets if not re.match(r"^([a-z][a-z0-9+.-]*:|/)", target)]


def anchors(text: str) -> set[str]:
    """The fragments that lead to a heading of a Markdown text, as GitHub makes them (lower case, spaces as
    ``-``, punctuation dropped, a repeated one numbered), and any ``id`` given by hand."""
    found: set[str] = set()
    for heading in HEADING_LINE.findall(FENCED.sub("", text)):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        number, candidate = 0, slug
        while candidate in found:
            number += 1
            candidate = f"{slug}-{number}"
        found.add(candidate)
    return found | set(re.findall(r"\sid=\"([^\"]+)\"", text))


def test_links_and_anchors_are_read_as_github_shows_them():
    text = "# Title\n\n## Stopping the server\n\n### §2.4 Legal plays\n\n## WebSocket `/api/rooms/{code}/ws`\n\n" \
           "## Notes\n\n## Notes\n\n```sh\n# not a heading [x](nowhere.md)\n```\n" \
           "See [a](a.md), [b](b.md#part \"title\"), <https://example.org>, [c](https://example.org/c.md), " \
           "[rules](/rules), `[d](d.md)` and <img src=\"e.png\" alt=\"\">.\n"
    assert relative_links(text) == ["a.md", "b.md#part", "e.png"]
    assert anchors(text) == {"title", "stopping-the-server", "24-legal-plays", "websocket-apiroomscodews",
                             "notes", "notes-1"}


def test_every_relative_link_of_the_readme_and_the_docs_leads_to_a_file_and_heading():
    broken = []
    for page in PAGES:
        for target in relative_links(page.read_text(encoding="utf-8")):
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.is_file():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_docs_index_lists_every_page_and_the_readme_links_the_index():
    readme = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(README.read_text("utf-8"))}
    index = DOCS / "README.md"
    listed = {(DOCS / target.partition("#")[0]).resolve() for target in relative_links(index.read_text("utf-8"))}
    assert index in readme
    assert [str(page.relative_to(ROOT)) for page in DOCS.glob("*.md") if page not in listed | {index}] == []


def test_the_readme_is_read_in_two_minutes():
    assert len(README.read_text(encoding="utf-8").splitlines()) < 150


def test_the_performance_page_is_current_figures_not_a_history():
    assert len((DOCS / "performance.md").read_text(encoding="utf-8").splitlines()) < 300


REPOSITORY_PATH = re.compile(r"`((?:app|bench|tests|scripts|migrations|deploy|docs|\.ci)/[^`\s]*)`")


def test_every_path_the_readme_and_the_docs_name_in_code_exists():
    # The dated journal names files as they were then; every other page says what is.
    missing = []
    for page in (page for page in PAGES if "journal" not in page.parts):
        for path in REPOSITORY_PATH.findall(page.read_text(encoding="utf-8")):
            if not re.search(r"[<{*…]", path) and not (ROOT / path.rstrip("/")).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []
