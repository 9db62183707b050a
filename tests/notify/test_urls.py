"""Outgoing URLs are user input: each kind of refused URL is refused before any request, and the allowed
ones are matched on their parsed parts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from app.config.settings import DEFAULT_PUSH_ENDPOINTS, DEFAULT_WEBHOOK_HOSTS
from app.notify.urls import PUSH_ENDPOINT_REFUSED, WEBHOOK_REFUSED, Allowlist, Entry, RefusedUrl, check_url

PUSH = Allowlist.parse(DEFAULT_PUSH_ENDPOINTS)
HOOKS = Allowlist.parse(DEFAULT_WEBHOOK_HOSTS)
FCM = "https://fcm.googleapis.com/fcm/send/abc:def"


def resolver(table: dict[str, Sequence[str]]):
    """A resolver that knows the names of ``table`` and no other, and counts its look-ups."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> Sequence[str]:
        asked.append(host)
        if host not in table:
            raise OSError("no such name")
        return table[host]

    resolve.asked = asked  # type: ignore[attr-defined]
    return resolve


def refused(url: object, allowlist: Allowlist = PUSH, code: str = PUSH_ENDPOINT_REFUSED,
            table: dict[str, Sequence[str]] | None = None) -> str:
    """Why ``url`` is refused (fails the test when it is not)."""
    with pytest.raises(RefusedUrl) as caught:
        target = check_url(url, allowlist, code)
        asyncio.run(target.resolve(resolver(table or {})))
    assert caught.value.code == code
    return caught.value.reason


def test_the_default_push_services_are_allowed_over_https_to_public_addresses():
    for url in (FCM, "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
                "https://web.push.apple.com/QGr1", "https://wns2-by3p.notify.windows.com/w/?token=BQYAAA"):
        target = check_url(url, PUSH, PUSH_ENDPOINT_REFUSED)
        assert asyncio.run(target.resolve(resolver({target.parts.host: ["142.250.74.10", "2a00:1450:400f::200a"]})))
        assert target.url == url


def test_an_http_endpoint_is_refused_unless_an_entry_names_http():
    assert refused("http://fcm.googleapis.com/fcm/send/abc") == "the URL must be https"
    listed = Allowlist.parse("http://push.internal.lan:8080/")
    target = check_url("http://push.internal.lan:8080/p/1", listed, PUSH_ENDPOINT_REFUSED)
    # Listed as it is, by the operator: its address is not checked for being public.
    assert asyncio.run(target.resolve(resolver({"push.internal.lan": ["10.1.2.3"]}))) == ("10.1.2.3",)


def test_a_host_not_on_the_list_is_refused_and_never_looked_up():
    look_up = resolver({"push.evil.net": ["93.184.216.34"]})
    with pytest.raises(RefusedUrl, match="not on this server's list"):
        check_url("https://push.evil.net/fcm/send/x", PUSH, PUSH_ENDPOINT_REFUSED)
    assert look_up.asked == []  # type: ignore[attr-defined]
    for url in ("https://fcm.googleapis.com.evil.net/x", "https://evilfcm.googleapis.com/x",
                "https://notify.windows.com/x",  # the *. entry covers hosts under it, not the name itself
                "https://x.notify.windows.com.evil.net/x", "https://fcm.googleapis.com:8443/x"):
        assert refused(url) == "the URL is not on this server's list of allowed addresses", url


def test_a_name_that_resolves_to_loopback_or_a_private_address_is_refused():
    for address in ("127.0.0.1", "10.0.0.7", "192.168.1.20", "169.254.169.254", "::1", "fd00::1",
                    "::ffff:10.0.0.7", "100.64.0.1"):
        reason = refused(FCM, table={"fcm.googleapis.com": [address]})
        assert reason == "the URL's host resolves to an address that is not public", address
    # One private address among public ones is enough.
    assert refused(FCM, table={"fcm.googleapis.com": ["142.250.74.10", "10.0.0.7"]}).endswith("not public")
    assert refused(FCM, table={}) == "the URL's host does not resolve"


def test_a_url_with_userinfo_is_refused():
    for url in ("https://user:secret@fcm.googleapis.com/fcm/send/x", "https://user@fcm.googleapis.com/x",
                "https://fcm.googleapis.com@evil.net/x"):
        assert "user name or password" in refused(url) or "not on this server's list" in refused(url), url
    assert refused("https://user:secret@fcm.googleapis.com/x") == "the URL must not carry a user name or password"


def test_a_url_that_is_not_plain_is_refused():
    for url in (None, 42, "", "fcm.googleapis.com/x", "javascript:alert(1)", "ftp://fcm.googleapis.com/x",
                "https://fcm.googleapis.com/x#frag", "https://fcm.googleapis.com/a/../b", "https://fcm.googleapis.com/%2e%2e/b",
                "https://fcm.googleapis.com/ x", "https://fcm.googleapis.com/\x00", "https://fcm.googleapis.com:99999/x",
                "https://fcmé.googleapis.com/x", "https:///x", "https://fcm.googleapis.com/" + "a" * 2000,
                "https://fcm.googleapis.com\\@evil.net/x"):
        refused(url)


def test_the_host_and_scheme_are_matched_without_case_and_the_default_port_is_the_schemes():
    target = check_url("HTTPS://FCM.GoogleApis.com:443/fcm/send/x", PUSH, PUSH_ENDPOINT_REFUSED)
    assert target.url == "https://fcm.googleapis.com/fcm/send/x"


def test_an_entry_matches_by_path_prefix():
    allowlist = Allowlist.parse("https://relay.cards.net/push/")
    check_url("https://relay.cards.net/push/abc", allowlist, PUSH_ENDPOINT_REFUSED)
    with pytest.raises(RefusedUrl):
        check_url("https://relay.cards.net/admin", allowlist, PUSH_ENDPOINT_REFUSED)


def test_entries_read_hosts_wildcards_and_prefixes():
    assert Entry.parse("discord.com") == Entry("https", "discord.com", 443, "/")
    assert Entry.parse("https://*.notify.windows.com/") == Entry("https", "*.notify.windows.com", 443, "/")
    assert Entry.parse("http://127.0.0.1:9000/push/") == Entry("http", "127.0.0.1", 9000, "/push/")
    assert Entry.parse("http://127.0.0.1:9000/").listed_as_is and Entry.parse("https://localhost/").listed_as_is
    assert not Entry.parse("https://fcm.googleapis.com/").listed_as_is
    for bad in ("https://u@x.net/", "https://x.net/?a=1", "ftp://x.net/"):
        with pytest.raises(ValueError):
            Entry.parse(bad)


def test_a_webhook_is_refused_with_its_own_code():
    assert refused("http://discord.com/api/webhooks/1/x", HOOKS, WEBHOOK_REFUSED) == "the URL must be https"
    assert refused("https://discord.com/api/webhooks/1/x", HOOKS, WEBHOOK_REFUSED,
                   {"discord.com": ["10.0.0.7"]}).endswith("not public")
