"""How many plays a second storage commits for rooms playing at once: a commit for each, or a group commit.

Prints one JSON line. Each room awaits each of its plays before the next, as a room does, on a SQLite file
(``synchronous = FULL``, so every commit waits for the disk): put the file where the server's would be.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from app.game.cards import DECK
from app.game.rules import Rules
from app.storage import Storage, queries
from app.storage.engine import BEGIN_MODE

COMMIT_EACH = "commit_each"
"""Every play its own transaction in a worker thread (:func:`commit_each`): how the rooms stored plays before."""
GROUP_COMMIT = "group_commit"
"""Every play handed to the group commit (``Storage.record_play``), as the rooms store plays now."""
MODES = (COMMIT_EACH, GROUP_COMMIT)


def commit_each(engine: Engine, **play: Any) -> None:
    """Store one play (``queries.record_play``'s arguments) in a transaction of its own, as storage did before
    its group commit: the figure the group commit is measured against."""
    with engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}).begin() as connection:
        queries.record_play(connection, **play)


def measure(storage: Storage, *, rooms: int, plays: int, mode: str, label: str | None = None) -> float:
    """Plays committed a second when ``rooms`` rooms each store ``plays`` plays, one after the other, at once.

    ``storage`` is on a migrated database; the matches are new ones (ids start with ``label``, by default
    ``mode`` and ``rooms``), each with one deal stored first, which is not timed. ``mode`` is
    :data:`COMMIT_EACH` or :data:`GROUP_COMMIT`. Raises ``ValueError`` for another mode and
    :class:`~app.storage.StorageError` if a play is not stored.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    prefix = label or f"{mode}-{rooms}"
    match_ids = [f"{prefix}-{room}" for room in range(rooms)]
    rules = Rules()
    hands = [[card.code for card in DECK[seat * rules.hand_size:(seat + 1) * rules.hand_size]] for seat in range(5)]

    async def deal(match_id: str) -> None:
        await storage.start_match(match_id=match_id, room_code=None, rules=rules.to_dict(),
                                  players=[f"P{seat}" for seat in range(5)], started_at=datetime.now(UTC))
        await storage.record_deal(match_id=match_id, deal=0, dealer=0, hands=hands)

    async def room(match_id: str) -> None:
        # Storage checks the order of the plays, not the cards: any codes do.
        for play in range(plays):
            card, played_at = DECK[play % len(DECK)].code, datetime.now(UTC)
            if mode == COMMIT_EACH:
                await asyncio.to_thread(commit_each, storage.engine, match_id=match_id, deal=0, play=play,
                                        card=card, played_at=played_at)
            else:
                await storage.record_play(match_id=match_id, deal=0, play=play, card=card, played_at=played_at)

    async def all_rooms() -> float:
        await asyncio.gather(*(deal(match_id) for match_id in match_ids))
        started = time.perf_counter()
        await asyncio.gather(*(room(match_id) for match_id in match_ids))
        return time.perf_counter() - started

    elapsed = asyncio.run(all_rooms())
    return rooms * plays / elapsed


def run(rooms: Sequence[int] = (1, 10, 100), plays: int = 35, folder: str | Path | None = None) -> dict[str, object]:
    """Measure both modes for each number of ``rooms``, each on a new SQLite file in ``folder``.

    ``plays`` is the number of plays per room (35: one deal of 7 cards to 5 players); ``folder`` defaults
    to the system's temporary folder (mind that it may be in memory, as tmpfs: then nothing waits for a
    disk). Returns ``{"database", "folder", "plays_per_room", "runs": [{"rooms", "commit_each_plays_per_s",
    "group_commit_plays_per_s", "speedup"}, …]}``.
    """
    runs = []
    with tempfile.TemporaryDirectory(prefix="cucumber-bench-", dir=folder) as where:
        for index, count in enumerate(rooms):
            rates = {}
            for mode in MODES:
                with Storage(f"sqlite:///{Path(where) / f'{index}-{mode}.db'}") as storage:
                    storage.upgrade()
                    rates[mode] = measure(storage, rooms=count, plays=plays, mode=mode)
            runs.append({"rooms": count, **{f"{mode}_plays_per_s": round(rates[mode], 1) for mode in MODES},
                         "speedup": round(rates[GROUP_COMMIT] / rates[COMMIT_EACH], 1)})
    return {"database": "sqlite", "folder": str(Path(where).parent), "plays_per_room": plays, "runs": runs}


def main(rooms: Sequence[int] = (1, 10, 100), plays: int = 35, folder: str | None = None) -> None:
    """Print the figures of :func:`run` as one JSON line."""
    print(json.dumps(run(rooms=rooms, plays=plays, folder=folder)))


if __name__ == "__main__":
    main()
