"""The pages under their Content-Security-Policy in Chromium: nothing they need is refused."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.helpers import LiveServer, protocol_player, sign_in

pytestmark = pytest.mark.e2e

RECORD_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation",
    event => window.violations.push(`${event.violatedDirective} ${event.blockedURI}`));
"""


def test_the_table_runs_under_its_policy_with_connect_src_self_alone(open_tab, server: LiveServer) -> None:
    host = server.post("/api/rooms", {"name": "Ana", "preset": "quick"})
    code = host["code"]
    ben = protocol_player(server, code, server.post(f"/api/rooms/{code}/players", {"name": "Ben"})["token"])
    ana = open_tab("Ana")
    ana.context.add_init_script(RECORD_VIOLATIONS)
    policies: list[str] = []
    # The server also names its ws:/wss: origins, for older browsers; this Chromium must open
    # the page's socket with 'self' alone. The page's policy is cut down on its way in (through
    # the DevTools protocol: a page Playwright answers itself may not reach 127.0.0.1 at all).
    devtools = ana.context.new_cdp_session(ana.page)

    def self_only(event: dict[str, Any]) -> None:
        headers = []
        for header in event["responseHeaders"]:
            if header["name"].lower() == "content-security-policy":
                policies.append(re.sub(r"connect-src [^;]*", "connect-src 'self'", header["value"]))
                headers.append({"name": header["name"], "value": policies[-1]})
            else:
                headers.append(header)
        devtools.send("Fetch.continueResponse", {"requestId": event["requestId"], "responseHeaders": headers,
                                                 "responseCode": event["responseStatusCode"]})

    devtools.on("Fetch.requestPaused", self_only)
    devtools.send("Fetch.enable", {"patterns": [{"urlPattern": f"{server.url}/r/{code}", "requestStage": "Response"}]})
    sign_in(ana, code, host["token"])
    ana.goto(f"/r/{code}")  # waits for the live connection
    assert policies and "connect-src 'self';" in policies[0]

    # The clock and the score meters take their sizes from data-vars, set by app.js.
    owner = protocol_player(server, code, host["token"])
    owner.send({"type": "set_clock", "seconds": 60})
    owner.send({"type": "start"})
    ana.page.wait_for_selector("#status .clock")
    variables = ana.page.evaluate("""() => [
        getComputedStyle(document.querySelector('#status .clock')).getPropertyValue('--left'),
        getComputedStyle(document.querySelector('#seats .meter span')).getPropertyValue('--fill')]""")
    assert variables[0].endswith("s") and variables[1] == "0%", variables

    assert ana.page.evaluate("() => window.violations") == []
    assert ana.problems() == []
    for player in (ben, owner):
        player.close()


def test_a_join_posted_from_another_site_is_refused_and_the_seat_kept(open_tab, server: LiveServer) -> None:
    ana = open_tab("Ana")
    ana.goto("/")
    ana.page.fill("input[name=name]", "Ana")
    ana.page.click("form button[type=submit]")
    ana.page.wait_for_url("**/r/*")
    code = ana.page.get_attribute("main#room", "data-code")
    seat_cookie = ana.context.cookies(server.url)
    # Another site's page with a form that takes a seat in Ana's room. Her SameSite cookie
    # does not go with it; were the post served, its answer would replace that cookie.
    other_site = "http://prizes.example/"
    ana.page.route(other_site, lambda route: route.fulfill(content_type="text/html", body=(
        f'<form method="post" action="{server.url}/r/{code}/join">'
        '<input name="name" value="Eve"><button>Win a prize</button></form>')))
    ana.page.goto(other_site)
    with ana.page.expect_navigation():
        ana.page.click("button")
    assert "sent from another site" in ana.page.inner_text("main")
    assert [seat["name"] for seat in server.room(code)["state"]["seats"]] == ["Ana"]
    assert ana.context.cookies(server.url) == seat_cookie
