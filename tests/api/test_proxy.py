"""Behind a TLS proxy: forwarded headers count from trusted proxies only.

The test client's requests come from the address given to ``make_client``;
``127.0.0.1`` is the default trusted proxy.
"""

from __future__ import annotations

import pytest

from app.config.settings import Settings
from app.pages.assets import ASSETS

PROXY = ("127.0.0.1", 40000)
STRANGER = ("203.0.113.9", 40000)
HTTPS = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}


def seat_cookies(client, headers):
    """Open a room by the home page form, join it by the room page form and by the API;
    returns the three answers."""
    opened = client.post("/rooms", data={"name": "Ana", "preset": "agurk"}, headers=headers, follow_redirects=False)
    code = opened.headers["location"].rsplit("/", 1)[1]
    client.cookies.clear()  # another browser
    joined = client.post(f"/r/{code}/join", data={"name": "Ben"}, headers=headers, follow_redirects=False)
    api = client.post(f"/api/rooms/{code}/players", json={"name": "Cy"}, headers=headers)
    return opened, joined, api


def test_behind_a_trusted_proxy_over_https_cookies_are_secure_and_redirects_stay_on_https(make_client):
    client = make_client(address=PROXY)
    for answer in seat_cookies(client, HTTPS):
        assert "; secure" in answer.headers["set-cookie"].lower()
        assert not answer.headers.get("location", "").startswith("http:")
    opened = client.post("/api/rooms", json={"name": "Dag"}, headers=HTTPS)
    code = opened.json()["code"]
    assert opened.json()["url"] == f"https://testserver/r/{code}"
    assert f'href="https://testserver/r/{code}"' in client.get(f"/r/{code}", headers=HTTPS).text


def test_from_an_untrusted_address_forwarded_headers_are_ignored(make_client):
    client = make_client(address=STRANGER)
    for answer in seat_cookies(client, HTTPS):
        assert "secure" not in answer.headers["set-cookie"].lower()
    opened = client.post("/api/rooms", json={"name": "Dag"}, headers=HTTPS)
    assert opened.json()["url"].startswith("http://testserver/r/")


def test_an_https_public_url_makes_the_cookie_secure_whoever_asks(make_client):
    client = make_client(address=STRANGER, public_url="https://cards.agurk.net")
    for answer in seat_cookies(client, {}):
        assert "; secure" in answer.headers["set-cookie"].lower()
    opened = client.post("/api/rooms", json={"name": "Dag"})
    assert opened.json()["url"] == f"https://cards.agurk.net/r/{opened.json()['code']}"


def test_redirects_and_page_links_are_paths_not_urls(make_client):
    client = make_client(address=STRANGER)
    opened, joined, _ = seat_cookies(client, {})
    code = opened.headers["location"].rsplit("/", 1)[1]
    assert opened.headers["location"] == joined.headers["location"] == f"/r/{code}"
    moved = client.get(f"/r/{code.lower()}", follow_redirects=False)
    assert moved.status_code == 308 and moved.headers["location"] == f"/r/{code}"
    for path in ["/", f"/r/{code}", "/rules", "/matches"]:
        page = client.get(path).text
        assert f'href="/static/{ASSETS.hashed("app.css")}"' in page and 'href="/rules"' in page
        # Only the link to share is a whole URL (shown, linked, and given to the copy and share buttons).
        assert page.count("http://testserver") == (4 if path.startswith("/r/") else 0)


@pytest.mark.parametrize("value", ["127.0.0.1", "127.0.0.1, 172.17.0.0/16", "*", "::1", ""])
def test_trusted_proxies_are_addresses_networks_or_a_lone_star(value):
    assert Settings(trusted_proxies=value).trusted_proxies == value.replace(" ", "")


@pytest.mark.parametrize("value", ["localhost", "127.0.0.1,*", "10.0.0.0/33"])
def test_a_trusted_proxy_that_is_no_address_is_refused_at_start(value):
    with pytest.raises(ValueError, match="not an address"):
        Settings(trusted_proxies=value)
