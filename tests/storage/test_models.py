"""Time stamps are stored in UTC and come back aware."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from app.storage.models import NAMING_CONVENTION, Base, UTCDateTime

PLUS_TWO = timezone(timedelta(hours=2))


def test_sqlite_stores_utc_wall_clock_time():
    value = UTCDateTime().process_bind_param(datetime(2026, 5, 1, 14, 0, tzinfo=PLUS_TWO), sqlite.dialect())
    assert value == datetime(2026, 5, 1, 12, 0)
    assert UTCDateTime().process_result_value(value, sqlite.dialect()) == datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_postgres_stores_aware_time_and_gives_utc():
    value = UTCDateTime().process_bind_param(datetime(2026, 5, 1, 14, 0, tzinfo=PLUS_TWO), postgresql.dialect())
    assert value == datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    back = UTCDateTime().process_result_value(datetime(2026, 5, 1, 14, 0, tzinfo=PLUS_TWO), postgresql.dialect())
    assert back is not None and back.tzinfo is UTC and back.hour == 12


def test_a_naive_time_is_refused():
    with pytest.raises(ValueError, match="timezone-aware"):
        UTCDateTime().process_bind_param(datetime(2026, 5, 1, 14, 0), sqlite.dialect())


def test_the_metadata_names_constraints_by_convention():
    assert Base.metadata.naming_convention == NAMING_CONVENTION
    assert Base.metadata.tables["plays"].primary_key.name == "pk_plays"
