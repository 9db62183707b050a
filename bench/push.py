"""The time from an accepted play to the push service's 201: a timer that pairs plays with the pushes they
cause at a fake push service (``bench.fakepush``), and a benchmark of the outbound side alone.

The slow-table load benchmark notes each accepted play with
:meth:`PushTimer.played` (the room's code, when the play's answer came) and
reads :meth:`PushTimer.report` at the end. ``python -m bench.push`` (and
``cucumber bench push``) times the notifier by itself: ``tables`` turns pushed
at once, each to one browser, from the call to the push service's 201.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.fakepush import Delivery, FakePushService

SUBJECT = "mailto:bench@cucumber.cards"


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile ``share`` (0–1) of ``values`` (``None`` when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


def milliseconds(seconds: float | None) -> float | None:
    """``seconds`` in milliseconds, to 0.1 ms."""
    return None if seconds is None else round(seconds * 1000, 1)


@dataclass
class PushTimer:
    """Pairs the plays accepted at each table with the pushes the fake ``service`` then accepted for it.

    A play at room ``CODE`` noted at time ``t`` (``time.monotonic()``) is paired with the first push of
    topic ``CODE`` that the service answered 201 at or after ``t`` and that no earlier play took: the push
    of the turn that play made. A play with no such push counts as missing (the next player was connected,
    or it ended the match).
    """

    service: FakePushService
    plays: dict[str, list[float]] = field(default_factory=dict)

    def played(self, room_code: str, at: float | None = None) -> None:
        """Note a play accepted at ``room_code`` at ``at`` (default: now, ``time.monotonic()``)."""
        self.plays.setdefault(room_code, []).append(time.monotonic() if at is None else at)

    def latencies(self) -> tuple[list[float], int]:
        """The seconds from each play to its push's 201, and how many plays had none."""
        pushes: dict[str, list[Delivery]] = {}
        for delivery in self.service.accepted():
            if delivery.topic is not None:
                pushes.setdefault(delivery.topic, []).append(delivery)
        found: list[float] = []
        missing = 0
        for code, times in self.plays.items():
            waiting = sorted(pushes.get(code, []), key=lambda delivery: delivery.received_at)
            for at in sorted(times):
                while waiting and waiting[0].received_at < at:
                    waiting.pop(0)
                if waiting:
                    found.append(waiting.pop(0).received_at - at)
                else:
                    missing += 1
        return found, missing

    def report(self) -> dict[str, Any]:
        """``{"pushes", "missing", "push_p50_ms", "push_p95_ms", "push_max_ms"}``: plays paired with their
        push, plays without one, and the play-to-201 times."""
        found, missing = self.latencies()
        return {"pushes": len(found), "missing": missing, "push_p50_ms": milliseconds(percentile(found, 0.50)),
                "push_p95_ms": milliseconds(percentile(found, 0.95)),
                "push_max_ms": milliseconds(max(found) if found else None)}


async def measure(tables: int = 100, rounds: int = 5, folder: str | None = None) -> dict[str, Any]:
    """Push one turn at each of ``tables`` tables at once, ``rounds`` times, through a notifier on a SQLite
    file in ``folder`` (default: a temporary one) to a fake push service on loopback; the times from each
    call to the service's 201 (the timer's report), and ``tables`` and ``rounds``."""
    from app.config.settings import Settings
    from app.notify import Notifier, TurnNotice
    from app.storage import Storage

    with tempfile.TemporaryDirectory(dir=folder) as place, FakePushService() as service:
        database = f"sqlite:///{Path(place) / 'push.db'}"
        settings = Settings(database_url=database, vapid_subject=SUBJECT, push_endpoints=service.allowlist_entry)
        storage = Storage(database)
        storage.upgrade()
        notifier = await Notifier.start(settings, storage)
        codes = [f"T{index:04d}" for index in range(tables)]
        for code in codes:
            await notifier.subscribe(room_code=code, token_hash="a" * 64, subscription=service.browser().subscription,
                                     language="en")
        timer = PushTimer(service)
        deadline = datetime.now(UTC) + timedelta(hours=4)
        for _ in range(rounds):
            for code in codes:
                timer.played(code)
            await asyncio.gather(*(notifier.push_turn(token_hash="a" * 64, still_due=lambda: True,
                                                      notice=TurnNotice(code, "Ana", deadline, False))
                                   for code in codes))
        await notifier.close()
        storage.close()
        return {"tables": tables, "rounds": rounds, **timer.report(), "faults": len(service.faults)}


def main(tables: int = 100, rounds: int = 5, folder: str | None = None) -> None:
    """Print :func:`measure`'s figures as one JSON line."""
    print(json.dumps({"bench": "push", **asyncio.run(measure(tables, rounds, folder))}))


if __name__ == "__main__":
    main()
