"""What the cluster tests need: PostgreSQL, Redis, nginx and a server build with cluster mode.

Each missing piece skips the tests with the reason shown, except that
``CUCUMBER_REQUIRE_POSTGRES=1`` makes a missing PostgreSQL a failure and
``CUCUMBER_REQUIRE_REDIS=1`` (as in CI) a missing Redis or nginx. A build
without cluster mode skips them whatever is required.
Redis is ``CUCUMBER_TEST_REDIS_URL`` when set, else ``redis://127.0.0.1:6379/0``.
"""

from __future__ import annotations

import os

import pytest

from bench.cluster import DEFAULT_REDIS_URL, cluster_missing, nginx_binary, redis_unreachable


def _missing(reason: str | None, required_by: str) -> None:
    if reason is None:
        return
    if os.environ.get(required_by) == "1":
        pytest.fail(f"{reason} ({required_by}=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The URL of a reachable Redis; skips (or fails, if required) otherwise."""
    url = os.environ.get("CUCUMBER_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    _missing(redis_unreachable(url), "CUCUMBER_REQUIRE_REDIS")
    return url


@pytest.fixture(scope="session")
def cluster_services(postgres_server: str, redis_url: str) -> tuple[str, str]:
    """``(PostgreSQL URL, Redis URL)`` once nginx and the server's cluster mode are there too."""
    _missing(None if nginx_binary() else "nginx is not installed (apt-get install nginx; scripts/test does)",
             "CUCUMBER_REQUIRE_REDIS")
    reason = cluster_missing()
    if reason is not None:  # a build from before cluster mode: nothing on this machine is missing
        pytest.skip(reason)
    return postgres_server, redis_url
