"""The group commit on SQLite and PostgreSQL: the plays waiting together share one transaction, each fails alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager
from functools import partial

import pytest
from sqlalchemy import Connection, Engine, create_engine, event, func, insert, select, text
from sqlalchemy.pool import NullPool

import app.storage.engine as storage_engine
from app.game.record import to_record
from app.game.standings import placings
from app.storage import Storage, StorageError, batch, queries
from app.storage.batch import BatchWriter, Row
from app.storage.engine import BEGIN_MODE
from app.storage.load import LoadGate
from app.storage.models import DealRow, PlayRow
from tests.storage.test_store import RULES, T0, played_match
from tests.storage.writing import done, together
from tests.storage.writing import outcome as written

RECORD = to_record(played_match())
DEAL = RECORD["deals"][0]
CARDS = DEAL["plays"]
WAIT_S = 30
Outage = Callable[[], AbstractContextManager[None]]
"""A context in which the database fails (``troubled_database``)."""


@pytest.fixture
def writer(storage: Storage) -> Iterator[BatchWriter]:
    """A batch writer on the test's database, set up as storage sets up its own."""
    writer = BatchWriter(storage.engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}))
    try:
        yield writer
    finally:
        writer.close()


def dealt_matches(storage: Storage, count: int) -> list[str]:
    """``count`` matches in progress (``m0``, ``m1``, …), each with its first deal stored: one per room."""
    match_ids = [f"m{number}" for number in range(count)]
    for match_id in match_ids:
        done(storage.start_match(match_id=match_id, room_code=None, rules=RULES, players=RECORD["players"],
                                 started_at=T0))
        done(storage.record_deal(match_id=match_id, deal=0, dealer=DEAL["dealer"], hands=DEAL["hands"]))
    return match_ids


def submit_play(writer: BatchWriter, match_id: str, play: int, card: str | None = None) -> Future[None]:
    """Play ``play`` of deal 0 of ``match_id`` (its card in the record unless ``card`` is given), for the next
    batch, as storage submits it: the write, and its common case as one row."""
    values = {"match_id": match_id, "deal": 0, "play": play, "card": CARDS[play] if card is None else card,
              "played_at": T0}
    return writer.submit(f"record play {play} of deal 0 of match {match_id!r}",
                         partial(queries.record_play, **values), Row(*queries.next_play(**values)))


def stored_plays(storage: Storage) -> dict[str, list[str]]:
    """The cards stored for deal 0 of each match, in play order."""
    plays: dict[str, list[str]] = {}
    with storage.engine.connect() as connection:
        for match_id, card in connection.execute(select(PlayRow.match_id, PlayRow.card)
                                                 .order_by(PlayRow.match_id, PlayRow.play)):
            plays.setdefault(match_id, []).append(card)
    return plays


@contextmanager
def counting_commits(engine: Engine) -> Iterator[list[None]]:
    """A list that grows by one with every transaction committed on ``engine`` (or an engine made from it)."""
    commits: list[None] = []

    def count(_connection: Connection) -> None:
        commits.append(None)

    event.listen(engine, "commit", count)
    try:
        yield commits
    finally:
        event.remove(engine, "commit", count)


@contextmanager
def held(writer: BatchWriter) -> Iterator[None]:
    """The writer busy with a batch of its own, one write that waits for the block to end.

    Everything submitted in the block is waiting when that batch is committed, so it all goes in the next one.
    """
    started, release = threading.Event(), threading.Event()

    def wait(_connection: Connection) -> None:
        started.set()
        release.wait(WAIT_S)

    gate = writer.submit("wait", wait)
    assert started.wait(WAIT_S)
    try:
        yield
    finally:
        release.set()
        gate.result(WAIT_S)


def outcome(future: Future[None]) -> str:
    """``"ok"``, or the message of the error the future failed with."""
    error = future.exception(WAIT_S)
    return "ok" if error is None else str(error)


def test_the_plays_of_many_rooms_waiting_together_are_committed_in_one_transaction(storage, writer):
    match_ids = dealt_matches(storage, 20)
    with counting_commits(storage.engine) as commits:
        with held(writer):
            futures = [submit_play(writer, match_id, 0) for match_id in match_ids]
        assert [future.result(WAIT_S) for future in futures] == [None] * 20
    assert len(commits) == 2  # the batch that held the writer, then all 20 plays
    assert stored_plays(storage) == dict.fromkeys(match_ids, CARDS[:1])


@contextmanager
def counting_statements(engine: Engine) -> Iterator[list[int]]:
    """A list that grows with every statement sent on ``engine``: how many sets of values it was sent with."""
    sent: list[int] = []

    def count(_connection, _cursor, _statement, parameters, _context, executemany) -> None:
        sent.append(len(parameters) if executemany else 1)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_the_plays_of_a_batch_go_to_the_database_in_one_statement(storage, writer):
    match_ids = dealt_matches(storage, 12)
    with counting_statements(storage.engine) as sent:
        with held(writer):
            futures = [submit_play(writer, match_id, play) for play in range(2) for match_id in match_ids]
            deal = writer.submit("record deal 1 of match 'm0'", partial(
                queries.record_deal, match_id="m0", deal=1, dealer=1, hands=DEAL["hands"]))
            futures += [submit_play(writer, "m1", 2)]
        assert [outcome(future) for future in [*futures, deal]] == ["ok"] * 26
    # The 24 plays in one call, each room's second play seeing its first; the deal, then the last play alone.
    assert [count for count in sent if count > 1] == [24]
    assert len(sent) < 12
    assert stored_plays(storage) == {**dict.fromkeys(match_ids, CARDS[:2]), "m1": CARDS[:3]}


def submit_deal(writer: BatchWriter, match_id: str, deal: int, hands: list[list[str]] | None = None) -> Future[None]:
    """Deal ``deal`` of ``match_id`` (the record's first deal's cards unless ``hands`` is given), for the next
    batch, as storage submits it."""
    values = {"match_id": match_id, "deal": deal, "dealer": DEAL["dealer"],
              "hands": DEAL["hands"] if hands is None else hands}
    return writer.submit(f"record deal {deal} of match {match_id!r}", partial(queries.record_deal, **values),
                         Row(*queries.next_deal(**values)))


def test_the_deals_of_a_batch_go_in_one_statement_and_a_refused_one_fails_alone(storage, writer):
    match_ids = dealt_matches(storage, 6)
    with counting_statements(storage.engine) as sent:
        with held(writer):
            futures = [submit_deal(writer, match_id, 1) for match_id in match_ids[:3]]
            futures += [submit_deal(writer, "m3", 2), submit_deal(writer, "nosuch", 0),
                        submit_deal(writer, "m4", 0), submit_deal(writer, "m5", 0, DEAL["hands"][::-1])]
        assert [outcome(future) for future in futures] == ["ok"] * 3 + [
            "deal 2 of match 'm3' is out of order: 1 deals are stored", "no match 'nosuch'", "ok",
            "deal 0 of match 'm5' is stored already, with other cards"]
    assert sent.count(7) == 1  # all seven tried in one call at first
    with storage.engine.connect() as connection:
        stored = connection.execute(select(DealRow.match_id, func.count()).group_by(DealRow.match_id)).all()
    assert sorted(stored) == [("m0", 2), ("m1", 2), ("m2", 2), ("m3", 1), ("m4", 1), ("m5", 1)]


def test_a_play_is_acknowledged_only_once_committed(storage, writer):
    [match_id] = dealt_matches(storage, 1)
    with held(writer):
        future = submit_play(writer, match_id, 0)
        assert not future.done()
    future.result(WAIT_S)
    assert stored_plays(storage) == {match_id: CARDS[:1]}


def insert_then_conflict(connection: Connection) -> None:
    """A write that stores a play, then breaks a constraint: its savepoint must take the first insert back."""
    queries.record_play(connection, match_id="m0", deal=0, play=0, card=CARDS[0], played_at=T0)
    connection.execute(insert(PlayRow).values(match_id="m0", deal=0, play=0, card=CARDS[0], played_at=T0))


@pytest.mark.parametrize(("bad", "refusal"), [
    (lambda writer: submit_play(writer, "m0", 1), r"play 1 of deal 0 of match 'm0' is out of order: 0 plays"),
    (lambda writer: submit_play(writer, "m0", 0, "10C"), r"could not record play 0 of deal 0 of match 'm0': "
                                                         r"ValueError: text of 3 characters"),
    (lambda writer: writer.submit("insert a play twice", insert_then_conflict), r"could not insert a play twice: "),
    (lambda writer: writer.submit("fail", lambda connection: 1 / 0), r"division by zero"),
], ids=["out of order", "a value no database holds", "a conflict after a write", "a fault in the write"])
def test_a_refused_play_fails_alone_and_the_others_of_its_batch_commit(storage, writer, bad, refusal):
    match_ids = dealt_matches(storage, 5)
    with counting_commits(storage.engine) as commits:
        with held(writer):
            before = [submit_play(writer, match_id, 0) for match_id in match_ids[1:3]]
            refused = bad(writer)
            after = [submit_play(writer, match_id, 0) for match_id in match_ids[3:]]
        assert [outcome(future) for future in before + after] == ["ok"] * 4
        with pytest.raises((StorageError, ZeroDivisionError), match=refusal):
            refused.result(WAIT_S)
    assert len(commits) == 2
    assert stored_plays(storage) == dict.fromkeys(match_ids[1:], CARDS[:1])


def test_the_plays_of_one_room_in_one_batch_are_applied_in_the_order_submitted(storage, writer):
    dealt_matches(storage, 3)
    with held(writer):
        in_order = [submit_play(writer, "m0", play) for play in range(3)]
        reversed_order = [submit_play(writer, "m1", play) for play in (1, 0)]
        retried = [submit_play(writer, "m2", 0), submit_play(writer, "m2", 0), submit_play(writer, "m2", 0, "XX")]
    assert [outcome(future) for future in in_order] == ["ok"] * 3
    assert [outcome(future) for future in reversed_order] == [
        "play 1 of deal 0 of match 'm1' is out of order: 0 plays are stored", "ok"]
    assert [outcome(future) for future in retried] == [
        "ok", "ok", f"play 0 of deal 0 of match 'm2' is stored already, as {CARDS[0]}"]
    assert stored_plays(storage) == {"m0": CARDS[:3], "m1": CARDS[:1], "m2": CARDS[:1]}


def test_deals_and_plays_submitted_to_storage_are_stored_in_order(storage):
    done(storage.start_match(match_id="m0", room_code=None, rules=RULES, players=RECORD["players"], started_at=T0))
    results = together(
        storage.record_deal(match_id="m0", deal=0, dealer=DEAL["dealer"], hands=DEAL["hands"]),
        *(storage.record_play(match_id="m0", deal=0, play=play, card=CARDS[play], played_at=T0) for play in range(4)),
        storage.record_deal(match_id="m0", deal=0, dealer=DEAL["dealer"], hands=DEAL["hands"][::-1]))
    assert [written(result) for result in results] == ["ok"] * 5 + [
        "deal 0 of match 'm0' is stored already, with other cards"]
    assert stored_plays(storage) == {"m0": CARDS[:4]}


@pytest.fixture
def troubled_storage(troubled_database, monkeypatch) -> Iterator[tuple[Storage, Outage]]:
    """Storage on a migrated database that can be made to fail (``troubled_database``), and the outage."""
    # SQLite waits this long for its write lock before it gives up (the default is 5 s).
    monkeypatch.setattr(storage_engine, "SQLITE_BUSY_TIMEOUT_MS", 200)
    url, outage = troubled_database
    with Storage(url) as storage:
        storage.upgrade()
        yield storage, outage


def test_a_batch_the_database_refuses_fails_every_play_in_it_and_stores_none(troubled_storage):
    storage, outage = troubled_storage
    match_ids = dealt_matches(storage, 5)
    with outage():
        errors = together(*(storage.record_play(match_id=match_id, deal=0, play=0, card=CARDS[0], played_at=T0)
                            for match_id in match_ids))
    assert all(isinstance(error, StorageError) for error in errors), errors
    assert [str(error).split(": ")[0] for error in errors] == [
        f"could not record play 0 of deal 0 of match {match_id!r}" for match_id in match_ids]
    assert stored_plays(storage) == {}
    # The database is back: the same plays are stored now.
    results = together(*(storage.record_play(match_id=match_id, deal=0, play=0, card=CARDS[0], played_at=T0)
                         for match_id in match_ids))
    assert [written(result) for result in results] == ["ok"] * 5
    assert stored_plays(storage) == dict.fromkeys(match_ids, CARDS[:1])


def test_a_play_given_up_before_its_batch_is_not_written(storage, writer):
    dealt_matches(storage, 2)
    with held(writer):
        kept, dropped = submit_play(writer, "m0", 0), submit_play(writer, "m1", 0)
        assert dropped.cancel()
    assert kept.result(WAIT_S) is None
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_closing_commits_what_is_waiting_and_refuses_what_comes_after(storage, writer):
    dealt_matches(storage, 1)
    with held(writer):
        waiting = submit_play(writer, "m0", 0)
        closing = threading.Thread(target=writer.close)
        closing.start()
    closing.join(WAIT_S)
    assert waiting.result(0) is None
    with pytest.raises(StorageError, match=r"could not record play 1 .*: storage is closed"):
        submit_play(writer, "m0", 1).result(0)
    storage.close()
    with pytest.raises(StorageError, match="storage is closed"):
        done(storage.record_play(match_id="m0", deal=0, play=1, card=CARDS[1], played_at=T0))
    assert not closing.is_alive()


def test_closing_with_a_time_limit_returns_when_the_database_does_not_answer_and_says_what_is_pending(
        storage, writer, caplog):
    dealt_matches(storage, 1)
    with held(writer):  # a write the database does not answer until the block ends
        waiting = submit_play(writer, "m0", 0)
        assert writer.close(timeout=0.1) is False
        assert "1 write(s) being committed (wait), 1 more waiting; they are left unconfirmed" in caplog.text
        assert not waiting.done()
    # The writer goes on: once the database answers, what was pending is committed after all.
    assert waiting.result(WAIT_S) is None
    assert writer.close(timeout=WAIT_S) is True
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_a_writer_needs_room_for_one_write(storage):
    with pytest.raises(ValueError, match="at least 1"):
        BatchWriter(storage.engine, max_batch=0)


def play_write(match_id: str, play: int, card: str | None = None) -> tuple[str, partial[None]]:
    """What :func:`submit_play` submits, for :meth:`BatchWriter.submit_waited`."""
    return f"record play {play} of deal 0 of match {match_id!r}", partial(
        queries.record_play, match_id=match_id, deal=0, play=play, card=CARDS[play] if card is None else card,
        played_at=T0)


def test_the_writes_a_loop_waits_for_in_one_batch_are_resolved_by_one_call_on_that_loop(storage, writer):
    match_ids = dealt_matches(storage, 5)

    async def main() -> tuple[list[object], list[object]]:
        loop = asyncio.get_running_loop()
        calls: list[object] = []
        handing = loop.call_soon_threadsafe

        def counted(callback, *args, **kwargs):
            calls.append(callback)
            return handing(callback, *args, **kwargs)

        loop.call_soon_threadsafe = counted
        with held(writer):
            waited = [writer.submit_waited(*play_write(match_id, 0)) for match_id in match_ids]
            waited.append(writer.submit_waited(*play_write("m0", 2)))  # out of order: refused alone
            assert not any(future.done() for future in waited)
        results = await asyncio.wait_for(asyncio.gather(*waited, return_exceptions=True), WAIT_S)
        return results, calls

    results, calls = asyncio.run(main())
    assert results[:5] == [None] * 5 and len(calls) == 1
    assert isinstance(results[5], StorageError) and "out of order" in str(results[5])
    assert stored_plays(storage) == dict.fromkeys(match_ids, CARDS[:1])


def test_a_write_waited_for_on_a_loop_and_given_up_before_its_batch_is_not_written(storage, writer):
    dealt_matches(storage, 2)

    async def main() -> None:
        with held(writer):
            kept, dropped = writer.submit_waited(*play_write("m0", 0)), writer.submit_waited(*play_write("m1", 0))
            dropped.cancel()
        assert await asyncio.wait_for(kept, WAIT_S) is None

    asyncio.run(main())
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_committing_on_the_loop_returns_once_stored_and_raises_what_the_write_met(storage):
    dealt_matches(storage, 1)

    async def main() -> None:
        await storage.record_play(match_id="m0", deal=0, play=0, card=CARDS[0], played_at=T0)
        with pytest.raises(StorageError, match="out of order"):
            await storage.record_play(match_id="m0", deal=0, play=2, card=CARDS[2], played_at=T0)
        await storage.record_deal(match_id="m0", deal=1, dealer=DEAL["dealer"], hands=DEAL["hands"])
        storage.close()
        with pytest.raises(StorageError, match="storage is closed"):
            await storage.record_play(match_id="m0", deal=0, play=1, card=CARDS[1], played_at=T0)

    asyncio.run(main())
    assert stored_plays(storage) == {"m0": CARDS[:1]}


@contextmanager
def windowed(storage: Storage, window: float) -> Iterator[BatchWriter]:
    """A batch writer on the test's database with a commit window of ``window`` seconds."""
    writer = BatchWriter(storage.engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}), window=window)
    try:
        yield writer
    finally:
        writer.close()


def test_the_writes_a_loop_waits_for_within_the_commit_window_share_one_transaction_in_order(storage):
    dealt_matches(storage, 2)

    async def main(writer: BatchWriter) -> list[object]:
        first = [writer.submit_waited(*play_write("m0", 0)), writer.submit_waited(*play_write("m1", 0))]
        await asyncio.sleep(0.05)  # the writer is idle meanwhile: nothing is committed before the window ends
        assert not any(future.done() for future in first)
        later = [writer.submit_waited(*play_write("m0", 1)), writer.submit_waited(*play_write("m1", 2))]
        return await asyncio.wait_for(asyncio.gather(*first, *later, return_exceptions=True), WAIT_S)

    with windowed(storage, 0.5) as writer, counting_commits(storage.engine) as commits:
        results = asyncio.run(main(writer))
    assert results[:3] == [None] * 3  # the second play of m0 follows its first, in the same transaction
    assert isinstance(results[3], StorageError) and "out of order" in str(results[3])  # refused alone
    assert len(commits) == 1
    assert stored_plays(storage) == {"m0": CARDS[:2], "m1": CARDS[:1]}


def test_a_write_that_finds_the_writer_busy_is_not_held_in_a_commit_window(storage, monkeypatch):
    monkeypatch.setattr(batch, "MAX_WINDOW_SECONDS", 600.0)
    dealt_matches(storage, 1)

    async def main(writer: BatchWriter) -> None:
        with held(writer):
            waited = writer.submit_waited(*play_write("m0", 0))
        # Held for the window, it would wait 60 s: it goes in the batch after the one that kept the writer busy.
        assert await asyncio.wait_for(waited, WAIT_S / 3) is None

    with windowed(storage, 60.0) as writer:
        asyncio.run(main(writer))
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_a_commit_window_ends_as_soon_as_it_holds_enough_writes_to_share_a_transaction(storage, monkeypatch):
    monkeypatch.setattr(batch, "MAX_WINDOW_SECONDS", 600.0)
    dealt_matches(storage, batch.WINDOW_FULL + 1)

    async def main(writer: BatchWriter) -> None:
        waited = [writer.submit_waited(*play_write(f"m{index}", 0)) for index in range(batch.WINDOW_FULL - 1)]
        await asyncio.sleep(0.05)
        assert not any(future.done() for future in waited)  # held: the 60 s window is open
        waited.append(writer.submit_waited(*play_write(f"m{batch.WINDOW_FULL - 1}", 0)))
        # The window is full: its writes go at once, all in one transaction, not 60 s later.
        assert await asyncio.wait_for(asyncio.gather(*waited), WAIT_S / 3) == [None] * batch.WINDOW_FULL
        # The next write that finds the writer idle opens a window again.
        later = writer.submit_waited(*play_write(f"m{batch.WINDOW_FULL}", 0))
        await asyncio.sleep(0.05)
        assert not later.done()
        later.cancel()

    with windowed(storage, 60.0) as writer, counting_commits(storage.engine) as commits:
        asyncio.run(main(writer))
    assert len(commits) == 1
    assert stored_plays(storage) == {f"m{index}": CARDS[:1] for index in range(batch.WINDOW_FULL)}


def test_closing_commits_the_writes_held_in_a_commit_window(storage, monkeypatch):
    monkeypatch.setattr(batch, "MAX_WINDOW_SECONDS", 600.0)
    dealt_matches(storage, 1)

    async def main(writer: BatchWriter) -> None:
        waited = writer.submit_waited(*play_write("m0", 0))
        assert writer.close(timeout=WAIT_S) is True
        assert await asyncio.wait_for(waited, WAIT_S) is None

    with windowed(storage, 600.0) as writer:
        asyncio.run(main(writer))
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_a_write_is_not_held_in_a_commit_window_while_the_process_has_cpu_to_spare(storage, monkeypatch):
    monkeypatch.setattr(batch, "MAX_WINDOW_SECONDS", 600.0)
    dealt_matches(storage, 1)

    async def main(writer: BatchWriter) -> None:
        # Held for the window, it would wait 60 s: no busy second has been measured, so it is committed at once.
        assert await asyncio.wait_for(writer.submit_waited(*play_write("m0", 0)), WAIT_S / 3) is None

    writer = BatchWriter(storage.engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}), window=60.0,
                         window_load=0.5)
    try:
        asyncio.run(main(writer))
    finally:
        writer.close()
    assert stored_plays(storage) == {"m0": CARDS[:1]}


def test_a_busy_process_holds_its_writes_in_the_commit_window(storage, monkeypatch):
    clock = {"wall": 0.0, "cpu": 0.0}
    monkeypatch.setattr(batch, "LoadGate", lambda opens_at: LoadGate(
        opens_at, wall=lambda: clock["wall"], cpu=lambda: clock["cpu"]))
    dealt_matches(storage, 2)

    async def main(writer: BatchWriter) -> None:
        clock.update(wall=1.0, cpu=0.9)  # the last second took 0.9 of a core
        first = writer.submit_waited(*play_write("m0", 0))
        await asyncio.sleep(0.05)
        assert not first.done()  # held: the window is open
        second = writer.submit_waited(*play_write("m1", 0))
        assert await asyncio.wait_for(asyncio.gather(first, second), WAIT_S) == [None, None]

    writer = BatchWriter(storage.engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"}), window=0.5,
                         window_load=0.7)
    with counting_commits(storage.engine) as commits:
        try:
            asyncio.run(main(writer))
        finally:
            writer.close()
    assert len(commits) == 1
    assert stored_plays(storage) == {"m0": CARDS[:1], "m1": CARDS[:1]}


@pytest.mark.parametrize("window", [-0.001, 1.001, float("nan")])
def test_a_commit_window_is_from_0_to_1_second(storage, window):
    with pytest.raises(ValueError, match="window"):
        BatchWriter(storage.engine, window=window)
    with pytest.raises(ValueError, match="window"):
        Storage(storage.url, commit_window=window)


def checkouts(engine: Engine) -> list[None]:
    """A list that grows by one with every connection taken from ``engine``'s pool (until the test ends)."""
    taken: list[None] = []
    event.listen(engine, "checkout", lambda *_: taken.append(None))
    return taken


def test_a_busy_writer_writes_batch_after_batch_on_one_connection(storage, writer):
    dealt_matches(storage, 1)
    taken = checkouts(storage.engine)
    for play in range(4):  # each waited for before the next: a batch each
        assert submit_play(writer, "m0", play).result(WAIT_S) is None
    assert len(taken) == 1
    assert stored_plays(storage) == {"m0": CARDS[:4]}


def test_an_idle_writer_gives_its_connection_back_and_takes_a_new_one(storage, writer, monkeypatch):
    monkeypatch.setattr(batch, "HOLD_SECONDS", 0.0)
    dealt_matches(storage, 1)
    taken = checkouts(storage.engine)
    for play in range(3):
        assert submit_play(writer, "m0", play).result(WAIT_S) is None
    assert len(taken) == 3
    assert stored_plays(storage) == {"m0": CARDS[:3]}


def test_after_a_batch_the_database_refused_the_writer_takes_a_new_connection(troubled_storage):
    storage, outage = troubled_storage
    dealt_matches(storage, 1)
    taken = checkouts(storage.engine)
    done(storage.record_play(match_id="m0", deal=0, play=0, card=CARDS[0], played_at=T0))
    with outage(), pytest.raises(StorageError):
        done(storage.record_play(match_id="m0", deal=0, play=1, card=CARDS[1], played_at=T0))
    done(storage.record_play(match_id="m0", deal=0, play=1, card=CARDS[1], played_at=T0))
    assert len(taken) == 1  # the writer holds the connection it stored the deal on until the refused batch
    assert stored_plays(storage) == {"m0": CARDS[:2]}


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_a_connection_the_server_dropped_between_batches_is_replaced_and_the_batch_stored(storage, writer):
    dealt_matches(storage, 1)
    assert submit_play(writer, "m0", 0).result(WAIT_S) is None
    admin = create_engine(storage.engine.url, poolclass=NullPool)
    try:
        with admin.begin() as connection:  # ends every other session of the database: the writer's among them
            ended = connection.scalar(text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
            assert ended >= 1
    finally:
        admin.dispose()
    assert submit_play(writer, "m0", 1).result(WAIT_S) is None
    assert stored_plays(storage) == {"m0": CARDS[:2]}


def test_a_match_started_and_finished_in_the_group_commit_is_stored_whole_and_a_refused_write_fails_alone(storage):
    match = played_match(seed=21)
    record = to_record(match)
    start = {"room_code": None, "rules": RULES, "players": record["players"], "started_at": T0}
    dealt_matches(storage, 1)

    async def main() -> None:
        await storage.start_match(match_id="m1", **start)
        await storage.start_match(match_id="m1", **start)  # a retry after a lost answer: nothing more
        with pytest.raises(StorageError, match="could not finish match 'm1'"):  # a value no database holds
            await storage.finish_match(match_id="m1", record={"deals": [], "when": object()},
                                       placings=[1, 2], winners=[0], ended_at=T0)
        with storage_paused(storage):  # a refused finish in a batch fails alone: the play beside it commits
            refused = asyncio.ensure_future(storage.finish_match(
                match_id="m1", record={"players": []}, placings=[1], winners=[0], ended_at=T0))
            played = asyncio.ensure_future(storage.record_play(match_id="m0", deal=0, play=0, card=CARDS[0],
                                                               played_at=T0))
            await asyncio.sleep(0)
        with pytest.raises(StorageError, match="no list of deals"):
            await refused
        await played
        assert storage.match_record("m1") is None
        await storage.finish_match(match_id="m1", record=record, placings=placings(match),
                                   winners=list(match.winners), ended_at=T0)

    asyncio.run(main())
    assert storage.match_record("m1") == record and storage.finished_match("m1").winners == match.winners
    assert stored_plays(storage) == {"m0": CARDS[:1]}


@contextmanager
def storage_paused(storage: Storage) -> Iterator[None]:
    """Storage's own writer busy with a batch of its own while the block runs (:func:`held`)."""
    with held(storage._batch):
        yield
