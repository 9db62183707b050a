"""The coach in the background: a worker process analyses each finished match once and stores the result."""

import multiprocessing
import os
import random
import time
from datetime import UTC, datetime

import pytest

from app.coach.analysis import Grade, accuracy, analyse_record
from app.coach.worker import AnalysisWorkers, analyse_next, lowest_priority
from app.game import Rules, to_record
from app.game.simulate import play_random_match
from app.storage import Storage
from tests.processes import ended, worker_left_by_a_killed_server


@pytest.fixture
def storage(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'coach.db'}")
    storage.upgrade()
    yield storage
    storage.close()


def imported(storage, seed):
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(seed)))
    match_id, _ = storage.import_record(record, imported_at=datetime.now(UTC))
    return match_id, record


def test_analyse_next_stores_the_grades_of_analyse_record(storage):
    match_id, record = imported(storage, 1)
    assert analyse_next(storage, "w") == match_id
    assert analyse_next(storage, "w") is None
    stored = storage.match_analysis(match_id)
    grades = analyse_record(storage.match_record(match_id))
    assert stored["status"] == "done"
    assert [Grade.from_dict(grade) for grade in stored["grades"]] == [
        Grade.from_dict(grade.to_dict()) for grade in grades]
    assert stored["accuracy"] == [accuracy(grades, seat) for seat in range(3)]


def test_a_worker_process_analyses_finished_matches_and_stops(storage, tmp_path):
    first, _ = imported(storage, 2)
    workers = AnalysisWorkers(f"sqlite:///{tmp_path / 'coach.db'}", 1, "test", poll_seconds=0.1, worlds=20,
                              lowest=False)
    assert workers.start() == 1
    try:
        second, _ = imported(storage, 3)  # finished while the worker runs
        deadline = time.monotonic() + 300  # generous: the machine may be busy
        while time.monotonic() < deadline:
            states = [(storage.match_analysis(match_id) or {}).get("status") for match_id in (first, second)]
            if states == ["done", "done"]:
                break
            time.sleep(0.1)
        assert states == ["done", "done"]
    finally:
        workers.stop(storage)
    assert not workers._processes


SERVER_WITH_A_WORKER = """
import sys, time
from app.coach.worker import AnalysisWorkers
workers = AnalysisWorkers(sys.argv[1], 1, "test", poll_seconds=0.1, worlds=20, lowest=False)
workers.start()
print(workers._processes[0].pid, flush=True)
time.sleep(600)
"""


def test_a_worker_ends_when_its_server_is_killed(storage, tmp_path):
    worker = worker_left_by_a_killed_server(SERVER_WITH_A_WORKER, f"sqlite:///{tmp_path / 'coach.db'}")
    assert ended(worker), f"the worker {worker} outlived its server"


def _niceness_after_lowest_priority(answer):
    lowest_priority()
    answer.put((os.nice(0), os.sched_getscheduler(0)))


def test_a_worker_runs_at_the_lowest_cpu_priority():
    context = multiprocessing.get_context("spawn")
    answer = context.Queue()
    process = context.Process(target=_niceness_after_lowest_priority, args=(answer,))
    process.start()
    assert answer.get(timeout=120) == (19, os.SCHED_IDLE)  # Linux, as the servers run
    process.join(30)


def test_analyse_next_may_be_given_the_match(storage):
    first, _ = imported(storage, 4)
    second, _ = imported(storage, 5)
    assert analyse_next(storage, "w", match_id=second, worlds=10) == second
    assert analyse_next(storage, "w", match_id=second, worlds=10) is None
    assert storage.match_analysis(first) is None


def test_no_worker_for_zero_or_an_in_memory_database():
    assert AnalysisWorkers("sqlite:///x.db", 0, "test").start() == 0
    assert AnalysisWorkers("sqlite://", 1, "test").start() == 0
    assert AnalysisWorkers("sqlite:///:memory:", 1, "test").start() == 0
