"""A room's versions: counted up from its epoch, never read from a clock (docs/protocol.md, "WebSocket").

Storage raises a room's epoch by one each time a process takes the room (a start, a restart, a
cluster's takeover), in the transaction that gives it the room. Each epoch has its own range of
versions, above every earlier epoch's, so a room's versions grow however the clocks of the
processes holding it step.
"""

from __future__ import annotations

VERSION_BASE = 2**52
"""The lowest version of a room: above every version of the time when versions were read from the clock (the
time in microseconds, about 1.8 × 10^15 in 2026; it reaches 2^52 in 2112)."""
EPOCH_VERSIONS = 2**32
"""How many versions each epoch of a room has to itself."""
MAX_EPOCH = 2**20 - 1
"""The last epoch whose versions all stay below 2^53, the largest integer a JavaScript number holds exactly."""


def first_version(epoch: int) -> int:
    """The first version of a room held under ``epoch`` (its load counter in storage, raised by one at every
    load and takeover): ``2^52 + epoch × 2^32``. Each later version adds one, so the versions of an epoch stay
    below the next epoch's first while fewer than 2^32 changes are made (docs/protocol.md, "WebSocket").

    Raises ``ValueError`` for an epoch outside 0 … :data:`MAX_EPOCH`.
    """
    if not 0 <= epoch <= MAX_EPOCH:
        raise ValueError(f"epoch {epoch} is outside 0…{MAX_EPOCH}: its versions would not stay below 2^53")
    return VERSION_BASE + epoch * EPOCH_VERSIONS
