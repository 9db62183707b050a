"""The coach at work in the background: worker processes that analyse every finished match once.

Each worker is a process of its own at the lowest CPU priority, so the live
tables keep their speed. It claims a finished match in the database (any
process of a cluster may, and a claim lets only one of them run it),
grades every play (:func:`~app.coach.analysis.analyse_record`) and stores
the grades and each seat's accuracy with the match, where they survive
restarts (docs/coach.md, "In the background").
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import time
from datetime import UTC, datetime, timedelta
from multiprocessing.synchronize import Event

from app.coach.analysis import WORLDS, accuracy, analyse_record
from app.game.errors import GameError
from app.storage import Storage, StorageError

log = logging.getLogger(__name__)

POLL_SECONDS = 5.0
"""How long an idle worker waits before it looks for a finished match again."""

STALE_AFTER = timedelta(minutes=30)
"""A claim still running this long after it was made is taken to be a dead worker's, and taken over."""


def analyse_next(storage: Storage, worker: str, *, match_id: str | None = None, worlds: int = WORLDS) -> str | None:
    """Claim one finished match for ``worker`` (``match_id``, if given), analyse it with ``worlds`` sampled worlds
    a play and store the result; its id, ``None`` when none waits.

    A record the coach cannot grade is stored as ``failed`` with the
    reason. Raises :class:`~app.storage.StorageError` if the database fails
    (the claim then lapses after :data:`STALE_AFTER`).
    """
    moment = datetime.now(UTC)
    claimed = storage.claim_analysis(worker=worker, now=moment, stale_before=moment - STALE_AFTER, match_id=match_id)
    if claimed is None:
        return None
    match_id, record = claimed
    try:
        grades = analyse_record(record, worlds=worlds)
    except (GameError, ValueError, KeyError, TypeError) as error:
        log.warning("the coach could not analyse match %s: %s", match_id, error)
        storage.finish_analysis(match_id=match_id, worker=worker, finished_at=datetime.now(UTC),
                                error=f"{type(error).__name__}: {error}")
        return match_id
    seats = range(len(record["players"]))
    storage.finish_analysis(match_id=match_id, worker=worker, finished_at=datetime.now(UTC),
                            grades=[grade.to_dict() for grade in grades],
                            accuracy=[accuracy(grades, seat) for seat in seats])
    return match_id


def lowest_priority() -> None:
    """Give this process the lowest CPU priority there is: nice 19 and, on Linux, the ``SCHED_IDLE`` policy.

    At nice 19 alone a process still gets a share of a core that a busy server wants (the scheduler weighs it
    five times a ``SCHED_IDLE`` process); under ``SCHED_IDLE`` it runs almost only when the core would
    otherwise be idle, so the live tables keep the core, yet it is never starved for good.
    Where the policy is missing (another system) the niceness stays.
    """
    with contextlib.suppress(OSError):
        os.nice(19 - os.nice(0))
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))


def run_worker(database_url: str, worker: str, stop: Event, poll_seconds: float = POLL_SECONDS,
               worlds: int = WORLDS, lowest: bool = True) -> None:
    """A worker process's life: at the lowest priority (unless not ``lowest``), analyse finished matches with
    ``worlds`` worlds a play until ``stop`` is set, or until the server process that started it has ended
    without setting it (killed, or crashed): then it ends within ``poll_seconds``, or once the match it is
    analysing is done.

    ``worker`` names it in the claims. A failing database is logged and tried
    again after ``poll_seconds``; so is an idle spell.
    """
    if lowest:
        lowest_priority()
    storage = Storage(database_url)
    try:
        while not stop.is_set() and server_alive():
            try:
                done = analyse_next(storage, worker, worlds=worlds)
            except StorageError as error:
                log.warning("analysis worker %s: %s", worker, error)
                done = None
            if done is None:
                stop.wait(poll_seconds)
    finally:
        storage.close()


def server_alive() -> bool:
    """Whether the process that started this one still runs (``True`` in a process started otherwise)."""
    server = multiprocessing.parent_process()
    return server is None or server.is_alive()


class AnalysisWorkers:
    """The worker processes of one server process (``CUCUMBER_ANALYSIS_WORKERS`` of them).

    :meth:`start` spawns them, :meth:`stop` asks them to finish and waits. ``worlds`` and ``lowest`` go to
    :func:`run_worker` (the tests use fewer worlds, and a normal priority so as not to wait on a busy machine).
    """

    def __init__(self, database_url: str, count: int, name: str, poll_seconds: float = POLL_SECONDS, *,
                 worlds: int = WORLDS, lowest: bool = True) -> None:
        self.database_url, self.count, self.name, self.poll_seconds = database_url, count, name, poll_seconds
        self.worlds, self.lowest = worlds, lowest
        self._context = multiprocessing.get_context("spawn")
        self._stop = self._context.Event()
        self._processes: list[multiprocessing.process.BaseProcess] = []

    def start(self) -> int:
        """Start the workers; returns how many. None for ``count`` 0, or for an in-memory SQLite database,
        which no other process can open."""
        if self.count < 1 or _in_memory(self.database_url):
            return 0
        for number in range(self.count):
            process = self._context.Process(
                target=run_worker, args=(self.database_url, self.workers()[number], self._stop, self.poll_seconds,
                                         self.worlds, self.lowest),
                name=f"cucumber-coach-{number}", daemon=True)
            process.start()
            self._processes.append(process)
        return len(self._processes)

    def stop(self, storage: Storage | None = None, timeout: float = 2.0) -> None:
        """Ask every worker to stop and wait up to ``timeout`` seconds in all; then end those still running.

        Their claims still running are given up in ``storage`` when given (another process, or the next
        start, takes them), else they lapse after :data:`STALE_AFTER`.
        """
        self._stop.set()
        deadline = time.monotonic() + timeout
        for process in self._processes:
            process.join(max(deadline - time.monotonic(), 0.0))
            if process.is_alive():
                process.terminate()
                process.join(1.0)
        if storage is not None and self._processes:
            try:
                storage.release_analyses(workers=self.workers())
            except StorageError as error:
                log.warning("the coach's claims were not given up: %s", error)
        self._processes.clear()

    def workers(self) -> list[str]:
        """The names the workers claim matches under."""
        return [f"{self.name}/coach{number}" for number in range(self.count)]


def _in_memory(database_url: str) -> bool:
    """Whether ``database_url`` is an in-memory SQLite database (``sqlite://``, ``sqlite:///:memory:``)."""
    return database_url.startswith("sqlite") and (database_url.rstrip("/") in ("sqlite:", "sqlite+pysqlite:")
                                                  or ":memory:" in database_url or "mode=memory" in database_url)
