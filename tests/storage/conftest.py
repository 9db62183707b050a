"""The storage fixture: storage on a migrated database, emptied for each test.

The databases themselves come from ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.storage import Storage
from app.storage.models import Base


@pytest.fixture
def storage(migrated_url: str) -> Iterator[Storage]:
    """Storage on the migrated database, emptied before the test and closed after it."""
    storage = Storage(migrated_url)
    with storage.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())
    try:
        yield storage
    finally:
        storage.close()
