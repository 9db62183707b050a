"""``cucumber serve`` reads a proxy's forwarded headers once, as the settings say, and no other way."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.server.conftest import Server

pytestmark = pytest.mark.server

FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}


@pytest.mark.parametrize(("trusted", "scheme"), [("127.0.0.1", "https"), ("", "http")])
def test_a_local_proxy_is_believed_only_when_trusted(tmp_path: Path, trusted: str, scheme: str) -> None:
    server = Server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "server.log", trusted_proxies=trusted)
    server.env["FORWARDED_ALLOW_IPS"] = "*"  # uvicorn's own setting must change nothing
    server.start()
    try:
        answer = httpx.post(f"{server.base}/api/rooms", json={"name": "Ana"}, headers=FORWARDED, timeout=10)
        assert answer.status_code == 201
        assert answer.json()["url"].startswith(f"{scheme}://127.0.0.1:{server.port}/r/")
        assert ("secure" in answer.headers["set-cookie"].lower()) == (scheme == "https")
    finally:
        server.stop()
