"""Which rooms this process may hold: the seam between the registry and whatever grants rooms.

Alone on its database (the default), a process owns every room it opens; in a cluster
(``app.cluster``) it must first take a room's lease, which only one process holds at a time.
"""

from __future__ import annotations

from typing import Protocol


class Ownership(Protocol):
    """Grants this process rooms one at a time, and takes them back."""

    async def acquire(self, code: str) -> bool:
        """Take room ``code`` for this process; ``False`` when another process holds it."""

    async def release(self, code: str) -> None:
        """Give room ``code`` up (nothing happens if this process does not hold it); never raises."""


class SoleOwnership:
    """A process alone on its database: every room is its own (its database lease says so)."""

    async def acquire(self, code: str) -> bool:
        """Always ``True``."""
        return True

    async def release(self, code: str) -> None:
        """Nothing to give up."""
