"""What the cluster tests share: asyncio under anyio."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """The cluster tests run on asyncio."""
    return "asyncio"
