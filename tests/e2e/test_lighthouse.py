"""Lighthouse on home, rules, past matches and a seated room page in play (tests/e2e/lighthouse.py):
accessibility and best practices at 100 everywhere, SEO at 100 on the public pages, and on the room page
(kept from search engines) every SEO audit but "is crawlable". Performance is timing: its scores are
printed and kept with the reports, never asserted (scripts/lighthouse reports them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, skip_unless_ready
from tests.e2e.helpers import LiveServer
from tests.e2e.lighthouse import PAGES, ROOM, audit_site, failed_audits, installed, scores

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def lighthouse_ready(e2e_ready: None) -> None:
    """Skip when Lighthouse is not installed; fail instead when CI requires the browser tests."""
    skip_unless_ready(installed())


def test_lighthouse_finds_the_pages_accessible_well_made_and_found_by_search_engines_where_wanted(
        lighthouse_ready: None, server: LiveServer, screenshots: Path, tmp_path: Path) -> None:
    reports = audit_site(server, tmp_path, CHROMIUM)
    assert set(reports) == {*PAGES, ROOM}
    figures = {name: scores(report) for name, report in reports.items()}
    kept = screenshots / "lighthouse"  # the run's artefacts: each page's report and the scores
    kept.mkdir(exist_ok=True)
    for report in tmp_path.glob("*.json"):
        shutil.copy(report, kept / report.name)
    (kept / "scores.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nLighthouse scores (performance is reported, not asserted):", json.dumps(figures, indent=1))

    problems = []
    for name, report in reports.items():
        for category in ("accessibility", "best-practices"):
            problems += [f"{name}: {category}: {audit}: {what}"
                         for audit, what in failed_audits(report, category).items()]
        seo = failed_audits(report, "seo")
        if name == ROOM:
            assert "is-crawlable" in seo, "the room page is open to search engines"
            seo.pop("is-crawlable")
        problems += [f"{name}: seo: {audit}: {what}" for audit, what in seo.items()]
    assert problems == []
    for name, figure in figures.items():
        assert figure["accessibility"] == figure["best-practices"] == 100, (name, figure)
        if name != ROOM:
            assert figure["seo"] == 100, (name, figure)
