"""Column types: time stamps stored in UTC and read back aware; text and numbers checked alike for every database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import Integer, String
from sqlalchemy.dialects import postgresql, sqlite

from app.storage.models import NAMING_CONVENTION, Base, StoredInt, StoredText, UTCDateTime, text_fault

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


def test_text_is_refused_alike_for_every_database():
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        assert StoredText(5).process_bind_param("Ana", dialect) == "Ana"
        assert StoredText(5).process_bind_param(None, dialect) is None
        with pytest.raises(ValueError, match="NUL"):
            StoredText(5).process_bind_param("A\x00", dialect)
        with pytest.raises(ValueError, match="text of 6 characters cannot be stored where at most 5 fit"):
            StoredText(5).process_bind_param("Ana Bo", dialect)
        with pytest.raises(ValueError, match="not valid Unicode"):
            StoredText(5).process_bind_param("\ud800", dialect)


def test_text_fault_says_why_text_cannot_be_stored():
    assert text_fault("any length at all") is None
    assert text_fault("abc", 3) is None
    assert text_fault("abcd", 3) == "text of 4 characters cannot be stored where at most 3 fit"


def test_whole_numbers_beyond_32_bits_are_refused_alike_for_every_database():
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        assert StoredInt().process_bind_param(2**31 - 1, dialect) == 2**31 - 1
        assert StoredInt().process_bind_param(-(2**31), dialect) == -(2**31)
        for value in (2**31, -(2**31) - 1, 2**64):
            with pytest.raises(ValueError, match="only whole numbers"):
                StoredInt().process_bind_param(value, dialect)


def test_every_text_and_whole_number_column_is_checked():
    for table in Base.metadata.sorted_tables:
        for column in table.columns:
            if isinstance(column.type, String | Integer):
                raise AssertionError(f"{table.name}.{column.name} is a bare {column.type!r}")
