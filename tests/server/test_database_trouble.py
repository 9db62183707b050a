"""The database goes away during a match: the play is refused, nothing breaks, and play resumes."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url
from sqlalchemy.pool import NullPool

from app.game.record import replay
from tests.server.test_restart import Table, open_table

pytestmark = pytest.mark.server


@contextmanager
def sqlite_outage(url: str) -> Iterator[None]:
    """Another process holds the write lock of the SQLite file: every write times out."""
    blocker = sqlite3.connect(make_url(url).database, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def postgres_outage_for(server_url: str, database: str) -> Callable[[], contextmanager]:
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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Callable[[], contextmanager]]]:
    """A database of the test's own and a way to take it down for a while."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'trouble.db'}"
        yield url, lambda: sqlite_outage(url)
        return
    server_url = request.getfixturevalue("postgres_server")
    name = f"cucumber_trouble_{int(time.time() * 1000) % 10**9}"
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


def test_a_play_during_an_outage_is_refused_and_the_match_finishes_after_it(make_server, database):
    url, outage = database
    server = make_server(url)
    code, tokens = open_table(server, ["Ana", "Ben", "Cy"])
    other_code, _ = open_table(server, ["Dag", "Eva"])
    table = Table(server, code, tokens, seed=5)
    table.clients[0].send({"type": "start"})
    state = table.latest()
    for _ in range(4):
        state = table.play_one()
    seat = state["turn"]
    mover = table.clients[seat]
    mine = mover.until(lambda s: mover.version >= table.clients[0].version)
    card = mine["you"]["legal"][0]

    with outage():
        version = mover.version
        mover.send({"type": "play", "card": card})
        error = mover.next_error()
        assert error["code"] == "storage_unavailable"
        mover.send({"type": "sync"})
        assert mover.next_state()["trick"] == mine["trick"]
        assert mover.version == version
        # The server and the other room are fine.
        assert server.get("/healthz").status_code == 200
        assert server.get(f"/api/rooms/{other_code}").json()["state"]["phase"] == "lobby"

    mover.send({"type": "play", "card": card})
    table.log.setdefault(state["deal"], []).append((seat, card))
    state = table.clients[0].until(lambda s: {"seat": seat, "card": card} in s["trick"] + s["previous_trick"]
                                   or s["phase"] == "finished" or s["deal"] > state["deal"])
    state = table.latest()
    while state["phase"] != "finished":
        state = table.play_one()
    record = server.get(f"/api/matches/{state['match_id']}/record")
    assert record.status_code == 200
    match = replay(record.json())
    assert list(match.winners) == state["winners"]
    assert [deal["plays"] for deal in record.json()["deals"]] == [
        [played for _, played in table.log[number]] for number in sorted(table.log)]
