"""What the room tests share: asyncio under anyio, and a room store on a fresh SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.rooms.persistence import RoomStore
from app.storage import Storage


@pytest.fixture
def anyio_backend() -> str:
    """The room tests run on asyncio."""
    return "asyncio"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RoomStore]:
    """A room store on a migrated SQLite database of its own."""
    storage = Storage(f"sqlite:///{tmp_path / 'rooms.db'}")
    storage.upgrade()
    yield RoomStore(storage)
    storage.close()
