"""What the cluster tests share: asyncio under anyio, and a machine that can run a whole cluster.

``cluster_services`` needs PostgreSQL and Redis (the root conftest's
``postgres_server`` and ``redis_server``: skipped without them, or failed under
``CUCUMBER_REQUIRE_POSTGRES=1`` / ``CUCUMBER_REQUIRE_REDIS=1``) and nginx, whose
absence is a failure under ``CUCUMBER_REQUIRE_REDIS=1`` too (as in CI, where
``scripts/test`` installs it). A build without cluster mode skips them whatever
is required.
"""

from __future__ import annotations

import os

import pytest

from bench.cluster import cluster_missing, nginx_binary


@pytest.fixture
def anyio_backend() -> str:
    """The cluster tests run on asyncio."""
    return "asyncio"


@pytest.fixture(scope="session")
def cluster_services(postgres_server: str, redis_server: str) -> tuple[str, str]:
    """``(PostgreSQL URL, Redis URL)`` once nginx and the server's cluster mode are there too."""
    if nginx_binary() is None:
        reason = "nginx is not installed (apt-get install nginx; scripts/test does)"
        if os.environ.get("CUCUMBER_REQUIRE_REDIS") == "1":
            pytest.fail(f"{reason} (CUCUMBER_REQUIRE_REDIS=1)", pytrace=False)
        pytest.skip(reason)
    reason = cluster_missing()
    if reason is not None:  # a build from before cluster mode: nothing on this machine is missing
        pytest.skip(reason)
    return postgres_server, redis_server
