"""The rules specification in docs/rules.md holds every section the code cites."""

from __future__ import annotations

import re
from pathlib import Path

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
