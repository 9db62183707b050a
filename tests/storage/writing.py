"""Storage's writes of a match, run by tests that are not on an event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def done(write: Coroutine[Any, Any, None]) -> None:
    """Run one write (``storage.record_play(…)`` and the like) until it is committed; raises what it raises."""
    asyncio.run(write)


def together(*writes: Coroutine[Any, Any, None]) -> list[BaseException | None]:
    """Run ``writes`` at once, submitted back to back as the rooms waiting together submit theirs, each to its
    end: ``None`` for a write committed, else the error it raised, in the order given."""

    async def all_of() -> list[BaseException | None]:
        return await asyncio.gather(*writes, return_exceptions=True)

    return asyncio.run(all_of())


def outcome(result: BaseException | None) -> str:
    """``"ok"``, or the message of the error a write of :func:`together` raised."""
    return "ok" if result is None else str(result)
