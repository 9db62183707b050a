"""Settings that cannot keep every room with one owner are refused at start, with a clear reason."""

from __future__ import annotations

import io

import pytest
from pydantic import ValidationError

from app.settings import Settings
from app.tools.serve import serve

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def test_redis_with_sqlite_is_refused():
    with pytest.raises(ValidationError, match=r"CUCUMBER_REDIS_URL .* needs DATABASE_URL on PostgreSQL"):
        Settings(redis_url="redis://127.0.0.1:6379/0", database_url="sqlite:///cucumber.db")


def test_cluster_mode_is_redis_with_postgresql_and_nothing_else():
    assert Settings(redis_url="redis://127.0.0.1:6379/0", database_url=POSTGRES).cluster
    assert not Settings(database_url=POSTGRES).cluster
    assert not Settings(database_url="sqlite:///cucumber.db").cluster


def test_leases_must_be_renewed_well_within_their_time():
    with pytest.raises(ValidationError, match="at most a third of CUCUMBER_LEASE_SECONDS"):
        Settings(lease_seconds=3, lease_renew_seconds=1.5)
    assert Settings(lease_seconds=3, lease_renew_seconds=1).lease_renew_seconds == 1


def test_the_redis_prefix_and_process_name_are_plain_names():
    with pytest.raises(ValidationError):
        Settings(redis_prefix="has space")
    with pytest.raises(ValidationError):
        Settings(process_name="a/b")
    assert Settings(redis_prefix="test:run-1", process_name="cards1").redis_prefix == "test:run-1"


def test_a_stop_takes_some_time_but_not_for_ever(monkeypatch):
    assert Settings().stop_seconds == 20
    for refused in (0, -1):
        with pytest.raises(ValidationError):
            Settings(stop_seconds=refused)
    monkeypatch.setenv("CUCUMBER_STOP_SECONDS", "3.5")
    assert Settings().stop_seconds == 3.5


def test_the_commit_window_is_from_0_to_1_second(monkeypatch):
    for refused in ("-0.001", "1.5", "nan"):
        monkeypatch.setenv("CUCUMBER_COMMIT_WINDOW_SECONDS", refused)
        with pytest.raises(ValidationError, match="commit_window_seconds"):
            Settings()
    monkeypatch.setenv("CUCUMBER_COMMIT_WINDOW_SECONDS", "0")
    assert Settings().commit_window_seconds == 0


def test_cucumber_serve_refuses_redis_with_sqlite_before_it_starts(monkeypatch):
    monkeypatch.setenv("CUCUMBER_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("DATABASE_URL", "sqlite:///never-created.db")
    err = io.StringIO()
    assert serve(host=None, port=None, err=err) == 2
    assert "the settings cannot be used: CUCUMBER_REDIS_URL (cluster mode) needs DATABASE_URL on PostgreSQL" in (
        err.getvalue())
