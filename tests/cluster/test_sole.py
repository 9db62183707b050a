"""The lease of a process alone on its database: released at a stop, its renewals ended for good."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.cluster import sole
from app.cluster.sole import DatabaseLease
from app.storage import Storage

pytestmark = pytest.mark.anyio

BOUND = 30.0


class RenewalLosesTheCancellation:
    """``asyncio`` as :mod:`app.cluster.sole` sees it, except that the first renewal of the lease waits until it
    is cancelled and swallows that (as ``asyncio.wait_for`` of Python 3.11 can), then says it renewed."""

    def __init__(self) -> None:
        self.renewing = asyncio.Event()
        self.swallowed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def to_thread(self, call: Any, /, *args: Any, **kwargs: Any) -> Any:
        if getattr(call, "__name__", "") != "renew_server_lease" or self.swallowed:
            return await asyncio.to_thread(call, *args, **kwargs)
        self.renewing.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.swallowed = True
        return True


async def test_a_released_lease_is_renewed_no_more_even_when_its_renewal_loses_the_cancellation(tmp_path,
                                                                                              monkeypatch):
    storage = Storage(f"sqlite:///{tmp_path / 'alone.db'}")
    storage.upgrade()
    try:
        lease = DatabaseLease(storage, "first", seconds=5, renew=0.05)
        await lease.take()
        stand_in = RenewalLosesTheCancellation()
        monkeypatch.setattr(sole, "asyncio", stand_in)
        lost: list[bool] = []
        lease.keep(on_lost=lambda: lost.append(True))
        async with asyncio.timeout(BOUND):
            await stand_in.renewing.wait()
            await lease.release(seconds=BOUND)
        assert stand_in.swallowed
        assert lease._task is not None and lease._task.done()  # no renewal goes on after the release
        assert storage.server_lease() is None  # released
        assert lost == []
    finally:
        storage.close()
