"""The coach's analyses in the database: a finished match is claimed once, stored, and read back."""

import random
from datetime import UTC, datetime, timedelta

from app.game import Rules, to_record
from app.game.simulate import play_random_match
from tests.storage.writing import done

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


def test_a_match_in_progress_is_never_claimed_nor_its_analysis_read(storage):
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(4)))
    done(storage.start_match(match_id="m-live", room_code=None, rules=record["rules"], players=record["players"],
                             started_at=T0))
    deal = record["deals"][0]
    done(storage.record_deal(match_id="m-live", deal=0, dealer=deal["dealer"], hands=deal["hands"]))
    for number, card in enumerate(deal["plays"][:5]):
        done(storage.record_play(match_id="m-live", deal=0, play=number, card=card, played_at=T0))
    assert storage.claim_analysis(worker="a", now=LATER, stale_before=LATER) is None
    assert storage.match_analysis("m-live") is None


def test_an_imported_record_keeps_who_decided_and_its_stand_in_plays_are_not_graded(storage):
    from app.coach.worker import analyse_next

    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(8)))
    plain_id, _ = storage.import_record(record, imported_at=T0)
    deciders = ["player"] * len(record["deals"][0]["plays"])
    deciders[1] = "turn_clock"
    marked = {**record, "deals": [{**record["deals"][0], "decided_by": deciders}]}
    # The same record with who decided is the same match: stored once.
    assert storage.import_record(marked, imported_at=T0) == (plain_id, False)
    other = to_record(play_random_match(3, Rules(match_length=1), random.Random(9)))
    other["deals"][0]["decided_by"] = ["away"] + ["player"] * (len(other["deals"][0]["plays"]) - 1)
    other_id, new = storage.import_record(other, imported_at=T0 + timedelta(minutes=1))
    assert new and storage.match_record(other_id)["deals"][0]["decided_by"] == other["deals"][0]["decided_by"]
    bad = to_record(play_random_match(3, Rules(match_length=1), random.Random(10)))
    bad["deals"][0]["decided_by"] = ["someone"]  # malformed: ignored
    bad_id, _ = storage.import_record(bad, imported_at=T0 + timedelta(minutes=2))
    assert "decided_by" not in storage.match_record(bad_id)["deals"][0]
    assert [analyse_next(storage, "w") for _ in range(3)] == [plain_id, other_id, bad_id]
    graded = {(grade["deal"], grade["play"]) for grade in storage.match_analysis(other_id)["grades"]}
    assert (0, 0) not in graded and (0, 1) in graded
