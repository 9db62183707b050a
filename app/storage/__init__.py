"""Storage of rooms and matches in SQLite or PostgreSQL (SQLAlchemy, Alembic).

The server uses :class:`Storage`; everything it takes and gives is a frozen value.
"""

from app.storage.errors import RecordRejected, RoomCodeTaken, StorageError
from app.storage.store import MAX_PAGE, MAX_PER_PAGE, Storage, verify_for_import
from app.storage.values import (
    ActiveMatch,
    FinishedMatch,
    MatchPage,
    RoomSnapshot,
    SeatRecord,
)

__all__ = [
    "MAX_PAGE",
    "MAX_PER_PAGE",
    "ActiveMatch",
    "FinishedMatch",
    "MatchPage",
    "RecordRejected",
    "RoomCodeTaken",
    "RoomSnapshot",
    "SeatRecord",
    "Storage",
    "StorageError",
    "verify_for_import",
]
