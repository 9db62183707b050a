"""The npm copy of the pages' scripts: pinned to the versions the pages load, and matching their SRI."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from app.pages.rendering import HTMX_SRI, HTMX_URL, HTMX_WS_SRI, HTMX_WS_URL
from tests.e2e.helpers import AXE_VERSION, CDN_URL, E2E, NODE_MODULES
from tests.e2e.lighthouse import LIGHTHOUSE_VERSION

PINNED = {CDN_URL.match(url).group(1): CDN_URL.match(url).group(2) for url in (HTMX_URL, HTMX_WS_URL)}  # type: ignore[union-attr]
TEST_ONLY = {"axe-core": AXE_VERSION, "lighthouse": LIGHTHOUSE_VERSION}
"""Packages the tests use themselves (the accessibility audit, Lighthouse), which no page loads."""


def without_funding(entry: object) -> object:
    """A lockfile's JSON without its ``funding`` fields (the web pages where a package's authors ask for
    support, which npm copies into the lockfile): what is left names no address."""
    if isinstance(entry, dict):
        return {key: without_funding(value) for key, value in entry.items() if key != "funding"}
    if isinstance(entry, list):
        return [without_funding(value) for value in entry]
    return entry


def test_package_json_pins_exactly_the_versions_the_pages_load() -> None:
    package = json.loads((E2E / "package.json").read_text())
    assert package["dependencies"] == {**PINNED, **TEST_ONLY}


def test_the_lockfile_pins_versions_and_hashes_but_no_download_addresses() -> None:
    lock = json.loads((E2E / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == {**PINNED, **TEST_ONLY}
    packages = {path: entry for path, entry in lock["packages"].items() if path}
    for name, version in {**PINNED, **TEST_ONLY}.items():
        assert packages[f"node_modules/{name}"]["version"] == version
    # Lighthouse brings its own dependencies, each pinned with its hash too.
    assert all(entry["integrity"].startswith("sha512-") for entry in packages.values())
    for name in ("package.json", "package-lock.json", ".npmrc"):
        text = (E2E / name).read_text()
        assert "resolved" not in text.replace("omit-lockfile-registry-resolved", ""), name
        addresses = json.dumps(without_funding(json.loads(text))) if name.endswith(".json") else text
        assert "://" not in addresses, name


@pytest.mark.e2e
@pytest.mark.parametrize(("url", "sri"), [(HTMX_URL, HTMX_SRI), (HTMX_WS_URL, HTMX_WS_SRI)])
def test_the_installed_files_match_the_pages_sri(e2e_ready: None, url: str, sri: str) -> None:
    package, _, path = CDN_URL.match(url).groups()  # type: ignore[union-attr]
    digest = hashlib.sha384((NODE_MODULES / package / path).read_bytes()).digest()
    assert sri == "sha384-" + base64.b64encode(digest).decode()
