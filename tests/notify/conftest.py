"""A notifier with push on, its storage on a SQLite file, and a fake push service on loopback it may push to."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from app.config.settings import Settings
from app.notify import Notifier
from app.storage import Storage
from tests.notify.fakepush import FakePushService

SUBJECT = "mailto:ops@cucumber.cards"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def service() -> Iterator[FakePushService]:
    """A fake push service on loopback."""
    with FakePushService() as running:
        yield running


@pytest.fixture
def push_storage(tmp_path: Path) -> Iterator[Storage]:
    """Storage on a new, migrated SQLite file."""
    storage = Storage(f"sqlite:///{tmp_path / 'push.db'}")
    storage.upgrade()
    yield storage
    storage.close()


@pytest.fixture
async def notifier(service: FakePushService, push_storage: Storage, tmp_path: Path) -> AsyncIterator[Notifier]:
    """A notifier with push on, allowed to push to ``service`` only."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'push.db'}", vapid_subject=SUBJECT,
                        push_endpoints=service.allowlist_entry)
    made = await Notifier.start(settings, push_storage)
    service.vapid_key = made.public_key
    yield made
    await made.close()
