"""The coach's analyses in the database: a finished match is claimed once, stored, and read back."""

import random
from datetime import UTC, datetime, timedelta

from app.game import Rules, to_record
from app.game.simulate import play_random_match

T0 = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
LATER = T0 + timedelta(hours=1)


def finished_match(storage, seed=1):
    """A finished match stored (imported) at ``seed`` minutes after T0: earlier seeds ended first."""
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(seed)))
    match_id, _ = storage.import_record(record, imported_at=T0 + timedelta(minutes=seed))
    return match_id, record


def test_a_finished_match_is_claimed_once_and_its_analysis_read_back(storage):
    match_id, record = finished_match(storage)
    assert storage.match_analysis(match_id) is None
    claimed = storage.claim_analysis(worker="a", now=T0, stale_before=T0 - timedelta(minutes=30))
    assert claimed is not None and claimed[0] == match_id and claimed[1]["deals"] == record["deals"]
    assert storage.claim_analysis(worker="b", now=T0, stale_before=T0 - timedelta(minutes=30)) is None
    assert storage.match_analysis(match_id) == {"status": "running", "grades": None, "accuracy": None}
    assert not storage.finish_analysis(match_id=match_id, worker="b", finished_at=T0, grades=[], accuracy=[])
    grades = [{"deal": 0, "play": 0, "seat": 1, "card": "2C", "label": "forced", "best": ["2C"],
               "loss_points": None, "loss_win_share": None}]
    assert storage.finish_analysis(match_id=match_id, worker="a", finished_at=T0, grades=grades,
                                   accuracy=[None, 90.5, None])
    assert storage.match_analysis(match_id) == {"status": "done", "grades": grades, "accuracy": [None, 90.5, None]}
    assert storage.claim_analysis(worker="b", now=LATER, stale_before=LATER) is None  # done is done


def test_a_claim_left_running_is_taken_over_and_a_stopped_workers_claims_are_given_up(storage):
    first, _ = finished_match(storage, seed=1)
    second, _ = finished_match(storage, seed=2)
    assert storage.claim_analysis(worker="a", now=T0, stale_before=T0)[0] == first
    assert storage.claim_analysis(worker="a", now=T0, stale_before=T0)[0] == second
    # An hour on, a's claims are stale: b takes the older one, and a may no longer finish it.
    assert storage.claim_analysis(worker="b", now=LATER, stale_before=LATER - timedelta(minutes=30))[0] == first
    assert not storage.finish_analysis(match_id=first, worker="a", finished_at=LATER, error="too late")
    assert storage.release_analyses(workers=["a"]) == 1
    assert storage.match_analysis(second) is None
    assert storage.claim_analysis(worker="c", now=LATER, stale_before=T0)[0] == second
    assert storage.finish_analysis(match_id=second, worker="c", finished_at=LATER, error="ValueError: bad")
    assert storage.match_analysis(second) == {"status": "failed", "grades": None, "accuracy": None}


def test_no_analysis_is_read_for_an_id_no_database_holds(storage):
    assert storage.match_analysis("x" * 100) is None
    assert storage.match_analysis("nul\x00") is None
