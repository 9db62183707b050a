"""Web Push in the database: the server's VAPID key pair, and the push subscriptions of seats.

A seat is a player's token hash at a room; it keeps its
:data:`MAX_PER_SEAT` most recently renewed subscriptions (browsers, devices).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.storage.models import PushSubscriptionRow, VapidKeyRow
from app.storage.values import PushSubscriptionRecord

MAX_PER_SEAT = 5
"""Subscriptions one seat keeps at most (a player's phones and computers); subscribing another drops the
one renewed longest ago."""


def vapid_keys(session: Session) -> tuple[str, str] | None:
    """The stored VAPID key pair ``(private_key, public_key)``, ``None`` before one is kept."""
    row = session.get(VapidKeyRow, 1)
    return None if row is None else (row.private_key, row.public_key)


def keep_vapid_keys(session: Session, *, private_key: str, public_key: str, created_at: datetime) -> tuple[str, str]:
    """Store the key pair ``(private_key, public_key)`` unless one is stored already; returns the pair stored
    (this one, or the one another process stored first)."""
    try:
        with session.begin_nested():
            session.add(VapidKeyRow(id=1, private_key=private_key, public_key=public_key, created_at=created_at))
    except IntegrityError:
        pass
    kept = vapid_keys(session)
    if kept is None:  # neither this insert nor another process's: the database lost it
        raise IntegrityError("keep VAPID keys", None, Exception("the VAPID key pair was not stored"))
    return kept


def keep_subscription(session: Session, *, room_code: str, token_hash: str, endpoint: str, p256dh: str, auth: str,
                      language: str, now: datetime) -> None:
    """Keep the subscription at ``endpoint`` for the seat ``token_hash`` at ``room_code``: a new one is
    stored, a known one renewed (its keys, language and seat as given; ``renewed_at`` ``now``). Then the seat
    keeps its :data:`MAX_PER_SEAT` most recently renewed subscriptions."""
    row = session.scalars(select(PushSubscriptionRow).where(PushSubscriptionRow.room_code == room_code,
                                                            PushSubscriptionRow.endpoint == endpoint)).first()
    if row is None:
        try:
            with session.begin_nested():
                session.add(PushSubscriptionRow(room_code=room_code, token_hash=token_hash, endpoint=endpoint,
                                                p256dh=p256dh, auth=auth, language=language, created_at=now,
                                                renewed_at=now))
        except IntegrityError:  # the same page, subscribing twice at once: the other one's row is renewed
            row = session.scalars(select(PushSubscriptionRow).where(
                PushSubscriptionRow.room_code == room_code, PushSubscriptionRow.endpoint == endpoint)).one()
    if row is not None:
        row.token_hash, row.p256dh, row.auth, row.language, row.renewed_at = token_hash, p256dh, auth, language, now
    session.flush()
    kept = select(PushSubscriptionRow.id).where(
        PushSubscriptionRow.room_code == room_code, PushSubscriptionRow.token_hash == token_hash,
    ).order_by(PushSubscriptionRow.renewed_at.desc(), PushSubscriptionRow.id.desc()).limit(MAX_PER_SEAT)
    session.execute(delete(PushSubscriptionRow).where(
        PushSubscriptionRow.room_code == room_code, PushSubscriptionRow.token_hash == token_hash,
        PushSubscriptionRow.id.not_in(list(session.scalars(kept)))))


def subscriptions(session: Session, *, room_code: str, token_hash: str) -> list[PushSubscriptionRecord]:
    """The subscriptions of the seat ``token_hash`` at ``room_code``, the most recently renewed first."""
    rows = session.scalars(select(PushSubscriptionRow).where(
        PushSubscriptionRow.room_code == room_code, PushSubscriptionRow.token_hash == token_hash,
    ).order_by(PushSubscriptionRow.renewed_at.desc(), PushSubscriptionRow.id.desc()))
    return [PushSubscriptionRecord(endpoint=row.endpoint, p256dh=row.p256dh, auth=row.auth, language=row.language,
                                   renewed_at=row.renewed_at) for row in rows]


def delete_subscription(session: Session, *, room_code: str, endpoint: str, token_hash: str | None = None) -> int:
    """Delete the subscription at ``endpoint`` at ``room_code`` (only if it is the seat ``token_hash``'s, when
    given); how many were deleted (0 or 1)."""
    query = delete(PushSubscriptionRow).where(PushSubscriptionRow.room_code == room_code,
                                              PushSubscriptionRow.endpoint == endpoint)
    if token_hash is not None:
        query = query.where(PushSubscriptionRow.token_hash == token_hash)
    return int(getattr(session.execute(query), "rowcount", 0) or 0)


def delete_seat_subscriptions(session: Session, *, room_code: str, token_hash: str) -> int:
    """Delete every subscription of the seat ``token_hash`` at ``room_code``; how many."""
    done = session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.room_code == room_code,
                                                             PushSubscriptionRow.token_hash == token_hash))
    return int(getattr(done, "rowcount", 0) or 0)


def delete_room_subscriptions(session: Session, *, room_code: str) -> int:
    """Delete every subscription at ``room_code``; how many."""
    done = session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.room_code == room_code))
    return int(getattr(done, "rowcount", 0) or 0)


def forget_stale_subscriptions(session: Session, *, renewed_before: datetime) -> int:
    """Delete every subscription last renewed before ``renewed_before`` (its page has not been opened since);
    how many."""
    done = session.execute(delete(PushSubscriptionRow).where(PushSubscriptionRow.renewed_at < renewed_before))
    return int(getattr(done, "rowcount", 0) or 0)
