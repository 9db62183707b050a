"""Who may write a room: its owner's epoch (fencing), the log of owners, and the lease of a single server.

Every write of a room names the epoch its owner took the room under and checks it first, in the
write's own transaction (:func:`check_fence`), so a process that lost a room can never write it again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from app.storage.batch import Write
from app.storage.errors import OwnershipLost
from app.storage.models import IN_PROGRESS, MatchRow, RoomOwnerRow, RoomRow, ServerLeaseRow
from app.storage.values import Fence, ServerLease

LEASE_ROW = 1
"""The ``id`` of the single row of ``server_lease``."""

# FOR SHARE on PostgreSQL (nothing on SQLite, whose writers take turns anyway): a write of the room holds
# the row until it commits, so a process taking the room waits for it, and then sees it.
_FENCE = select(RoomRow.epoch).where(RoomRow.code == bindparam("code")).with_for_update(read=True)
ROOM_AT_EPOCH = (select(RoomRow.code)
                 .where(RoomRow.code == bindparam("fence_room"), RoomRow.epoch == bindparam("fence_epoch"))
                 .with_for_update(read=True).exists())
"""The fence as a condition of a write's own statement (``… WHERE … AND ROOM_AT_EPOCH``, with the parameters
``fence_room`` and ``fence_epoch``): the room is still at that epoch, and its row is held (``FOR SHARE``) as
:func:`check_fence` holds it. It spares the write the statement of its own that :func:`check_fence` costs (a
play: one statement instead of two); when the write's statement changes nothing, :func:`check_fence` then
says whether the fence is why."""


def check_fence(connection: Connection, fence: Fence) -> None:
    """Refuse the write this transaction is about to make unless ``fence.epoch`` is still the room's.

    Raises :class:`OwnershipLost` when the room's epoch is another (a process took it since) or the
    room is not stored.

    A process alone on its database needs the check as much as one of a cluster: its database lease
    (``app.cluster.sole``) is looked at only when it is renewed, so a process paused past its lease
    (``SIGSTOP``, a frozen virtual machine) while another one started and took every open room would,
    once resumed, write its rooms until its next renewal found the lease gone, forking their matches.
    Those writes carry the old epoch and are refused here. Skipping the check in single mode is
    therefore not safe; it costs one look-up of one row by its key per write, which a play makes
    inside its own statement (:data:`ROOM_AT_EPOCH`).
    """
    epoch = connection.execute(_FENCE, {"code": fence.room}).scalar_one_or_none()
    if epoch != fence.epoch:
        raise OwnershipLost(f"room {fence.room!r} is at epoch {epoch}, not {fence.epoch}: another process "
                            "has taken it", room=fence.room)


def fenced(fence: Fence | None, write: Write) -> Write:
    """``write`` (a unit of the group commit) preceded by :func:`check_fence` for ``fence`` (none: as is)."""
    if fence is None:
        return write

    def checked(connection: Connection) -> None:
        check_fence(connection, fence)
        write(connection)

    return checked


def own_new_room(session: Session, fence: Fence, *, taken_at: datetime) -> None:
    """Give a room just inserted (``save_room(new=True)``) the epoch of ``fence`` and log its owner."""
    connection = session.connection()
    connection.execute(update(RoomRow).where(RoomRow.code == fence.room).values(epoch=fence.epoch))
    connection.execute(insert(RoomOwnerRow).values(room_code=fence.room, epoch=fence.epoch, owner=fence.owner,
                                              taken_at=taken_at))


def take_room(session: Session, *, code: str, owner: str, taken_at: datetime) -> int | None:
    """Raise open room ``code``'s epoch by one and log ``owner`` as its owner; returns the new epoch.

    ``None`` when no open room has that code. Waits for the writes of the room in progress elsewhere
    (the row lock), which are then refused if they come later.
    """
    connection = session.connection()
    epoch = connection.execute(
        update(RoomRow).where(RoomRow.code == code, RoomRow.closed_at.is_(None))
        .values(epoch=RoomRow.epoch + 1).returning(RoomRow.epoch)).scalar_one_or_none()
    if epoch is not None:
        connection.execute(insert(RoomOwnerRow).values(room_code=code, epoch=epoch, owner=owner, taken_at=taken_at))
    return epoch


def take_open_rooms(session: Session, *, owner: str, taken_at: datetime) -> dict[str, int]:
    """:func:`take_room` for every open room at once; returns each one's new epoch by code."""
    connection = session.connection()
    taken = {code: epoch for code, epoch in connection.execute(  # noqa: C416 (rows are not pairs to dict())
        update(RoomRow).where(RoomRow.closed_at.is_(None)).values(epoch=RoomRow.epoch + 1)
        .returning(RoomRow.code, RoomRow.epoch))}
    if taken:
        connection.execute(insert(RoomOwnerRow), [
            {"room_code": code, "epoch": epoch, "owner": owner, "taken_at": taken_at} for code, epoch in taken.items()])
    return taken


def rooms_in_play(session: Session) -> list[str]:
    """The codes of the open rooms with a match in progress, oldest room first."""
    return list(session.scalars(
        select(RoomRow.code).join(MatchRow, MatchRow.room_code == RoomRow.code)
        .where(RoomRow.closed_at.is_(None), MatchRow.status == IN_PROGRESS)
        .group_by(RoomRow.code, RoomRow.created_at).order_by(RoomRow.created_at, RoomRow.code)))


def owners(session: Session, *, code: str) -> list[tuple[int, str]]:
    """Every ``(epoch, owner)`` room ``code`` had, oldest first."""
    return [(epoch, owner) for epoch, owner in session.execute(
        select(RoomOwnerRow.epoch, RoomOwnerRow.owner).where(RoomOwnerRow.room_code == code)
        .order_by(RoomOwnerRow.epoch))]


def server_lease(session: Session) -> ServerLease | None:
    """The lease of the single server, as stored (it may have expired), or ``None``."""
    row = session.get(ServerLeaseRow, LEASE_ROW)
    return None if row is None else ServerLease(holder=row.holder, host=row.host, pid=row.pid,
                                                expires_at=row.expires_at)


def take_server_lease(session: Session, *, holder: str, host: str, pid: int, now: datetime, until: datetime,
                      replacing: str | None = None) -> bool:
    """Make ``holder`` the single server until ``until``, if nobody else holds a lease live at ``now``
    (or the one who does is ``replacing``, found dead by the caller); returns whether it did."""
    row = session.get(ServerLeaseRow, LEASE_ROW, with_for_update=True)
    if row is None:
        session.add(ServerLeaseRow(id=LEASE_ROW, holder=holder, host=host, pid=pid, expires_at=until))
        return True
    if row.holder not in (holder, replacing) and row.expires_at > now:
        return False
    row.holder, row.host, row.pid, row.expires_at = holder, host, pid, until
    return True


def renew_server_lease(session: Session, *, holder: str, until: datetime) -> bool:
    """Extend ``holder``'s lease to ``until``; ``False`` when the lease is not ``holder``'s (any more)."""
    renewed = cast("CursorResult[Any]", session.execute(
        update(ServerLeaseRow).where(ServerLeaseRow.id == LEASE_ROW, ServerLeaseRow.holder == holder)
        .values(expires_at=until)))
    return renewed.rowcount > 0


def release_server_lease(session: Session, *, holder: str) -> None:
    """End ``holder``'s lease (nothing happens if it is another's)."""
    session.execute(delete(ServerLeaseRow).where(ServerLeaseRow.id == LEASE_ROW, ServerLeaseRow.holder == holder))
