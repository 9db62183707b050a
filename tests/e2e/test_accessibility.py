"""Pages are for everyone: every page and state a visitor meets passes the axe-core audit.

One tour goes through the site as people meet it: the home page with all the rules options open,
the rules, a room's lobby as its host and as a visitor (with the join form), the table mid-deal as
the player whose turn it is and as a spectator, the finished match's summary, the list of
matches, a finished match's page stepped through with its replay controls, the page of a room
that does not exist, the take-seat page, and the site in Danish after choosing it with the
language switcher. The tour runs light on a desktop and dark on a 390 px phone; the deal summary
between deals is audited light on the phone and dark on a desktop, so that the module meets all
four and stays quick. The table, the home page and the replay are audited in every language.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.wording.language import LANGUAGES
from tests.e2e.helpers import (
    LiveServer,
    Tab,
    analyse_match,
    audit,
    play_until,
    protocol_player,
    sign_in,
    sync_pages,
)
from tests.e2e.test_languages import switch_language

pytestmark = pytest.mark.e2e

DESKTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE_390 = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
             "has_touch": True}
SCREENS = {"desktop": DESKTOP, "phone": PHONE_390}


class Findings:
    """The audit's findings over a tour: each line names the page and state it was found in."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.audited: list[str] = []

    def check(self, tab: Tab, where: str, scope: str | None = None) -> None:
        """Audit ``tab``'s page as it is now; remember what breaks, under ``where``."""
        self.audited.append(where)
        self.lines += [f"{where}: {line}" for line in audit(tab, scope)]


def visit(open_tab: Any, label: str, scheme: str, screen: str) -> Tab:
    """A new person's tab in ``scheme`` ("light" or "dark") on ``screen`` ("desktop" or "phone")."""
    tab = open_tab(label, **SCREENS[screen])
    tab.page.emulate_media(color_scheme=scheme)
    return tab


@pytest.mark.parametrize(("scheme", "screen"), [("light", "desktop"), ("dark", "phone")])
def test_every_page_and_state_passes_the_audit(open_tab, server: LiveServer, scheme: str, screen: str) -> None:
    found = Findings()
    ana = visit(open_tab, "Ana", scheme, screen)
    ana.goto("/")
    assert ana.page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    ana.page.click("form details > summary")
    assert ana.page.locator("form details[open]").count() == 1
    found.check(ana, "home page, all options open")
    ana.goto("/rules")
    found.check(ana, "rules page")

    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 1}})
    code = host["code"]
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    found.check(ana, "lobby, as its host")
    visitor = visit(open_tab, "visitor", scheme, screen)
    visitor.goto(f"/r/{code}")
    assert visitor.page.locator("#join form").is_visible()
    found.check(visitor, "lobby, as a visitor with the join form")

    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing" and now["state"]["turn"] is not None)
    answer = play_until(server, code, {0: ana}, {1: ben}, lambda now: now["state"]["turn"] == 0,
                        watchers=(visitor,))
    assert ana.page.locator("#hand .card-button.playable").count() > 0
    found.check(ana, "table, the player whose turn it is")
    found.check(visitor, "table, a spectator")

    answer = play_until(server, code, {0: ana}, {1: ben}, lambda now: now["state"]["phase"] == "finished",
                        watchers=(visitor,))
    sync_pages(server, code, [ana, visitor])
    assert ana.page.locator("#summary").is_visible()
    found.check(ana, "finished match, a player")
    found.check(visitor, "finished match, a spectator")
    ben.close()

    match_id = answer["state"]["match_id"]
    visitor.goto("/matches")
    assert visitor.page.locator(f'a[href="/matches/{match_id}"]').count() >= 1
    found.check(visitor, "matches list")
    analyse_match(server, match_id)  # the page is audited with the coach's grades shown
    visitor.goto(f"/matches/{match_id}")
    assert visitor.page.locator(".coach-table").count() == 1
    found.check(visitor, "finished match's page, hands as dealt")
    for step in ("next-trick", "next-trick", "next-trick"):
        visitor.page.click(f'[data-replay] button[data-step="{step}"]')
    assert visitor.page.locator(".replay-trick .card").count() == 2
    found.check(visitor, "finished match's page, the replay at the last trick")
    visitor.page.click('[data-replay] button[data-step="last-deal"]')
    visitor.page.focus('[data-replay] button[data-step="prev-trick"]')
    found.check(visitor, "finished match's page, a replay control focused")

    lost = visit(open_tab, "lost", scheme, screen)
    lost.goto("/r/NOSUCH")
    found.check(lost, "missing room")
    lost.goto("/no/such/page")
    found.check(lost, "no such page")
    visitor.goto(f"/r/{code}/take")
    found.check(visitor, "take-seat page")

    switch_language(ana, "da")
    assert ana.page.get_attribute("html", "lang") == "da"
    found.check(ana, "finished match, a player, in Danish")
    ana.goto("/")
    ana.page.click("form details > summary")
    found.check(ana, "home page in Danish, all options open")
    ana.goto(f"/matches/{match_id}")
    ana.page.click('[data-replay] button[data-step="next-trick"]')
    found.check(ana, "finished match's page in Danish, replaying")

    assert len(found.audited) == 18
    assert found.lines == [], "\n".join(found.lines)
    assert ana.problems() == [] and visitor.problems() == []
    # The missing room's page answers 404, as it should, and the browser says so; nothing else went wrong.
    assert all("404" in line for line in lost.problems()), lost.problems()


def test_the_table_and_the_replay_pass_the_audit_in_every_language(open_tab, server: LiveServer) -> None:
    """Words differ in length and in what they say: a button named in one language by words that its
    visible text lacks, or a label that runs over its neighbour, shows up in another language only."""
    found = Findings()
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 1}})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana = open_tab("Ana", **DESKTOP)
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing" and now["state"]["turn"] is not None)
    play_until(server, code, {0: ana}, {1: ben}, lambda now: now["state"]["turn"] == 0)
    languages = [code_ for code_ in LANGUAGES if code_ != "en"]
    for language in languages:
        switch_language(ana, language)
        assert ana.page.get_attribute("html", "lang") == language
        assert ana.page.locator("#hand .card-button.playable").count() > 0
        found.check(ana, f"table, the player whose turn it is, in {language}")
    answer = play_until(server, code, {0: ana}, {1: ben}, lambda now: now["state"]["phase"] == "finished")
    ben.close()
    for language in languages:
        ana.goto("/")
        switch_language(ana, language)
        ana.page.click("form details > summary")
        found.check(ana, f"home page, all options open, in {language}")
        ana.goto(f"/matches/{answer['state']['match_id']}")
        ana.page.click('[data-replay] button[data-step="next-trick"]')
        found.check(ana, f"finished match's page, replaying, in {language}")
    assert len(found.audited) == 3 * len(languages)
    assert found.lines == [], "\n".join(found.lines)
    assert ana.problems() == []


@pytest.mark.parametrize(("scheme", "who"), [("light", "Ana"), ("dark", "watcher")])
def test_the_deal_summary_between_deals_passes_the_audit(open_tab, slow_server: LiveServer, scheme: str,
                                                          who: str) -> None:
    """The summary shown in the pause between two deals (2.5 s on this server: time for one audit), for
    the player on a phone or for a spectator on a desktop."""
    server = slow_server
    found = Findings()
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick", "rules": {"match_length": 2}})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana = open_tab("Ana", live=server, **PHONE_390)
    ana.page.emulate_media(color_scheme=scheme)
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")
    watcher = open_tab("watcher", live=server, **DESKTOP)
    watcher.page.emulate_media(color_scheme=scheme)
    watcher.goto(f"/r/{code}")
    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing" and now["state"]["turn"] is not None)
    play_until(server, code, {0: ana}, {1: ben}, lambda now: now["state"]["turn"] is None, watchers=(watcher,))
    tab = ana if who == "Ana" else watcher
    assert tab.page.get_attribute("#status", "data-stage") == "deal_over"
    assert tab.page.locator("#summary .summary-lines li").count() >= 1
    found.check(tab, f"deal summary between deals, {tab.label}")
    ben.close()
    assert found.lines == [], "\n".join(found.lines)
    assert ana.problems() == [] and watcher.problems() == []
