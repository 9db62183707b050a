"""The coach's analyses of finished matches in the database: claimed once, then stored with the match.

Any process may take a finished match's analysis: the claim is a row of
``analyses`` (:class:`~app.storage.models.AnalysisRow`) whose primary key
lets one claim win; a claim left running past a cut-off (its worker died)
may be taken over.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.storage.models import (
    ANALYSIS_DONE,
    ANALYSIS_FAILED,
    ANALYSIS_RUNNING,
    FINISHED,
    AnalysisRow,
    MatchRow,
    text_fault,
)

ERROR_LENGTH = 500
"""Characters of a failure's message that are kept."""


def claim_analysis(session: Session, *, worker: str, now: datetime, stale_before: datetime,
                   match_id: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """Claim one finished match for ``worker`` to analyse: ``(match id, record)``, or ``None`` when none waits.
    With ``match_id``, only that match may be claimed.

    The finished match ended first with no analysis is claimed by inserting
    its row (``running``, ``claimed_at`` ``now``); should another process
    insert it first, nothing is claimed this time. Failing that, a claim
    still running from before ``stale_before`` is taken over.
    """
    unclaimed = (select(MatchRow.id, MatchRow.record)
                 .where(MatchRow.status == FINISHED, MatchRow.record.is_not(None),
                        ~exists().where(AnalysisRow.match_id == MatchRow.id))
                 .order_by(MatchRow.ended_at, MatchRow.id).limit(1))
    stale_claims = (select(AnalysisRow.match_id, AnalysisRow.claimed_at)
                    .where(AnalysisRow.status == ANALYSIS_RUNNING, AnalysisRow.claimed_at < stale_before)
                    .order_by(AnalysisRow.claimed_at).limit(1))
    if match_id is not None:
        unclaimed = unclaimed.where(MatchRow.id == match_id)
        stale_claims = stale_claims.where(AnalysisRow.match_id == match_id)
    found = session.execute(unclaimed).first()
    if found is not None:
        match_id, record = found
        try:
            with session.begin_nested():
                session.add(AnalysisRow(match_id=match_id, status=ANALYSIS_RUNNING, worker=worker, claimed_at=now))
        except IntegrityError:
            return None
        return match_id, record
    stale = session.execute(stale_claims).first()
    if stale is None:
        return None
    taken = session.execute(update(AnalysisRow).where(
        AnalysisRow.match_id == stale.match_id, AnalysisRow.status == ANALYSIS_RUNNING,
        AnalysisRow.claimed_at == stale.claimed_at).values(worker=worker, claimed_at=now))
    if not getattr(taken, "rowcount", 0):
        return None
    record = session.scalar(select(MatchRow.record).where(MatchRow.id == stale.match_id))
    return (stale.match_id, record) if record is not None else None


def finish_analysis(session: Session, *, match_id: str, worker: str, finished_at: datetime,
                    grades: Sequence[dict[str, Any]] | None = None, accuracy: Sequence[float | None] | None = None,
                    error: str | None = None) -> bool:
    """Store ``worker``'s result for ``match_id``: ``grades`` and ``accuracy`` (done), or ``error`` (failed).

    Only a claim ``worker`` still holds is finished; returns whether it was.
    """
    values: dict[str, Any] = {"finished_at": finished_at}
    if error is None:
        values.update(status=ANALYSIS_DONE, grades=list(grades or []), accuracy=list(accuracy or []))
    else:
        values.update(status=ANALYSIS_FAILED, error=error[:ERROR_LENGTH])
    done = session.execute(update(AnalysisRow).where(
        AnalysisRow.match_id == match_id, AnalysisRow.worker == worker,
        AnalysisRow.status == ANALYSIS_RUNNING).values(**values))
    return bool(getattr(done, "rowcount", 0))


def release_analyses(session: Session, *, workers: Sequence[str]) -> int:
    """Give up the claims still running of ``workers`` (they stopped): their matches wait to be claimed
    again. Returns how many."""
    released = session.execute(delete(AnalysisRow).where(AnalysisRow.worker.in_(list(workers)),
                                                         AnalysisRow.status == ANALYSIS_RUNNING))
    return int(getattr(released, "rowcount", 0) or 0)


def match_analysis(session: Session, *, match_id: str) -> dict[str, Any] | None:
    """The analysis of finished match ``match_id``: ``{"status", "grades", "accuracy"}``, ``None`` when it has
    none (or is not a finished match). Grades and accuracy are ``None`` unless the status is ``done``."""
    if text_fault(match_id, 32) is not None:  # no database holds such an id: it names no match
        return None
    row = session.execute(
        select(AnalysisRow.status, AnalysisRow.grades, AnalysisRow.accuracy)
        .join(MatchRow, MatchRow.id == AnalysisRow.match_id)
        .where(AnalysisRow.match_id == match_id, MatchRow.status == FINISHED)).first()
    if row is None:
        return None
    done = row.status == ANALYSIS_DONE
    return {"status": row.status, "grades": row.grades if done else None, "accuracy": row.accuracy if done else None}
