"""The table chat in the browser: two players and a spectator write and react, markup stays text, the
limits and the host's mutes are shown, a player hides the chat, and the panel fits a phone and a desktop.

Screenshots of the chat on a 360 px phone and a desktop, light and dark, go to ``tests/e2e/screenshots/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import LiveServer, Tab, audit, sign_in

pytestmark = pytest.mark.e2e

PHONE_360 = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True,
             "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 768}}

OVERFLOW_JS = """() => {
  const chat = document.getElementById('chat');
  const panel = chat.getBoundingClientRect();
  const width = document.scrollingElement.clientWidth;
  const within = (box, outer) => box.left >= outer.left - 0.5 && box.right <= outer.right + 0.5;
  const shown = [...chat.querySelectorAll('*')].filter(e => e.getClientRects().length);
  return {
    page: [document.scrollingElement.scrollWidth, width],
    panel: [panel.left, panel.right],
    wide: shown.filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
                            && getComputedStyle(e).overflowX === 'visible')
               .map(e => `${e.tagName}.${e.className} ${e.scrollWidth}>${e.clientWidth}`),
    outside: shown.filter(e => !within(e.getBoundingClientRect(), panel)
                               || e.getBoundingClientRect().right > width + .5)
                  .map(e => `${e.tagName}.${e.className} "${e.textContent.trim().slice(0, 30)}"`),
    lines: [...chat.querySelectorAll('.chat-line')].filter(line =>
      !within(line.getBoundingClientRect(), chat.querySelector('.chat-log').getBoundingClientRect())).length,
  };
}"""
"""What of the open chat runs out of its box: elements whose text is wider than they are, elements
outside the panel or the screen, lines outside the list."""

LONG_WORD = "Supercalifragilisticexpialidocious" * 5
LONG_LINK = "https://example.org/" + "a-very-long-path-segment/" * 7


def seated(open_tab: Any, server: LiveServer, code: str, token: str | None, label: str, **options: Any) -> Tab:
    """A tab at the room's page: a player's (with their cookie) or a spectator's (``token`` None)."""
    tab = open_tab(label, **options)
    if token is not None:
        sign_in(tab, code, token)
    tab.goto(f"/r/{code}")
    return tab


def write(tab: Tab, text: str) -> None:
    """Type ``text`` in the chat box and press Enter, as a keyboard user sends it."""
    box = tab.page.locator("#chat-text")
    box.fill(text)
    box.press("Enter")


def lines(tab: Tab) -> list[dict[str, Any]]:
    """The chat lines the page shows: who, what, whether a spectator wrote it."""
    return tab.page.evaluate("""() => [...document.querySelectorAll('#chat-log .chat-line')].map(li => ({
      who: li.querySelector('.chat-who bdi').textContent, said: li.querySelector('.chat-said').textContent.trim(),
      spectator: li.classList.contains('from-spectator'), sender: li.dataset.sender}))""")


def wait_line(tab: Tab, said: str) -> None:
    """Wait until the page shows a chat line that says ``said``."""
    tab.page.wait_for_function(
        """said => [...document.querySelectorAll('#chat-log .chat-said')].some(e => e.textContent.trim() === said)""",
        arg=said)


def assert_accessible(tab: Tab) -> None:
    """axe-core finds nothing wrong with the tab's page as it is now."""
    problems = audit(tab)
    assert not problems, f"{tab.label}:\n" + "\n".join(problems)


def flash_of(tab: Tab) -> str:
    """The refusal the page shows (waits for one)."""
    tab.page.wait_for_selector("#flash.error:not(:empty)")
    return tab.page.inner_text("#flash")


def table_of_three(open_tab: Any, server: LiveServer, **options: Any) -> tuple[str, Tab, Tab, Tab]:
    """Ana (host) and Ben seated, and a spectator, each at the room's page."""
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ben = server.post(f"/api/rooms/{code}/players", {"name": "Ben"})
    ana_tab = seated(open_tab, server, code, host["token"], "Ana", **options)
    ben_tab = seated(open_tab, server, code, ben["token"], "Ben", **options)
    watcher = seated(open_tab, server, code, None, "watcher", **options)
    return code, ana_tab, ben_tab, watcher


def test_two_players_and_a_spectator_chat_and_markup_stays_text(open_tab, server: LiveServer) -> None:
    code, ana, ben, watcher = table_of_three(open_tab, server)
    tabs = [ana, ben, watcher]
    write(ana, "hello table")
    for tab in tabs:
        wait_line(tab, "hello table")
    assert ana.page.input_value("#chat-text") == ""  # sent: the box is empty again
    write(watcher, "go Ben!")
    ben.page.locator(".reactions button", has_text="Well played!").click()
    ben.page.locator('.reactions button[aria-label="thumbs up"]').click()
    for tab in tabs:
        wait_line(tab, "go Ben!")
        wait_line(tab, "Well played!")
        tab.page.wait_for_selector('#chat-log [role=img][aria-label="thumbs up"]')
    shown = lines(ana)
    assert [line["said"] for line in shown] == ["hello table", "go Ben!", "Well played!", "👍"]
    assert [line["spectator"] for line in shown] == [False, True, False, False]
    assert shown[0]["who"] == "Ana" and shown[2]["who"] == "Ben" and shown[1]["who"].startswith("Spectator ")

    markup = "<b>x</b> <script>window.pwned = 1</script> <img src=x onerror=window.pwned=2> https://example.org/a"
    write(ben, markup)
    for tab in tabs:
        wait_line(tab, markup)
        assert tab.page.evaluate("() => window.pwned") is None
        assert tab.page.locator("#chat-log b, #chat-log script, #chat-log img, #chat-log a").count() == 0

    write(ben, "y" * 201)
    refusal = flash_of(ben)
    assert "at most 200 characters" in refusal
    assert ben.page.input_value("#chat-text") == "y" * 201  # the text comes back, to be shortened
    write(ana, "after the refusal")
    for tab in tabs:
        wait_line(tab, "after the refusal")
        assert "y" * 201 not in tab.page.inner_text("#chat-log")

    for tab in tabs:
        assert_accessible(tab)
        assert tab.problems() == []


def test_writing_too_fast_is_refused_with_a_message(open_tab, server: LiveServer) -> None:
    code, ana, ben, watcher = table_of_three(open_tab, server)
    button = ben.page.locator('.reactions button[data-reaction="oops"]')
    for _ in range(9):  # the default allows 8 lines in 10 seconds
        button.click()
    assert "too fast" in flash_of(ben)
    ana.page.wait_for_function("() => document.querySelectorAll('#chat-log .chat-line').length === 8")
    assert ben.page.locator('#connection[data-state="open"]').count() == 1  # still connected
    assert_accessible(ben)


def test_the_host_mutes_a_sender_and_turns_spectator_chat_off(open_tab, server: LiveServer) -> None:
    code, ana, ben, watcher = table_of_three(open_tab, server)
    write(ben, "from Ben")
    write(watcher, "from the spectator")
    for tab in (ana, ben, watcher):
        wait_line(tab, "from the spectator")
    # Only the host sees the mute buttons.
    assert ana.page.locator("#chat-log .chat-mute:visible").count() == 2
    assert ben.page.locator("#chat-log .chat-mute:visible").count() == 0
    assert watcher.page.locator("#chat-log .chat-mute:visible").count() == 0

    spectator_line = ana.page.locator("#chat-log .chat-line.from-spectator")
    spectator_line.locator(".chat-mute").click()
    ana.page.wait_for_selector("#chat-status .muted-list")
    assert "Spectator" in ana.page.inner_text("#chat-status .muted-list")
    write(watcher, "can you hear me")
    assert "muted you" in flash_of(watcher)
    write(ben, "Ben is not muted")
    wait_line(ana, "Ben is not muted")
    assert_accessible(ana)

    ana.page.locator("#chat-status .spectator-switch").click()
    # Each tab has its own socket: wait on each, as they need not get the frame in any order.
    watcher.page.wait_for_function(
        "() => document.getElementById('chat-status').textContent.includes('Spectator chat is off')")
    ana.page.wait_for_function(
        "() => document.querySelector('#chat-status .spectator-switch').textContent === 'Turn spectator chat on'")
    ana.page.locator("#chat-status .spectator-switch").click()
    ana.page.wait_for_function(
        "() => document.querySelector('#chat-status .spectator-switch').textContent === 'Turn spectator chat off'")

    ana.page.locator("#chat-log .chat-line", has_text="from Ben").locator(".chat-mute").click()
    write(ben, "and now?")
    assert "muted you" in flash_of(ben)
    for tab in (ana, ben, watcher):
        assert_accessible(tab)
        assert tab.problems() == []


def test_a_player_hides_the_chat_and_the_browser_remembers(open_tab, server: LiveServer) -> None:
    code, ana, ben, watcher = table_of_three(open_tab, server)
    write(ana, "first")
    wait_line(ben, "first")
    toggle = ben.page.locator("#chat .chat-toggle")
    toggle.click()
    assert ben.page.locator("#chat-body").is_hidden()
    assert toggle.get_attribute("aria-expanded") == "false" and toggle.inner_text() == "Show chat"
    ben.goto(f"/r/{code}")
    assert ben.page.locator("#chat-body").is_hidden()  # remembered in this browser
    write(ana, "while hidden")
    wait_line(watcher, "while hidden")
    ben.page.wait_for_function("""() => [...document.querySelectorAll('#chat-log .chat-said')]
                                          .some(e => e.textContent === 'while hidden')""")
    assert ben.page.get_attribute("#chat-log", "aria-live") == "off"  # not announced either
    assert ben.page.locator("#chat-log").is_hidden()
    assert watcher.page.locator("#chat-body").is_visible()  # the others still see it
    assert_accessible(ben)
    toggle.click()
    assert ben.page.locator("#chat-log").is_visible()
    assert ben.page.get_attribute("#chat-log", "aria-live") == "polite"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", ["360", "1366"])
def test_the_open_chat_fits_a_phone_and_a_desktop(open_tab, server: LiveServer, screenshots: Path,
                                                  device: str, scheme: str) -> None:
    options = dict(PHONE_360 if device == "360" else DESKTOP, color_scheme=scheme)
    host = server.post("/api/rooms", {"name": "Wolfeschlegelsteinha", "preset": "quick"})
    code = host["code"]
    ben = server.post(f"/api/rooms/{code}/players", {"name": "Benedikte Sørensen"})
    ana = seated(open_tab, server, code, host["token"], f"host {device} {scheme}", **options)
    other = seated(open_tab, server, code, ben["token"], f"Ben {device} {scheme}", **options)
    watcher = seated(open_tab, server, code, None, f"watcher {device} {scheme}", **options)
    if device == "360":  # on a phone the chat is behind its tab
        for tab in (ana, other, watcher):
            tab.page.click('.panel-tab[data-panel="chat"]')
    write(ana, LONG_WORD)
    write(other, LONG_LINK)
    write(watcher, "a spectator says: " + LONG_WORD[:60])
    other.page.locator(".reactions button", has_text="Nice trick!").click()
    ana.page.locator("#chat-status .spectator-switch").click()
    for tab in (ana, other, watcher):
        wait_line(tab, "Nice trick!")
    for tab in (ana, other, watcher):
        tab.page.locator("#chat").scroll_into_view_if_needed()
        fit = tab.page.evaluate(OVERFLOW_JS)
        assert fit["page"][0] <= fit["page"][1], (tab.label, fit)
        assert fit["wide"] == [] and fit["outside"] == [] and fit["lines"] == 0, (tab.label, fit)
        assert_accessible(tab)
    ana.page.locator("#chat").screenshot(path=str(screenshots / f"chat-{device}-{scheme}-host.png"))
    watcher.page.screenshot(path=str(screenshots / f"chat-{device}-{scheme}-spectator.png"), full_page=True)
