"""A whole match, from the home page to "play again", without a console error or a failed request."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import LiveServer, play_until, sync_pages

pytestmark = pytest.mark.e2e


def test_a_whole_match_runs_without_console_errors_or_failed_requests(open_tab, server: LiveServer) -> None:
    log_start = len(server.log_text())
    ana, ben, watcher = open_tab("Ana"), open_tab("Ben"), open_tab("spectator")

    # Ana opens a quick table, then shortens it further with the lobby's rules form.
    ana.goto("/")
    ana.page.fill("input[name=name]", "Ana")
    ana.page.check("input[name=preset][value=quick]")
    ana.page.click("form button[type=submit]")
    ana.page.wait_for_url("**/r/*")
    ana.wait_live()
    code = ana.page.get_attribute("main#room", "data-code")
    ana.page.click("#rules details > summary")
    ana.page.select_option("#rules select[name=preset]", "custom")
    ana.page.select_option("#rules select[name=hand_size]", "3")
    ana.page.fill("#rules input[name=threshold]", "10")
    ana.page.select_option("#rules select[name=lives]", "1")
    ana.page.click("#rules button[type=submit]")
    rules = server.wait_room(code, lambda now: now["state"]["rules"]["threshold"] == 10)["state"]["rules"]
    assert (rules["hand_size"], rules["lives"]) == (3, 1)
    sync_pages(server, code, [ana])  # the server has the rules; the page shows them once its update arrives
    assert "Reaching 10 points" in ana.page.inner_text("#rules")

    ben.goto(f"/r/{code}")
    ben.page.fill("#join input[name=name]", "Ben")
    ben.page.click("#join button[type=submit]")
    ben.page.wait_for_selector("#join[hidden]", state="attached")
    ben.wait_live()
    watcher.goto(f"/r/{code}")
    sync_pages(server, code, [ana, ben, watcher])

    ana.page.click("#controls button.start")
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    finished = play_until(server, code, {0: ana, 1: ben}, {}, lambda now: now["state"]["phase"] == "finished",
                          watchers=(watcher,))
    assert finished["state"]["match_id"]

    # Play again: a new match starts at once for everyone.
    ana.page.click("#controls button.start")
    again = server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    assert again["state"]["deal"] == 1
    sync_pages(server, code, [ana, ben, watcher])

    for tab in (ana, ben, watcher):
        assert tab.problems() == []
        assert tab.cdn_served, tab.label  # the scripts came from the (stand-in) CDN, checked by SRI
        assert tab.page.evaluate("() => window.htmx && window.htmx.version") == "2.0.11"
    log = server.log_text()[log_start:]
    assert "Traceback" not in log and "ERROR" not in log, log
