"""The Content-Security-Policy and the other headers every response carries."""

from __future__ import annotations

import pytest

from app.pages.rendering import HTMX_URL, HTMX_WS_URL
from app.web.security import content_security_policy


def directives(policy: str) -> dict[str, list[str]]:
    """A policy as directive name → its sources."""
    parsed = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        parsed[name] = sources
    return parsed


def test_the_site_policy_allows_this_server_and_the_two_pinned_scripts_only():
    policy = directives(content_security_policy("cards.example.org"))
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'", HTMX_URL, HTMX_WS_URL]
    assert "style-src" not in policy  # default-src: the site's own style sheet, nothing inline
    assert policy["connect-src"] == ["'self'", "ws://cards.example.org", "wss://cards.example.org"]
    assert policy["frame-ancestors"] == policy["base-uri"] == policy["form-action"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert not any("unsafe" in source for sources in policy.values() for source in sources)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "[::1]:8000", "cards.example.org", "localhost"])
def test_the_socket_origins_follow_the_host(host):
    assert f"wss://{host}" in directives(content_security_policy(host))["connect-src"]


@pytest.mark.parametrize("host", [None, "", "evil.org; script-src *", "a b", "x'y", "cards.example.org:80:80"])
def test_a_host_unfit_for_a_policy_is_left_out(host):
    assert directives(content_security_policy(host))["connect-src"] == ["'self'"]


def test_only_the_api_explorer_gets_inline_scripts():
    policy = directives(content_security_policy("h", docs=True))
    assert "'unsafe-inline'" in policy["script-src"]
    assert policy["frame-ancestors"] == ["'self'"]
