"""``cucumber serve`` sets the garbage collector for a long-running server before it serves."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

import pytest
import uvicorn

from app.tools import serve


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Holder:
    """Something the collector tracks (a plain object with a dict)."""


@contextlib.asynccontextmanager
async def collecting(seconds: float) -> AsyncIterator[None]:
    """The server's collector (:func:`serve.collect_young`) running every ``seconds`` inside the block."""
    collector = asyncio.get_running_loop().create_task(serve.collect_young(seconds))
    try:
        yield
    finally:
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector


def renew(objects: list[Holder]) -> None:
    """Replace each of ``objects`` with a new one, the old one freed at once: as a room replaces one version's
    views with the next's. Allocations never outnumber deallocations, so Python's threshold is never reached."""
    for index in range(len(objects)):
        objects[index] = Holder()


def test_settling_the_collector_sets_its_thresholds_and_moves_what_is_loaded_out_of_its_sight():
    thresholds = gc.get_threshold()
    try:
        serve.settle_collector()
        assert gc.get_threshold() == serve.GC_THRESHOLDS
        assert gc.get_freeze_count() > 1000  # the modules and everything else loaded so far
        assert serve.GC_THRESHOLDS[2] > thresholds[2]  # full collections wait longer than Python's default
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    assert gc.get_freeze_count() == 0


@pytest.mark.anyio
async def test_young_objects_that_replace_old_ones_are_collected_on_time_all_the_same():
    objects = [Holder() for _ in range(30_000)]
    gc.collect()  # all of them old now
    renew(objects)
    assert gc.get_count()[0] < 700  # Python would not collect yet...
    assert len(gc.get_objects(0)) > 20_000  # ...though the young generation holds all the new ones
    async with collecting(0.02):
        await asyncio.sleep(0.2)
        assert len(gc.get_objects(0)) < 5_000
        assert len(gc.get_objects(1)) < 5_000  # the middle generation is collected with it, into the oldest


@pytest.mark.anyio
async def test_what_outlives_the_collectors_first_turn_is_in_the_oldest_generation_at_once():
    thresholds = gc.get_threshold()
    gc.collect()
    gc.set_threshold(10**9, *thresholds[1:])  # no collection of Python's own: only the collector's
    objects = [Holder() for _ in range(10_000)]  # young, and kept
    before = sum(stats["collections"] for stats in gc.get_stats())
    try:
        async with collecting(0.01):
            for _ in range(500):
                await asyncio.sleep(0.01)
                if sum(stats["collections"] for stats in gc.get_stats()) > before:
                    break
            else:
                pytest.fail("the collector did not collect within 5 s")
        oldest = {id(held) for held in gc.get_objects(2)}
        assert all(id(held) in oldest for held in objects)  # not left in the middle generation for later
    finally:
        gc.set_threshold(*thresholds)


@pytest.mark.anyio
async def test_young_collections_wait_while_the_collector_is_disabled():
    objects = [Holder() for _ in range(30_000)]
    gc.collect()
    async with collecting(0.02):
        gc.disable()
        try:
            renew(objects)
            await asyncio.sleep(0.1)
            assert len(gc.get_objects(0)) > 20_000
        finally:
            gc.enable()


def test_the_server_collects_young_objects_while_it_serves(monkeypatch):
    seen = []

    async def collect_young():
        seen.append("collecting")
        await asyncio.sleep(3600)

    async def serving(self, sockets=None):
        await asyncio.sleep(0)  # the collector's task starts
        seen.append("served")

    monkeypatch.setattr(serve, "collect_young", collect_young)
    monkeypatch.setattr(serve, "settle_collector", lambda: None)
    monkeypatch.setattr(uvicorn.Server, "serve", serving)
    assert serve.serve("127.0.0.1", 0) == 3  # it never started (serving was stood in for)
    assert seen == ["collecting", "served"]
