"""Storage of rooms and matches in SQLite or PostgreSQL (SQLAlchemy, Alembic).

The server uses :class:`Storage`; everything it takes and gives is a frozen value.
"""

from app.storage.errors import OwnershipLost, RecordRejected, RoomCodeTaken, StorageError
from app.storage.store import MAX_PAGE, MAX_PER_PAGE, Storage, verify_for_import
from app.storage.values import (
    ActiveMatch,
    Fence,
    FinishedMatch,
    MatchPage,
    PushSubscriptionRecord,
    RoomSnapshot,
    SeatRecord,
    ServerLease,
)

__all__ = [
    "MAX_PAGE",
    "MAX_PER_PAGE",
    "ActiveMatch",
    "Fence",
    "FinishedMatch",
    "MatchPage",
    "OwnershipLost",
    "PushSubscriptionRecord",
    "RecordRejected",
    "RoomCodeTaken",
    "RoomSnapshot",
    "SeatRecord",
    "ServerLease",
    "Storage",
    "StorageError",
    "verify_for_import",
]
