"""The npm copy of the pages' scripts: pinned to the versions the pages load, and matching their SRI."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from app.rendering import HTMX_SRI, HTMX_URL, HTMX_WS_SRI, HTMX_WS_URL
from tests.e2e.helpers import CDN_URL, E2E, NODE_MODULES

PINNED = {CDN_URL.match(url).group(1): CDN_URL.match(url).group(2) for url in (HTMX_URL, HTMX_WS_URL)}  # type: ignore[union-attr]


def test_package_json_pins_exactly_the_versions_the_pages_load() -> None:
    package = json.loads((E2E / "package.json").read_text())
    assert package["dependencies"] == PINNED


def test_the_lockfile_pins_versions_and_hashes_but_no_download_addresses() -> None:
    lock = json.loads((E2E / "package-lock.json").read_text())
    packages = {path.removeprefix("node_modules/"): entry for path, entry in lock["packages"].items() if path}
    tools = json.loads((E2E / "package.json").read_text()).get("devDependencies", {})  # axe-core, for the audits
    assert {name: entry["version"] for name, entry in packages.items()} == {**PINNED, **tools}
    assert all(entry["integrity"].startswith("sha512-") for entry in packages.values())
    for name in ("package.json", "package-lock.json", ".npmrc"):
        text = (E2E / name).read_text()
        assert "resolved" not in text.replace("omit-lockfile-registry-resolved", ""), name
        assert "://" not in text, name


@pytest.mark.e2e
@pytest.mark.parametrize(("url", "sri"), [(HTMX_URL, HTMX_SRI), (HTMX_WS_URL, HTMX_WS_SRI)])
def test_the_installed_files_match_the_pages_sri(e2e_ready: None, url: str, sri: str) -> None:
    package, _, path = CDN_URL.match(url).groups()  # type: ignore[union-attr]
    digest = hashlib.sha384((NODE_MODULES / package / path).read_bytes()).digest()
    assert sri == "sha384-" + base64.b64encode(digest).decode()
