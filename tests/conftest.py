"""Databases for the tests: a SQLite file, and a PostgreSQL schema of their own.

Every test that takes ``backend`` (or a fixture built on it) runs on both.
PostgreSQL is ``DATABASE_URL`` when that names one, else
``postgresql+psycopg://postgres@127.0.0.1:5432/test``. Its tests are marked
``postgres`` and skipped when the server is unreachable, unless
``CUCUMBER_REQUIRE_POSTGRES=1`` (as in CI) makes that a failure. Each
database is a schema created for the test run and dropped after it, except
``troubled_database``'s, a database of its own that a test takes down.
"""

from __future__ import annotations

import functools
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from app.storage import Storage

# The tests start the coach's worker processes only where they ask for them (tests/coach/test_worker.py).
os.environ.setdefault("CUCUMBER_ANALYSIS_WORKERS", "0")

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def postgres_url() -> str:
    """The PostgreSQL server the tests use."""
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith("postgresql") else DEFAULT_POSTGRES_URL


@functools.cache
def unreachable_reason(url: str) -> str | None:
    """Why the server at ``url`` cannot be used, or ``None``; asked once per run."""
    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": 3})
    try:
        with engine.connect():
            return None
    except SQLAlchemyError as error:
        detail = str(getattr(error, "orig", error)).strip().splitlines()[0]
        return f"PostgreSQL is not reachable at {make_url(url).render_as_string()}: {detail}"
    finally:
        engine.dispose()


def reachable_or_skip(url: str, reason: str | None, required_by: str) -> str:
    """``url`` when ``reason`` (why its server cannot be used) is ``None``; else skip the test, or fail it
    when the environment variable ``required_by`` is ``1`` (CI requires every suite)."""
    if reason is not None:
        if os.environ.get(required_by) == "1":
            pytest.fail(f"{reason} ({required_by}=1)")
        pytest.skip(reason)
    return url


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The URL of a reachable PostgreSQL server; skips (or fails, if required) otherwise."""
    url = postgres_url()
    return reachable_or_skip(url, unreachable_reason(url), "CUCUMBER_REQUIRE_POSTGRES")


DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def redis_test_url() -> str:
    """The Redis server the cluster tests use: ``CUCUMBER_TEST_REDIS_URL``, else the local one. (Not
    ``CUCUMBER_REDIS_URL``, which would turn cluster mode on for every app the tests build.)"""
    return os.environ.get("CUCUMBER_TEST_REDIS_URL") or DEFAULT_REDIS_URL


@functools.cache
def redis_unreachable_reason(url: str) -> str | None:
    """Why the Redis at ``url`` cannot be used, or ``None``; asked once per run."""
    client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
        return None
    except (redis.RedisError, OSError) as error:
        return f"Redis is not reachable at {url}: {error}"
    finally:
        client.close()


@pytest.fixture(scope="session")
def redis_server() -> str:
    """The URL of a reachable Redis; skips (or fails, with ``CUCUMBER_REQUIRE_REDIS=1``) otherwise."""
    url = redis_test_url()
    return reachable_or_skip(url, redis_unreachable_reason(url), "CUCUMBER_REQUIRE_REDIS")


@pytest.fixture
def redis_prefix(redis_server: str) -> Iterator[str]:
    """A Redis key prefix of the test's own; its keys are deleted after the test."""
    prefix = f"cucumber_test_{secrets.token_hex(6)}"
    yield prefix
    client = redis.Redis.from_url(redis_server)
    try:
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)
    finally:
        client.close()


@contextmanager
def fresh_database(backend: str, folder: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a new, empty database: a SQLite file in ``folder`` or a new PostgreSQL schema."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'cucumber.db'}"
        return
    server = request.getfixturevalue("postgres_server")
    schema = f"cucumber_test_{secrets.token_hex(6)}"
    admin = create_engine(server, poolclass=NullPool)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        url = make_url(server).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """``"sqlite"`` or ``"postgres"``: the database kind a test runs on."""
    return str(request.param)


@pytest.fixture
def empty_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of an empty database of its own, for one test."""
    with fresh_database(backend, tmp_path, request) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_url(backend: str, tmp_path_factory: pytest.TempPathFactory,
                 request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a database migrated to the newest revision, shared by the tests of a run."""
    with fresh_database(backend, tmp_path_factory.mktemp(backend), request) as url:
        storage = Storage(url)
        try:
            storage.upgrade()
        finally:
            storage.close()
        yield url


@contextmanager
def sqlite_outage(url: str) -> Iterator[None]:
    """Another process holds the write lock of the SQLite file: every write times out."""
    blocker = sqlite3.connect(make_url(url).database or "", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def postgres_outage_for(server_url: str, database: str) -> Callable[[], AbstractContextManager[None]]:
    """A way to take PostgreSQL database ``database`` of the server at ``server_url`` down for a while."""
    @contextmanager
    def outage() -> Iterator[None]:
        """The database refuses connections and its open ones are cut, as in a server restart."""
        admin = create_engine(server_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS false')
            connection.exec_driver_sql(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'")
        try:
            yield
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')
            admin.dispose()
    return outage


@pytest.fixture(params=BACKENDS)
def troubled_database(request: pytest.FixtureRequest,
                      tmp_path: Path) -> Iterator[tuple[str, Callable[[], AbstractContextManager[None]]]]:
    """An empty database of the test's own (a SQLite file, or a PostgreSQL database created and dropped
    here) and a way to take it down for a while: ``with outage(): …``."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'trouble.db'}"
        yield url, lambda: sqlite_outage(url)
        return
    server_url = request.getfixturevalue("postgres_server")
    name = f"cucumber_trouble_{secrets.token_hex(6)}"
    admin = create_engine(server_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False), \
            postgres_outage_for(server_url, name)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[TestClient]:
    """A started app on a SQLite file of its own, rate limits off, for tests of what the whole site answers."""
    from app.config.settings import Settings
    from app.main import create_app

    with TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'site.db'}", rate_limits=False,
                                        deal_pause_seconds=0.0, bot_delay_seconds=0.0,
                                        hard_bot_budget_seconds=0.02))) as client:
        client.peers = []  # type: ignore[attr-defined]  # the sockets of tests.api.conftest.Peer, closed below
        yield client
        for peer in client.peers:  # type: ignore[attr-defined]
            peer.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests last: Playwright keeps an event loop running in the main
    thread while its browser is open, which asyncio tests after it could not share. Every test
    under tests/e2e counts as one, whether or not its module says so."""
    browser_tests = Path(__file__).resolve().parent / "e2e"
    for item in items:
        if browser_tests in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
