"""The site as an installable app: the manifest in each language, its icons, the service worker's script,
the offline page, and what each page tells search engines (its description, and noindex where wanted)."""

from __future__ import annotations

import re
import struct
from html import unescape
from pathlib import Path

import pytest

from app.pages.webapp import static_version
from app.wording.language import LANGUAGES
from tests.api.conftest import open_room

NAMES = {"da": "Agurk", "sv": "Gurka", "en": "Cucumber", "de": "Cucumber", "es": "Cucumber", "it": "Cucumber"}
"""The app's name in each language, as the issue asks for it (and as players there call the game)."""


def png_facts(data: bytes) -> tuple[int, int, int]:
    """``(width, height, colour type)`` from a PNG's header; fails on anything that is not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height, _, colour_type = struct.unpack(">IIBB", data[16:26])
    return width, height, colour_type


def meta(page: str, name: str) -> str | None:
    """The content of the page's ``<meta name=name>``, or ``None``."""
    found = re.search(rf'<meta name="{name}" content="([^"]*)">', page)
    return unescape(found.group(1)) if found else None


def head(page: str) -> str:
    return page.split("</head>", 1)[0]


def test_the_names_here_cover_every_language_spoken():
    assert set(NAMES) == set(LANGUAGES)


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_each_language_has_a_manifest_with_the_apps_name_there_and_one_id(client, code):
    answer = client.get(f"/manifest/{code}.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    assert answer.headers["cache-control"] == "no-cache"
    manifest = answer.json()
    assert manifest["name"] == manifest["short_name"] == NAMES[code]
    assert manifest["lang"] == code
    assert manifest["id"] == "/" and manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    assert manifest["description"]


def test_every_language_names_the_same_app():
    from app.pages.webapp import manifest

    made = [manifest(code, lambda path: "/static/" + path, "/") for code in LANGUAGES]
    assert {each["id"] for each in made} == {"/"}
    assert len({each["description"] for each in made}) == len(LANGUAGES)  # each said in its own language


def test_a_language_not_spoken_has_no_manifest_nor_offline_page(client):
    assert client.get("/manifest/xx.webmanifest").status_code == 404
    assert client.get("/manifest/en.json").status_code == 404
    assert client.get("/offline/xx").status_code == 404


def test_the_icons_are_pngs_of_192_and_512_pixels_and_one_is_maskable(client):
    icons = client.get("/manifest/en.webmanifest").json()["icons"]
    sizes = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable"), ("512x512", "maskable")} <= sizes
    for icon in icons:
        assert icon["type"] == "image/png"
        answer = client.get(icon["src"])
        assert answer.status_code == 200, icon["src"]
        assert answer.headers["content-type"] == "image/png"
        width, height, colour_type = png_facts(answer.content)
        assert f"{width}x{height}" == icon["sizes"]
        if icon["purpose"] == "maskable":
            # A maskable icon fills its whole square: no transparency for the launcher's mask to show through.
            assert colour_type in (0, 2), f"{icon['src']} has an alpha channel"


@pytest.mark.parametrize("code", ["en", "da", "de"])
def test_every_page_links_the_manifest_of_its_language_and_registers_the_worker(make_client, code):
    client = make_client()
    client.cookies.set("cucumber_lang", code)
    for path in ["/", "/rules", "/matches"]:
        page = head(client.get(path).text)
        assert f'<link rel="manifest" href="/manifest/{code}.webmanifest">' in page
        assert '<meta name="theme-color" content="#2e7d32">' in page
        # A static file's URL may carry its content's hash before the suffix.
        assert re.search(r'<link rel="apple-touch-icon" href="/static/icons/maskable-192\.(?:[^"./]+\.)?png">', page)
        assert re.search(r'<script src="/static/webapp\.(?:[^"./]+\.)?js" data-worker="/sw\.js" defer></script>', page)


def test_the_service_worker_is_served_at_the_root_without_being_kept_and_names_the_static_version(client):
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/javascript; charset=utf-8"
    assert answer.headers["cache-control"] == "no-cache"
    script = answer.text
    version = static_version(Path(__file__).resolve().parents[2] / "app" / "static")
    assert f'const VERSION = "{version}";' in script
    assert 'const STATIC_PREFIX = "/static/";' in script
    for code in LANGUAGES:
        assert f'"{code}": "/offline/{code}"' in script
    again = client.get("/sw.js", headers={"If-None-Match": answer.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["cache-control"] == "no-cache"


def test_the_service_worker_shows_a_push_as_a_notification_of_its_room_and_opens_the_room_on_a_click(client):
    script = client.get("/sw.js").text
    assert 'self.addEventListener("push",' in script and 'self.addEventListener("notificationclick",' in script
    assert 'const ROOM_PATH = "/r/CODE";' in script
    assert re.search(r'const ICON = "/static/icons/icon-192\.(?:[^"./]+\.)?png";', script)
    # One notification per room: a newer push for a table replaces the one before.
    assert "tag: room ||" in script


def test_the_static_version_changes_with_any_static_file(tmp_path):
    (tmp_path / "app.css").write_text("body {}")
    (tmp_path / "icons").mkdir()
    (tmp_path / "icons" / "a.png").write_bytes(b"1")
    first = static_version(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{16}", first)
    assert static_version(tmp_path) == first
    (tmp_path / "icons" / "a.png").write_bytes(b"2")
    assert static_version(tmp_path) != first
    (tmp_path / "icons" / "a.png").write_bytes(b"1")
    assert static_version(tmp_path) == first
    (tmp_path / "icons" / "a.png").rename(tmp_path / "icons" / "b.png")
    assert static_version(tmp_path) != first


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_the_offline_page_speaks_its_language_whatever_the_visitors_cookie(make_client, code):
    client = make_client()
    client.cookies.set("cucumber_lang", "sv" if code != "sv" else "da")
    answer = client.get(f"/offline/{code}")
    assert answer.status_code == 200
    assert answer.headers["content-language"] == code
    assert answer.headers["cache-control"] == "no-cache"
    assert f'<html lang="{code}"' in answer.text
    assert meta(answer.text, "robots") == "noindex"
    assert "data-offline" in answer.text
    english = client.get("/offline/en").text
    if code != "en":
        assert re.search(r"<h1>(.*?)</h1>", answer.text).group(1) != re.search(r"<h1>(.*?)</h1>", english).group(1)


def test_pages_say_their_language_in_a_header(make_client):
    client = make_client()
    assert client.get("/rules", headers={"Accept-Language": "de"}).headers["content-language"] == "de"
    client.cookies.set("cucumber_lang", "it")
    assert client.get("/").headers["content-language"] == "it"
    assert "content-language" not in client.get("/static/app.css").headers


DESCRIBED = ["/", "/rules", "/matches"]


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_each_page_has_a_description_of_its_own_in_each_language_and_is_indexed(make_client, code):
    client = make_client()
    client.cookies.set("cucumber_lang", code)
    descriptions = []
    for path in DESCRIBED:
        page = client.get(path).text
        description = meta(page, "description")
        assert description and len(description) >= 50, (path, description)
        assert meta(page, "robots") is None, path
        descriptions.append(description)
    assert len(set(descriptions)) == len(DESCRIBED)
    if code != "en":
        english = make_client()
        english.cookies.set("cucumber_lang", "en")
        assert not set(descriptions) & {meta(english.get(path).text, "description") for path in DESCRIBED}


def test_room_and_seat_link_pages_are_not_indexed_and_have_a_description(client):
    code, _ = open_room(client, ["Ana"])
    for path in [f"/r/{code}", f"/r/{code}/take", "/r/NOSUCH"]:
        page = client.get(path).text
        assert meta(page, "robots") == "noindex", path
        assert meta(page, "description"), path
    assert meta(client.get("/matches/not-a-match").text, "robots") == "noindex"
