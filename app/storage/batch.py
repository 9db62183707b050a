"""Group commit: one writer thread commits every write waiting for it in one transaction.

A write resolves its future only once that transaction is committed, so durability is as for a
call of its own, at one commit (one fsync) for the whole batch; a refused write fails alone. A write
that finds the writer idle may wait a few milliseconds (the commit window) for others to share its
transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, Engine, Executable
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, SQLAlchemyError, StatementError

from app.storage.errors import StorageError, describe
from app.storage.load import LoadGate

log = logging.getLogger(__name__)

Write = Callable[[Connection], None]
"""One unit of a batch: SQL on the connection it is given, inside the batch's transaction. It raises
:class:`StorageError` to refuse itself, e.g. a play out of order. It may run twice, the first run rolled
back (see :class:`BatchWriter`), so it must do nothing but SQL on that connection."""


@dataclass(frozen=True, slots=True)
class Row:
    """A write's common case as one statement that inserts exactly one row, ``statement`` with ``values``.

    Where the write goes through, running ``statement`` with ``values`` is all it does, and inserts one
    row; where it inserts none, the write itself finds out why. The rows of writes with the same statement
    next to each other in a batch go to the database in one call (``executemany``), one after the other,
    so each sees the rows before it. The statement must keep its rowcount (``preserve_rowcount``).
    """

    statement: Executable
    values: Mapping[str, Any]


MAX_BATCH = 500
"""Most writes in one transaction: a long batch holds SQLite's write lock, and every caller in it waits."""
HOLD_SECONDS = 1.0
"""How long the writer keeps its database connection while no batch comes (seconds). Busy, it writes batch
after batch on one connection: taking one from the pool and giving it back cost about as much CPU time as a
batch of one play on SQLite (the pool's checks, its reset, PostgreSQL's ping). Idle longer than this, it
gives the connection back, and the next batch takes one checked as the pool checks it."""
MAX_WINDOW_SECONDS = 1.0
"""The longest commit window a writer takes (see :class:`BatchWriter`)."""
WINDOW_FULL = 8
"""How many writes end a commit window before its time is up: their transaction's begin, commit and fsync
are shared eight ways already (seven eighths of what the window can save), and more writes coming that fast
form batches of their own while the writer is busy."""


@dataclass(slots=True)
class _Pending:
    action: str
    write: Write
    future: Future[None] | asyncio.Future[None]
    loop: asyncio.AbstractEventLoop | None = None
    """The loop of an asyncio future (:meth:`BatchWriter.submit_waited`); ``None`` for a thread's future."""
    row: Row | None = None
    error: BaseException | None = None

    def begin(self) -> bool:
        """Whether the write still goes in its batch: not if its caller gave up before the batch started."""
        if self.loop is None:
            assert isinstance(self.future, Future)
            return self.future.set_running_or_notify_cancel()
        return not self.future.cancelled()


class BatchWriter:
    """A queue of writes and the one thread that commits them, all those waiting at a time together.

    ``engine`` is where they go (for SQLite, one whose transactions begin ``IMMEDIATE``: see
    ``app.storage.engine``); ``max_batch`` caps the writes of one transaction. The thread starts with the
    first :meth:`submit`. Each batch is one transaction and one commit, its writes run in the order
    submitted, so a later write sees the earlier ones (two plays of one room). A write that is refused (a
    check that fails, a constraint, a value no database here may hold) is rolled back alone while the
    others commit: the writes first run together, with nothing around each, and if one is refused, the
    transaction is rolled back and they run again in a new one, each in a savepoint of its own. A batch
    the database refuses as a whole (down, locked, the commit failing) fails every write in it and stores
    none of them. The thread keeps one connection while batches keep coming (:data:`HOLD_SECONDS`).

    ``window`` (seconds, 0 to :data:`MAX_WINDOW_SECONDS`) is the commit window of the writes waited for
    on an event loop (:meth:`submit_waited`): such a write that finds the writer idle, with nothing
    queued, is held that long on its loop, and every write of that loop that comes meanwhile is held
    with it, so that they share one transaction; the window ends early once it holds
    :data:`WINDOW_FULL` writes. Rooms at human pace each play a card every few seconds:
    without it, nearly every play is a transaction of its own, whose begin, commit and fsync cost several
    times the play's own insert, and whose end wakes the loop once more. A writer busy with a batch
    holds nothing: what comes meanwhile waits for it anyway and goes in the next batch. The window opens
    only while the process is busy, from ``window_load`` (a fraction of one core: :class:`LoadGate`; 0:
    always): with CPU to spare, what it saves is not worth its wait. Raises ``ValueError`` for a
    ``max_batch`` below 1, a ``window`` out of range or a ``window_load`` below 0.
    """

    def __init__(self, engine: Engine, *, max_batch: int = MAX_BATCH, window: float = 0.0,
                 window_load: float = 0.0) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be at least 1, not {max_batch}")
        if not 0 <= window <= MAX_WINDOW_SECONDS:
            raise ValueError(f"window must be from 0 to {MAX_WINDOW_SECONDS} seconds, not {window}")
        self._engine = engine
        self._max_batch = max_batch
        self._window = window
        self._gate = LoadGate(window_load)
        self._held: dict[asyncio.AbstractEventLoop, tuple[list[_Pending], asyncio.TimerHandle]] = {}
        """The writes held in a commit window, by their loop, oldest first, and the call that ends the
        window (under ``_lock``)."""
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()  # None: stop
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._writing: list[str] = []
        """The actions of the batch being written now (empty between batches)."""
        self._connection: Connection | None = None
        """The connection the thread writes on, kept from one batch to the next (:data:`HOLD_SECONDS`)."""
        self._last_written = 0.0

    def submit(self, action: str, write: Write, row: Row | None = None) -> Future[None]:
        """Queue ``write`` for the next batch; the future says how it went.

        ``action`` names the write in error messages (``"record play 3 of deal 0 of match 'x'"``). The
        future's result is ``None`` once the transaction holding the write is committed. It fails with
        :class:`StorageError` if the write refused itself (its own error), was refused by the database
        (``could not {action}: …``: a constraint, a value no database here may hold) or was in a batch the
        database refused as a whole, or if the writer is closed; with any other exception ``write``
        raised, as it is. Cancelling the future before its batch starts keeps the write out of it. ``row``:
        the write's common case as one statement (:class:`Row`), run with others of its kind at once.
        """
        future: Future[None] = Future()
        self._enqueue(_Pending(action, write, future, row=row))
        return future

    def submit_waited(self, action: str, write: Write, row: Row | None = None) -> asyncio.Future[None]:
        """As :meth:`submit`, for a caller on the running event loop: the future is the loop's own.

        The writes of one batch waited for on one loop are all resolved by one call the writer hands that
        loop once the batch is committed, so the loop wakes once a batch, not once a write (and the
        writer thread does not take the interpreter's lock from the loop once a write). Call it from the
        loop's thread only. A write that finds the writer idle, the process busy, opens the loop's commit
        window; the writes that come while it is open are held with it, in order (see :class:`BatchWriter`).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        item = _Pending(action, write, future, loop, row)
        with self._lock:
            window = self._held.get(loop)
            if window is not None:
                window[0].append(item)
                if len(window[0]) >= WINDOW_FULL:
                    window[1].cancel()
                    self._put_held(loop)
                return future
            if self._window > 0 and not self._closed and self._idle() and self._gate.is_open():
                self._held[loop] = ([item], loop.call_later(self._window, self._release, loop))
                return future
            self._put(item)
        return future

    def _idle(self) -> bool:
        """Whether the writer waits for a write, with none queued (read without its lock: a guess)."""
        return not self._writing and self._queue.empty()

    def _release(self, loop: asyncio.AbstractEventLoop) -> None:
        """On ``loop``: its commit window is over; queue the writes it held."""
        with self._lock:
            self._put_held(loop)

    def _put_held(self, loop: asyncio.AbstractEventLoop) -> None:
        """Queue the writes held in ``loop``'s commit window, in order (none: nothing). Under ``_lock``."""
        window = self._held.pop(loop, None)
        for item in window[0] if window is not None else ():
            self._put(item)

    def _enqueue(self, item: _Pending) -> None:
        with self._lock:
            self._put(item)

    def _put(self, item: _Pending) -> None:
        """Queue ``item`` for the writer, started if need be; fail it if the writer is closed. Under ``_lock``."""
        if self._closed:
            item.future.set_exception(StorageError(f"could not {item.action}: storage is closed"))
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="storage-batch-writer", daemon=True)
            self._thread.start()
        self._queue.put(item)

    def close(self, timeout: float | None = None) -> bool:
        """Commit what was submitted, then stop the thread; later :meth:`submit` calls fail. Idempotent.

        Waits at most ``timeout`` seconds (``None``: as long as it takes) for the writes still to commit,
        those held in a commit window included; returns whether they all were. When the time is up (the
        database does not answer), it logs what is still pending and returns ``False``: those writes are
        left to the thread, which goes on trying as long as the process lives, and whose futures say how
        each went. A second call waits again.
        """
        with self._lock:
            if not self._closed:
                for loop in list(self._held):  # their windows end now: committed before the stop mark
                    self._put_held(loop)
                self._closed = True
                if self._thread is not None:
                    self._queue.put(None)
            thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        if not thread.is_alive():
            return True
        writing, waiting = list(self._writing), self._queue.qsize() - 1  # less the stop mark
        log.warning("the database writer did not finish within %.1f s: %d write(s) being committed (%s), "
                    "%d more waiting; they are left unconfirmed", timeout, len(writing), "; ".join(writing[:5])
                    or "none", max(0, waiting))
        return False

    def _run(self) -> None:
        stop = False
        try:
            while not stop:
                batch, stop = self._take()
                # A write whose caller gave up before it started is left out; the others cannot be cancelled now.
                batch = [item for item in batch if item.begin()]
                if batch:
                    self._writing = [item.action for item in batch]
                    try:
                        self._write(batch)
                    finally:
                        self._writing = []
        finally:
            self._let_go()

    def _take(self) -> tuple[list[_Pending], bool]:
        """Wait for a write, then take every write waiting behind it (up to ``max_batch``); and whether to stop."""
        first = self._queue.get()
        if first is None:
            return [], True
        batch = [first]
        while len(batch) < self._max_batch:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                return batch, True
            batch.append(item)
        return batch, False

    def _write(self, batch: list[_Pending]) -> None:
        """Run ``batch`` in one transaction, commit once, then resolve the futures.

        A connection kept from an earlier batch that the database has dropped meanwhile (it restarted, or
        ended idle sessions) is let go, and the batch runs again on a new one: nothing of it was stored
        then, or its writes find themselves stored already, which they take as done.
        """
        try:
            if self._connection is not None and time.monotonic() - self._last_written > HOLD_SECONDS:
                self._let_go()  # idle too long: the next one is checked as the pool checks it
            held = self._connection is not None
            try:
                _transact(self._connect(), batch)
            except DBAPIError as error:
                if not (held and error.connection_invalidated):
                    raise
                self._let_go()
                _transact(self._connect(), batch)
            self._last_written = time.monotonic()
        except Exception as error:
            self._let_go()  # not used again after a failure: the next batch starts on a connection checked anew
            failure: BaseException | None = None
            if not isinstance(error, SQLAlchemyError | TypeError | ValueError):
                log.exception("a batch of %d writes failed", len(batch))
                failure = error
            for item in batch:
                item.error = item.error or failure or _refusal(item.action, error)
        self._writing = []  # idle before the callers hear: the write they send next may open a commit window
        _resolve(batch)

    def _connect(self) -> Connection:
        """The connection to write on: the one kept, else a new one from the engine's pool (kept from now on)."""
        if self._connection is None:
            self._connection = self._engine.connect()
        return self._connection

    def _let_go(self) -> None:
        """Give the kept connection back to the pool (a broken one is discarded there)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception as error:
                log.debug("closing the writer's connection failed: %r", error)


def _transact(connection: Connection, batch: list[_Pending]) -> None:
    """Run ``batch`` in one transaction on ``connection`` (:func:`_all_at_once`, and where a write is
    refused, :func:`_one_by_one` in a new one) and commit it; raises what fails the batch as a whole."""
    for item in batch:
        item.error = None
    try:
        with connection.begin():
            _all_at_once(connection, batch)
    except _Refused:
        with connection.begin():
            _one_by_one(connection, batch)


def _resolve(batch: list[_Pending]) -> None:
    """Tell each write of a finished batch how it went: a thread's future at once, the asyncio futures
    of each loop in one call on that loop."""
    waited: dict[asyncio.AbstractEventLoop, list[_Pending]] = {}
    for item in batch:
        if item.loop is not None:
            waited.setdefault(item.loop, []).append(item)
        elif item.error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(item.error)
    for loop, items in waited.items():
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for these any more
            loop.call_soon_threadsafe(_settle, items)


def _settle(items: list[_Pending]) -> None:
    """On their loop: resolve the asyncio futures of ``items`` (those still waited for)."""
    for item in items:
        if item.future.done():
            continue  # given up by its caller meanwhile
        if item.error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(item.error)


class _Refused(Exception):
    """A write of a batch run all at once was refused: its transaction is to be rolled back whole."""


def _all_at_once(connection: Connection, batch: list[_Pending]) -> None:
    """Run every write of ``batch`` in the connection's transaction, nothing around each: the way of a
    batch no write of which is refused, the common case.

    Raises :class:`_Refused` when one is refused (the caller rolls the transaction back, so nothing of the
    batch is left), and the error of a database failure as it is. A savepoint around the writes would
    cost two more statements a batch, as much as a play, and most batches at human pace hold one play.

    Writes next to each other with the same :class:`Row` statement go in one call, the rows of all of them
    (the plays of a busy batch: one call instead of one a play); where that inserts fewer rows than it
    was given, one of them did not go through, and the batch is refused so that each write can say why.
    """
    for statement, run in groupby(batch, key=lambda item: None if item.row is None else item.row.statement):
        items = list(run)
        try:
            if statement is None:
                for item in items:
                    item.write(connection)
                continue
            rows = [item.row.values for item in items if item.row is not None]
            inserted = connection.execute(statement, rows).rowcount
        except Exception as error:
            if _fails_the_database(error):
                raise
            raise _Refused from error
        if inserted != len(rows):
            raise _Refused


def _one_by_one(connection: Connection, batch: list[_Pending]) -> None:
    """Run every write of ``batch`` in a savepoint of its own, keeping the error of each one refused.

    Slower than :func:`_all_at_once` (a savepoint costs more than a play), for a batch with a refused
    write. Raises the error of a database failure.
    """
    for item in batch:
        try:
            with connection.begin_nested():
                item.write(connection)
        except Exception as error:
            if _fails_the_database(error):
                raise
            item.error = _refusal(item.action, error)


def _fails_the_database(error: Exception) -> bool:
    """Whether ``error``, raised by one write, means the database failed, not that it refused that write.

    Refusals of one write: its own :class:`StorageError`, a constraint or a value the database refused
    (``IntegrityError``, ``DataError``), a value refused before it was sent (any other
    ``StatementError``: ``StoredText``, ``StoredInt``, JSON), and any exception not SQLAlchemy's. Other
    errors of the database or its driver (gone, locked, out of disk, a savepoint that cannot be rolled
    back) fail the whole batch.
    """
    if isinstance(error, IntegrityError | DataError):
        return False
    if isinstance(error, DBAPIError):
        return True
    return isinstance(error, SQLAlchemyError) and not isinstance(error, StatementError)


def _refusal(action: str, error: BaseException) -> BaseException:
    """What the future of a write that failed with ``error`` fails with (see :meth:`BatchWriter.submit`)."""
    if isinstance(error, StorageError):
        return error
    if isinstance(error, SQLAlchemyError | TypeError | ValueError):
        refused = StorageError(f"could not {action}: {describe(error)}")
        refused.__cause__ = error
        return refused
    return error
