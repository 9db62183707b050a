"""The storage API the server calls: rooms, matches, their deals and plays.

Reads and the writes of rooms and leases are plain synchronous methods, each
one session and one transaction. The writes of a match (its start, deals,
plays and end) are coroutines that return once the group commit holding them
is committed (:class:`~app.storage.batch.BatchWriter`): a match is written in
that one way, by the server, its tools and its tests alike. Every database
failure comes out as :class:`~app.storage.errors.StorageError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Any

from alembic.util import CommandError
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app.common.identity import new_match_id
from app.common.names import InvalidName, clean_name, same_name
from app.game.match import Match
from app.game.record import PLAYER, NotARecord, RecordFault, deciders, outcome, replay
from app.storage import analyses, migrate, ownership, push, queries
from app.storage.batch import BatchWriter, Row, Write
from app.storage.engine import BEGIN_MODE, create_storage_engine
from app.storage.errors import RecordRejected, StorageError, describe
from app.storage.values import (
    Fence,
    FinishedMatch,
    MatchPage,
    PushSubscriptionRecord,
    RoomSnapshot,
    SeatRecord,
    ServerLease,
)

MAX_PAGE = 1_000_000
"""Highest page number :meth:`Storage.list_matches` takes (it keeps the row offset a small number)."""
MAX_PER_PAGE = 100
"""Most finished matches on one page."""


class Storage:
    """The database of one server process.

    ``url`` is a SQLAlchemy URL (``sqlite:///cucumber.db``,
    ``postgresql+psycopg://user@host:5432/db``); ``echo`` logs every
    statement. The engine connects lazily: a database that is down makes the
    calls fail, not the construction. Methods may be called from any thread;
    each uses its own session and transaction, so a call either commits
    whole or not at all; the writes of a match, called on an event loop, hand
    their write to one writer thread that commits all those waiting together
    (a group commit, :class:`~app.storage.batch.BatchWriter`), each write
    whole or not at all. Timestamps must be timezone-aware and come back in UTC. A value
    that one of the databases could not hold (text with NUL or longer than
    its column, a whole number beyond 32 bits, NaN in JSON) is refused
    before the database sees it, by every database alike, with
    :class:`StorageError` (``app.storage.models.StoredText``, ``StoredInt``).
    Raises :class:`StorageError` for a URL that cannot be used (unknown
    driver, SQLite folder that cannot be created). ``commit_window`` is the
    writer's commit window in seconds (:class:`~app.storage.batch.BatchWriter`;
    0: a write never waits for others to share its transaction), and
    ``commit_window_load`` the process's load from which it opens (a fraction
    of one core; 0: at any load); ``ValueError`` for either out of range.
    """

    def __init__(self, url: str, *, echo: bool = False, commit_window: float = 0.0,
                 commit_window_load: float = 0.0) -> None:
        try:
            self._engine = create_storage_engine(url, echo=echo)
        except (SQLAlchemyError, OSError) as error:
            raise StorageError(f"cannot use the database {_safe_url(url)}: {error}") from error
        # SQLite write units take the write lock when they begin (see engine.py).
        self._writer = self._engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"})
        try:
            self._batch = BatchWriter(self._writer, window=commit_window, window_load=commit_window_load)
        except ValueError:
            self._engine.dispose()
            raise
        self._closed = False

    @property
    def url(self) -> str:
        """The database URL with any password hidden, for logs."""
        return self._engine.url.render_as_string(hide_password=True)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tests and tools; the server needs only the methods)."""
        return self._engine

    def upgrade(self) -> None:
        """Apply every migration not yet applied (``alembic upgrade head``), in one transaction.

        Safe to call on every start: an up-to-date database is left alone,
        and upgrades started at once by several processes run one after the
        other (``app.storage.migrate.migration_transaction``), so all succeed.
        Raises :class:`StorageError` if the database fails.
        """
        self._check_open()
        try:
            migrate.upgrade(self._writer)
        except (SQLAlchemyError, CommandError, OSError) as error:
            raise StorageError(f"could not upgrade the database: {describe(error)}") from error

    def close(self, timeout: float | None = None) -> bool:
        """Commit the writes of matches waiting, then close every pooled connection; later calls raise
        :class:`StorageError`.

        Waits at most ``timeout`` seconds (``None``: as long as it takes) for those writes; returns whether
        they were all committed. When the database does not answer in time, what is still pending is logged
        and left unconfirmed (:meth:`BatchWriter.close <app.storage.batch.BatchWriter.close>`)."""
        self._closed = True
        committed = self._batch.close(timeout)
        self._engine.dispose()
        return committed

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # Rooms

    def save_room(self, *, code: str, rules: Mapping[str, Any], host_token_hash: str | None,
                  seats: Sequence[SeatRecord], created_at: datetime, turn_seconds: int | None = None,
                  new: bool = False, fence: Fence | None = None, turn_hours: int | None = None) -> None:
        """Insert or update room ``code`` and replace its seats.

        ``rules``: the room's rules options (a JSON-ready dict, docs/rules.md §3);
        ``host_token_hash``: :func:`hash_token` of the host's token (the host
        need not be seated) or ``None``; ``turn_seconds``: the turn clock in
        seconds, ``None`` when off; ``seats``: the occupied seats (at most
        one per index), each saying whether its player stepped away from the
        match being played; ``created_at``: aware; ``turn_hours``: a slow room's hours a turn (``None``: live). A
        closed room saved again is open again. ``new``: the room is being
        opened, and must not take over a stored room's row: raises
        :class:`~app.storage.errors.RoomCodeTaken` when its code is stored
        already. ``fence`` (:class:`~app.storage.values.Fence`): the epoch the write is made under; a new
        room is stored with it, its owner logged. Raises :class:`StorageError` (then the room is as before),
        e.g. for two seats with one index, and :class:`~app.storage.errors.OwnershipLost` when ``fence``
        is not the room's epoch any more (as every write that takes a ``fence`` does).
        """
        with self._unit(f"save room {code!r}", write=True, fence=None if new else fence) as session:
            queries.save_room(session, code=code, rules=rules, host_token_hash=host_token_hash, seats=seats,
                              created_at=created_at, turn_seconds=turn_seconds, new=new, turn_hours=turn_hours)
            if new and fence is not None:
                ownership.own_new_room(session, fence, taken_at=created_at)

    async def save_slow(self, *, code: str, slow: Mapping[str, Any] | None, wake_at: datetime | None = None,
                        fence: Fence | None = None) -> None:
        """Store what slow room ``code`` keeps besides its lobby (``slow``, JSON-ready: deadlines, notices sent,
        quiet hours, vacations) and ``wake_at``, when the room is next due if it sleeps in the database
        (``None``: it is awake), in the next group commit; returns once it is committed (a slow room writes
        this at each turn, beside the play that made it). Nothing happens for an unknown room. Raises
        :class:`StorageError`, also when the database refuses the whole batch."""
        await self._batch.submit_waited(f"save slow room {code!r}", ownership.fenced(fence, partial(
            queries.save_slow, code=code, slow=slow, wake_at=wake_at)))

    def due_rooms(self, *, now: datetime) -> list[str]:
        """The codes of the open rooms asleep in the database that are due by ``now`` (aware), soonest first.
        Raises :class:`StorageError`."""
        with self._unit("list the due rooms", write=False) as session:
            return queries.due_rooms(session, now=now)

    def close_room(self, *, code: str, closed_at: datetime, fence: Fence | None = None) -> None:
        """Mark room ``code`` closed (gone from memory): it is no longer restored at start.

        Its match in progress, if any, is abandoned at ``closed_at``. Closing
        an unknown or closed room does nothing. Raises :class:`StorageError`.
        """
        with self._unit(f"close room {code!r}", write=True, fence=fence) as session:
            queries.close_room(session, code=code, closed_at=closed_at)

    def delete_unused_room(self, *, code: str, closed_at: datetime, fence: Fence | None = None) -> bool:
        """Delete room ``code`` and its seats if no match was ever started in it (a table opened
        and left unused); returns whether it was deleted.

        A room that had a match is closed at ``closed_at`` instead, as by
        :meth:`close_room`, and its matches stay. Nothing happens for an
        unknown room. Raises :class:`StorageError`.
        """
        with self._unit(f"delete room {code!r}", write=True, fence=fence) as session:
            return queries.delete_unused_room(session, code=code, closed_at=closed_at)

    # Matches

    async def start_match(self, *, match_id: str, room_code: str | None, rules: Mapping[str, Any],
                          players: Sequence[str], started_at: datetime, fence: Fence | None = None) -> None:
        """Store a new match in progress; returns once it is committed.

        ``match_id`` from :func:`~app.storage.values.new_match_id`;
        ``room_code`` of a saved room (or ``None``); ``rules`` the full rules
        options (``Rules.to_dict()``, so the rebuilt record is exactly
        ``to_record``'s); ``players`` the names in seat order. A room has one
        match in progress: starting one abandons any other there, and its
        seats are no longer stepped away (``SeatRecord.stepped_away``).
        Starting the same match again does nothing. Raises
        :class:`StorageError`, e.g. for a match id in use by another match or
        an unknown room, and when the database refuses the whole batch
        (nothing of the match is stored then).
        """
        await self._batch.submit_waited(f"start match {match_id!r}", ownership.fenced(fence, partial(
            queries.start_match, match_id=match_id, room_code=room_code, rules=rules, players=players,
            started_at=started_at)))

    async def record_deal(self, *, match_id: str, deal: int, dealer: int, hands: Sequence[Sequence[str]],
                          fence: Fence | None = None) -> None:
        """Store deal ``deal`` (from 0) of a match as dealt: ``dealer`` seat, ``hands[s]`` card codes of seat s;
        returns once it is committed.

        Deals are stored in order: raises :class:`StorageError` if the match
        is unknown, deal ``deal - 1`` is not stored, or ``deal`` is stored
        with other cards, and when the database refuses the whole batch (then
        the deal is not stored). Storing the same deal again does nothing, so
        a call whose answer was lost may be repeated.
        """
        await self._batch.submit_waited(*_deal_write(match_id=match_id, deal=deal, dealer=dealer, hands=hands,
                                                     fence=fence))

    async def record_play(self, *, match_id: str, deal: int, play: int, card: str, played_at: datetime,
                          fence: Fence | None = None, decided_by: str = PLAYER) -> None:
        """Append play ``play`` (from 0 within the deal) of deal ``deal``: the card code played, and who
        decided it (``decided_by``, :class:`~app.storage.models.PlayRow`); returns once it is committed,
        never before: only then may it be shown.

        Plays are stored in order and once: raises :class:`StorageError` if
        the deal is not stored, play ``play - 1`` is not, or ``play`` is
        stored as another card; one refused play fails alone, rolled back to a
        savepoint. It raises too, for every play of a batch the database
        refuses as a whole (down, locked), none of which is stored. Storing
        the same play again does nothing, so a call whose answer was lost may
        be repeated. With a ``fence``, a play of a room taken by another
        process since fails alone with
        :class:`~app.storage.errors.OwnershipLost`, checked first.
        """
        await self._batch.submit_waited(*_play_write(match_id=match_id, deal=deal, play=play, card=card,
                                                     played_at=played_at, fence=fence, decided_by=decided_by))

    async def finish_match(self, *, match_id: str, record: Mapping[str, Any], placings: Sequence[int],
                           winners: Sequence[int], ended_at: datetime, fence: Fence | None = None) -> None:
        """Mark a match finished, with its final record (docs/rules.md §4) and results; returns once it is
        committed.

        ``placings[s]``: seat s's place from 1 (``app.game.standings.placings``);
        ``winners``: the winning seats. The record is stored as given (not
        checked again). A match whose start was never stored is stored now
        (started at ``ended_at``). Raises :class:`StorageError`, also when the
        database refuses the whole batch (the match stays in progress then).
        """
        await self._batch.submit_waited(f"finish match {match_id!r}", ownership.fenced(fence, partial(
            queries.finish_match, match_id=match_id, record=record, placings=placings, winners=winners,
            ended_at=ended_at)))

    def abandon_match(self, *, match_id: str, ended_at: datetime, fence: Fence | None = None,
                      placings: Sequence[int] | None = None) -> None:
        """Mark a match in progress abandoned: kept, but neither restored nor listed; with ``placings`` (each
        seat's place, from 1) the standings it ended at are kept with it.

        Does nothing for an unknown match or one already finished or
        abandoned. Raises :class:`StorageError`.
        """
        with self._unit(f"abandon match {match_id!r}", write=True, fence=fence) as session:
            queries.abandon_match(session, match_id=match_id, ended_at=ended_at, placings=placings)

    # Restart

    def active_rooms(self) -> list[RoomSnapshot]:
        """Every room not closed, oldest first, to restore at start-up.

        Each has its seats and its match in progress, if any, whose record
        is rebuilt in ``cucumber-match/1`` form (docs/rules.md §4) from the stored
        deals and plays; ``app.game.record.replay`` turns it into the match.
        Raises :class:`StorageError`.
        """
        with self._unit("read the open rooms", write=False) as session:
            return queries.active_rooms(session)

    def take_room(self, *, code: str, owner: str, taken_at: datetime) -> RoomSnapshot | None:
        """Take open room ``code`` for process ``owner``: raise its epoch, log the owner, and read it whole.

        Returns the room as :meth:`active_rooms` gives it, with the new ``epoch`` (which the taker's
        writes must carry), or ``None`` when no open room has that code. Writes of the room under an
        older epoch are refused from then on; one being made elsewhere at that moment is waited for
        and then seen here. Raises :class:`StorageError`.
        """
        with self._unit(f"take room {code!r}", write=True) as session:
            if ownership.take_room(session, code=code, owner=owner, taken_at=taken_at) is None:
                return None
            snapshots = queries.active_rooms(session, code=code)
            return snapshots[0] if snapshots else None

    def take_open_rooms(self, *, owner: str, taken_at: datetime) -> list[RoomSnapshot]:
        """:meth:`take_room` for every open room at once (a single server's start), oldest first."""
        with self._unit("take the open rooms", write=True) as session:
            ownership.take_open_rooms(session, owner=owner, taken_at=taken_at)
            return queries.active_rooms(session)

    def rooms_in_play(self) -> list[str]:
        """The codes of the open rooms with a match in progress, oldest first (a cluster's processes take
        those nobody holds). Raises :class:`StorageError`."""
        with self._unit("list the rooms in play", write=False) as session:
            return ownership.rooms_in_play(session)

    def room_owners(self, code: str) -> list[tuple[int, str]]:
        """Every ``(epoch, owner)`` of room ``code``, oldest first (one owner per epoch). Raises
        :class:`StorageError`."""
        with self._unit(f"read the owners of room {code!r}", write=False) as session:
            return ownership.owners(session, code=code)

    # The lease of a single server

    def server_lease(self) -> ServerLease | None:
        """The lease of the single server as stored (perhaps expired), ``None`` if there is none.
        Raises :class:`StorageError`."""
        with self._unit("read the server lease", write=False) as session:
            return ownership.server_lease(session)

    def take_server_lease(self, *, holder: str, host: str, pid: int, now: datetime, until: datetime,
                          replacing: str | None = None) -> bool:
        """Make process ``holder`` (on ``host``, process ``pid``) the single server until ``until``.

        Returns ``False``, changing nothing, when another holds a lease still live at ``now``, unless it
        is ``replacing`` (a holder the caller knows to be dead). Raises :class:`StorageError`.
        """
        with self._unit("take the server lease", write=True) as session:
            return ownership.take_server_lease(session, holder=holder, host=host, pid=pid, now=now, until=until,
                                               replacing=replacing)

    def renew_server_lease(self, *, holder: str, until: datetime) -> bool:
        """Extend ``holder``'s lease to ``until``; ``False`` when it is not ``holder``'s. Raises
        :class:`StorageError`."""
        with self._unit("renew the server lease", write=True) as session:
            return ownership.renew_server_lease(session, holder=holder, until=until)

    def release_server_lease(self, *, holder: str) -> None:
        """End ``holder``'s lease, if it holds it. Raises :class:`StorageError`."""
        with self._unit("release the server lease", write=True) as session:
            ownership.release_server_lease(session, holder=holder)

    # Reading

    def match_record(self, match_id: str) -> dict[str, Any] | None:
        """The record (docs/rules.md §4) of a finished or imported match; ``None`` for any other id.

        Any text may be asked for, even text no database could hold (NUL,
        too long): it names no match. Raises :class:`StorageError` if the
        database fails.
        """
        with self._unit(f"read match {match_id!r}", write=False) as session:
            return queries.match_record(session, match_id=match_id)

    def list_matches(self, *, page: int = 1, per_page: int = 20) -> MatchPage:
        """Page ``page`` (1 to :data:`MAX_PAGE`) of the finished matches, newest end first, ``per_page`` (1–100) a page.

        A page past the last is empty. Raises ``ValueError`` for ``page`` or
        ``per_page`` out of range, :class:`StorageError` if the database fails.
        """
        if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= MAX_PAGE:
            raise ValueError(f"page must be a whole number from 1 to {MAX_PAGE}, not {page!r}")
        if isinstance(per_page, bool) or not isinstance(per_page, int) or not 1 <= per_page <= MAX_PER_PAGE:
            raise ValueError(f"per_page must be a whole number from 1 to {MAX_PER_PAGE}, not {per_page!r}")
        with self._unit("list the finished matches", write=False) as session:
            return queries.list_matches(session, page=page, per_page=per_page)

    def claim_analysis(self, *, worker: str, now: datetime, stale_before: datetime,
                       match_id: str | None = None) -> tuple[str, dict[str, Any]] | None:
        """Claim a finished match (``match_id``, if given) for ``worker`` to analyse
        (:func:`~app.storage.analyses.claim_analysis`): ``(match id, record)`` or ``None``. Raises
        :class:`StorageError`."""
        with self._unit("claim a match to analyse", write=True) as session:
            return analyses.claim_analysis(session, worker=worker, now=now, stale_before=stale_before,
                                           match_id=match_id)

    def finish_analysis(self, *, match_id: str, worker: str, finished_at: datetime,
                        grades: Sequence[dict[str, Any]] | None = None,
                        accuracy: Sequence[float | None] | None = None, error: str | None = None) -> bool:
        """Store ``worker``'s analysis of ``match_id``, or its ``error``
        (:func:`~app.storage.analyses.finish_analysis`); whether its claim still held. Raises :class:`StorageError`."""
        with self._unit(f"store the analysis of match {match_id!r}", write=True) as session:
            return analyses.finish_analysis(session, match_id=match_id, worker=worker, finished_at=finished_at,
                                            grades=grades, accuracy=accuracy, error=error)

    def release_analyses(self, *, workers: Sequence[str]) -> int:
        """Give up the running claims of ``workers`` (:func:`~app.storage.analyses.release_analyses`); how
        many. Raises :class:`StorageError`."""
        with self._unit("give up the coach's claims", write=True) as session:
            return analyses.release_analyses(session, workers=workers)

    def match_analysis(self, match_id: str) -> dict[str, Any] | None:
        """The coach's analysis of finished match ``match_id`` (:func:`~app.storage.analyses.match_analysis`),
        ``None`` when it has none. Raises :class:`StorageError` if the database fails."""
        with self._unit(f"read the analysis of match {match_id!r}", write=False) as session:
            return analyses.match_analysis(session, match_id=match_id)

    # Web Push (app.storage.push)

    def vapid_keys(self) -> tuple[str, str] | None:
        """The server's VAPID key pair ``(private_key, public_key)``, ``None`` before one is kept. Raises
        :class:`StorageError`."""
        with self._unit("read the VAPID keys", write=False) as session:
            return push.vapid_keys(session)

    def keep_vapid_keys(self, *, private_key: str, public_key: str, created_at: datetime) -> tuple[str, str]:
        """Store a VAPID key pair unless one is stored; the pair stored (:func:`~app.storage.push.keep_vapid_keys`).
        Raises :class:`StorageError`."""
        with self._unit("store the VAPID keys", write=True) as session:
            return push.keep_vapid_keys(session, private_key=private_key, public_key=public_key,
                                        created_at=created_at)

    def keep_push_subscription(self, *, room_code: str, token_hash: str, endpoint: str, p256dh: str, auth: str,
                               language: str, now: datetime) -> None:
        """Store or renew a seat's push subscription (:func:`~app.storage.push.keep_subscription`). Raises
        :class:`StorageError`."""
        with self._unit(f"keep a push subscription at room {room_code!r}", write=True) as session:
            push.keep_subscription(session, room_code=room_code, token_hash=token_hash, endpoint=endpoint,
                                   p256dh=p256dh, auth=auth, language=language, now=now)

    def push_subscriptions(self, *, room_code: str, token_hash: str) -> list[PushSubscriptionRecord]:
        """The push subscriptions of the seat ``token_hash`` at ``room_code``, the most recently renewed first.
        Raises :class:`StorageError`."""
        with self._unit(f"read the push subscriptions at room {room_code!r}", write=False) as session:
            return push.subscriptions(session, room_code=room_code, token_hash=token_hash)

    def delete_push_subscription(self, *, room_code: str, endpoint: str, token_hash: str | None = None) -> int:
        """Delete the subscription at ``endpoint`` at ``room_code`` (the seat ``token_hash``'s only, when given);
        how many (0 or 1). Raises :class:`StorageError`."""
        with self._unit(f"delete a push subscription at room {room_code!r}", write=True) as session:
            return push.delete_subscription(session, room_code=room_code, endpoint=endpoint, token_hash=token_hash)

    def delete_seat_subscriptions(self, *, room_code: str, token_hash: str) -> int:
        """Delete every push subscription of the seat ``token_hash`` at ``room_code``; how many. Raises
        :class:`StorageError`."""
        with self._unit(f"delete a seat's push subscriptions at room {room_code!r}", write=True) as session:
            return push.delete_seat_subscriptions(session, room_code=room_code, token_hash=token_hash)

    def delete_room_subscriptions(self, *, room_code: str) -> int:
        """Delete every push subscription at ``room_code``; how many. Raises :class:`StorageError`."""
        with self._unit(f"delete the push subscriptions at room {room_code!r}", write=True) as session:
            return push.delete_room_subscriptions(session, room_code=room_code)

    def forget_stale_subscriptions(self, *, renewed_before: datetime) -> int:
        """Delete the push subscriptions last renewed before ``renewed_before``; how many. Raises
        :class:`StorageError`."""
        with self._unit("forget stale push subscriptions", write=True) as session:
            return push.forget_stale_subscriptions(session, renewed_before=renewed_before)

    def finished_match(self, match_id: str) -> FinishedMatch | None:
        """Finished match ``match_id`` as listed, ``None`` for any other id (any text, as for :meth:`match_record`).

        Raises :class:`StorageError` if the database fails.
        """
        with self._unit(f"read match {match_id!r}", write=False) as session:
            return queries.finished_match(session, match_id=match_id)

    def import_record(self, record: Any, *, imported_at: datetime) -> tuple[str, bool]:
        """Check a record with the engine and store it as a finished match; return ``(match id, new)``.

        ``record``: parsed JSON of a ``cucumber-match/1`` record. It is
        stored in canonical form (``to_record`` of the replayed match), with
        placings and winners worked out by the engine, unless a finished
        match (imported, or played here) has that record already: then
        nothing is stored and its id comes back with ``new`` false. Raises
        :class:`~app.storage.errors.RecordRejected` (carrying what ``cucumber
        verify`` prints for it) if it is not a record, is faulty, the match
        is unfinished or a name is one the table refuses
        (:func:`verify_for_import`); :class:`StorageError` if the database fails.
        """
        match = verify_for_import(record)
        match_id = new_match_id()
        with self._unit("import a match record", write=True) as session:
            stored = queries.import_match(session, match_id=match_id, match=match, imported_at=imported_at,
                                          decided_by=deciders(record))
        return stored, stored == match_id

    @contextmanager
    def _unit(self, action: str, *, write: bool, fence: Fence | None = None) -> Iterator[Session]:
        """A session in a transaction, committed at the end; any failure becomes :class:`StorageError`.

        With a ``fence``, the transaction first checks that it is still the room's epoch
        (:func:`~app.storage.ownership.check_fence`, raising :class:`OwnershipLost`).

        Besides SQLAlchemy's errors, ``TypeError`` and ``ValueError`` are
        wrapped too: a database driver raises them for a value it cannot
        store (PostgreSQL's serialises JSON itself), and the call failed
        either way.
        """
        self._check_open()
        try:
            with Session(self._writer if write else self._engine) as session, session.begin():
                if fence is not None:
                    ownership.check_fence(session.connection(), fence)
                yield session
        except (SQLAlchemyError, TypeError, ValueError) as error:
            raise StorageError(f"could not {action}: {describe(error)}") from error

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("storage is closed")


def verify_for_import(record: Any) -> Match:
    """The finished match a record describes, replayed by the engine (docs/rules.md §4), if it may be stored.

    Besides what ``cucumber verify`` checks, the players' names must be as
    the table would have them: each exactly its :func:`app.common.names.clean_name`
    (1–20 visible characters, trimmed, single spaces, NFC), and no two the
    same by :func:`app.common.names.same_name`. A record is kept as it is, so a
    name is refused rather than changed. Raises
    :class:`~app.storage.errors.RecordRejected` with the result ``cucumber
    verify`` prints: the fault for a faulty record or a non-record, the
    outcome for an unfinished match, and for a name the table refuses
    ``{"ok": false, …, "seat": s, "reason": …}`` naming seat ``s``.
    """
    try:
        match = replay(record)
    except NotARecord as error:
        raise _refusal(f"not a cucumber-match/1 record: {error}") from None
    except RecordFault as fault:
        raise RecordRejected(f"the record is faulty at deal {fault.deal}: {fault.message}", fault.to_dict()) from None
    if not match.finished:
        raise RecordRejected("the match in the record is not finished", outcome(match))
    for seat, name in enumerate(match.players):
        try:
            clean = clean_name(name)
        except InvalidName as error:
            raise _refusal(f"the name of seat {seat} ({name[:30]!r}) is refused: {error}", seat) from None
        if clean != name:
            raise _refusal(f"the name of seat {seat} ({name[:30]!r}) is not written as the table writes it "
                           f"({clean!r}: trimmed, single spaces, NFC)", seat)
        same = next((other for other in range(seat) if same_name(match.players[other], name)), None)
        if same is not None:
            raise _refusal(f"seats {same} and {seat} have the same name ({match.players[same]!r}, {name!r})", seat)
    return match


def _refusal(reason: str, seat: int | None = None) -> RecordRejected:
    """A refused record that has no fault at a deal: the reason, and the seat it concerns if any."""
    return RecordRejected(reason, {"ok": False, "deal": None, "play": None, "seat": seat, "card": None,
                                   "reason": reason})


def _deal_write(*, match_id: str, deal: int, dealer: int, hands: Sequence[Sequence[str]],
                fence: Fence | None) -> tuple[str, Write, Row]:
    """The group commit's write of a deal (checked against ``fence`` first), what it is called in errors, and
    its common case as one row (:func:`~app.storage.queries.next_deal`, the fence in its own statement)."""
    return (f"record deal {deal} of match {match_id!r}",
            ownership.fenced(fence, partial(queries.record_deal, match_id=match_id, deal=deal, dealer=dealer,
                                            hands=[list(hand) for hand in hands])),
            Row(*queries.next_deal(match_id=match_id, deal=deal, dealer=dealer, hands=hands, fence=fence)))


def _play_write(*, match_id: str, deal: int, play: int, card: str, played_at: datetime,
                fence: Fence | None, decided_by: str) -> tuple[str, Write, Row]:
    """The group commit's write of a play (checked against ``fence`` in its own statement), what it is called
    in errors, and its common case as one row (:func:`~app.storage.queries.next_play`)."""
    return (f"record play {play} of deal {deal} of match {match_id!r}",
            partial(queries.record_play, match_id=match_id, deal=deal, play=play, card=card, played_at=played_at,
                    fence=fence, decided_by=decided_by),
            Row(*queries.next_play(match_id=match_id, deal=deal, play=play, card=card, played_at=played_at,
                                   fence=fence, decided_by=decided_by)))


def _safe_url(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        return "(malformed URL)"

