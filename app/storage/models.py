"""The database tables of Cucumber as typed SQLAlchemy models.

Rooms and their seats, matches, and the deals and plays of matches; the
migrations in ``migrations/versions`` create exactly these tables.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    TypeDecorator,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.bots.strength import BotStrength

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
"""Constraint and index names, so that migrations can refer to them by name."""

IN_PROGRESS = "in_progress"
FINISHED = "finished"
ABANDONED = "abandoned"
MATCH_STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
_BOT_STRENGTHS_SQL = ", ".join(f"'{strength}'" for strength in BotStrength)


class UTCDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC and read back as an aware UTC ``datetime``.

    Writing a naive ``datetime`` raises ``ValueError`` (wrapped by SQLAlchemy
    in ``StatementError``): the time zone would be a guess. SQLite has no time
    zones, so values are stored there as UTC wall-clock text.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"timestamps must be timezone-aware, not naive: {value.isoformat()}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def text_fault(value: str, length: int | None = None) -> str | None:
    """Why ``value`` cannot be stored alike in every database, or ``None`` when it can.

    PostgreSQL refuses text holding NUL (``\\x00``) and text longer than a
    ``VARCHAR(length)``, where SQLite would store both; neither driver takes
    lone surrogates (text that is not valid Unicode).
    """
    if "\x00" in value:
        return "text holding NUL (\\x00) cannot be stored"
    if length is not None and len(value) > length:
        return f"text of {len(value)} characters cannot be stored where at most {length} fit"
    if value.isascii():  # most stored text: no surrogate can hide in it, and nothing to encode
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "text that is not valid Unicode (a lone surrogate) cannot be stored"
    return None


class StoredText(TypeDecorator[str]):
    """Text of at most ``length`` characters (``StoredText(32)``), checked alike for every database.

    Binding a value that :func:`text_fault` finds at fault raises
    ``ValueError`` (wrapped by SQLAlchemy in ``StatementError``) before the
    database sees it, for a write or a lookup: SQLite and PostgreSQL then
    refuse the same values in the same words.
    """

    impl = String
    cache_ok = True

    def __init__(self, length: int | None = None) -> None:
        super().__init__(length)
        self.length = length

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        if value is not None:
            fault = text_fault(value, self.length)
            if fault is not None:
                raise ValueError(fault)
        return value


INT_RANGE = range(-(2**31), 2**31)
"""Whole numbers an ``INTEGER`` column holds in PostgreSQL (SQLite's hold more)."""


class StoredInt(TypeDecorator[int]):
    """A whole number in :data:`INT_RANGE`, checked alike for every database.

    Binding one outside it raises ``ValueError`` (wrapped in
    ``StatementError``) before the database sees it, where PostgreSQL would
    refuse it and SQLite store it (or fail otherwise past 64 bits).
    """

    impl = Integer
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> int | None:
        if value is not None and value not in INT_RANGE:
            raise ValueError(f"only whole numbers from {INT_RANGE.start} to {INT_RANGE.stop - 1} can be stored")
        return value


class Base(DeclarativeBase):
    """Base of every model; its metadata carries :data:`NAMING_CONVENTION`."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime, int: StoredInt}


class RoomRow(Base):
    """A table people sit at, known by its short code.

    ``closed_at`` is set once the room is gone from the server's memory;
    rooms without it are restored when the server starts (or, in a cluster,
    taken by the first process that needs them). ``epoch`` is its owner's
    fencing number (:class:`RoomOwnerRow`). ``host_token_hash``
    identifies the host (who need not be seated); ``turn_seconds`` is the
    room's turn clock, ``None`` when off. ``turn_hours`` makes it a slow room
    (hours a turn, ``None``: live); ``slow`` holds what a slow room keeps
    besides (``app.rooms.slow.SlowTable.to_json``: deadlines, notices sent,
    quiet hours, vacations); ``wake_at`` is when a slow room asleep in the
    database is next due (``None``: awake, or nothing due).
    """

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(StoredText(32), primary_key=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    host_token_hash: Mapped[str | None] = mapped_column(StoredText(64))
    turn_seconds: Mapped[int | None]
    turn_hours: Mapped[int | None]
    slow: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    wake_at: Mapped[datetime | None] = mapped_column(index=True)
    created_at: Mapped[datetime]
    closed_at: Mapped[datetime | None] = mapped_column(index=True)
    epoch: Mapped[int] = mapped_column(server_default="0")
    """The fencing number of the room's owner: raised by one each time a server process takes the room,
    and named by every write of the room, which is refused when it is not the current one."""


class SeatRow(Base):
    """An occupied seat of a room: the player's name, public id, token hash, bot strength and whether
    the player stepped away.

    ``player`` is the occupant's public player id (``app.common.identity.new_player_id``,
    unique in the room); ``token_hash`` is the hex SHA-256 of the player's
    secret token (never the token); ``bot`` is ``None`` for a person, else a
    :class:`BotStrength` value; ``stepped_away``: the person handed the seat
    to the stand-in bot by choice (counts only while the room's match is
    being played).
    """

    __tablename__ = "seats"
    __table_args__ = (
        CheckConstraint("seat >= 0", name="seat"),
        CheckConstraint(f"bot IN ({_BOT_STRENGTHS_SQL})", name="bot"),
        UniqueConstraint("room_code", "player"),
    )

    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(StoredText(100))
    token_hash: Mapped[str | None] = mapped_column(StoredText(64))
    bot: Mapped[str | None] = mapped_column(StoredText(8))
    player: Mapped[str] = mapped_column(StoredText(16))
    stepped_away: Mapped[bool] = mapped_column(server_default=false())


class MatchRow(Base):
    """One match: in progress, finished (played here or imported) or abandoned.

    ``record`` (docs/rules.md §4), ``placings``, ``winners`` and ``deal_count`` are
    set when the match finishes; until then the record lives in ``deals`` and
    ``plays``. ``record_digest`` (:func:`~app.storage.queries.digest_of` of
    the record) finds a finished match by its record.
    """

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("status IN ('in_progress', 'finished', 'abandoned')", name="status"),
        Index("ix_matches_status_ended_at_id", "status", "ended_at", "id"),
        Index("ix_matches_room_code_status", "room_code", "status"),
        Index("ix_matches_record_digest", "record_digest"),
    )

    id: Mapped[str] = mapped_column(StoredText(32), primary_key=True)
    room_code: Mapped[str | None] = mapped_column(ForeignKey("rooms.code", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(StoredText(16))
    imported: Mapped[bool]
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    players: Mapped[list[str]] = mapped_column(JSON)
    preset: Mapped[str | None] = mapped_column(StoredText(16))
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    deal_count: Mapped[int | None]
    winners: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True))
    placings: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True))
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), deferred=True)
    record_digest: Mapped[str | None] = mapped_column(StoredText(64))


class DealRow(Base):
    """A deal of a match as dealt: the dealer and every seat's hand (card codes)."""

    __tablename__ = "deals"
    __table_args__ = (CheckConstraint("deal >= 0", name="deal"),)

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    deal: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    dealer: Mapped[int]
    hands: Mapped[list[list[str]]] = mapped_column(JSON)


class PlayRow(Base):
    """One card played in a deal, in order (``play`` counts from 0 within the deal).

    ``decided_by`` says who chose the card (docs/rules.md §4 ``decided_by``): ``"player"``, the seat's own
    player (a person, or the bot the seat was given to), or the reason a stand-in bot played for a person:
    ``"away"``, ``"stepped_away"`` or ``"turn_clock"``.
    """

    __tablename__ = "plays"
    __table_args__ = (
        ForeignKeyConstraint(["match_id", "deal"], ["deals.match_id", "deals.deal"], ondelete="CASCADE"),
        CheckConstraint("play >= 0", name="play"),
    )

    match_id: Mapped[str] = mapped_column(StoredText(32), primary_key=True)
    deal: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    play: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    card: Mapped[str] = mapped_column(StoredText(2))
    played_at: Mapped[datetime]
    decided_by: Mapped[str] = mapped_column(StoredText(16), server_default="player")


class RoomOwnerRow(Base):
    """Who took a room at an epoch: one row per room and epoch, so no epoch ever had two owners.

    ``owner`` is the process id of the server that took it (``Settings.process_id``).
    """

    __tablename__ = "room_owners"

    room_code: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True)
    epoch: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    owner: Mapped[str] = mapped_column(StoredText(100))
    taken_at: Mapped[datetime]


class ServerLeaseRow(Base):
    """The server process that runs the rooms of a database without a cluster (at most one row, ``id`` 1).

    ``holder`` is its process id, ``host`` and ``pid`` where it runs (so that a restart on the same host
    can tell that the holder is dead), ``expires_at`` when the lease lapses unless renewed.
    """

    __tablename__ = "server_lease"
    __table_args__ = (CheckConstraint("id = 1", name="single"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    holder: Mapped[str] = mapped_column(StoredText(100))
    host: Mapped[str] = mapped_column(StoredText(255))
    pid: Mapped[int]
    expires_at: Mapped[datetime]


ANALYSIS_RUNNING = "running"
ANALYSIS_DONE = "done"
ANALYSIS_FAILED = "failed"


class AnalysisRow(Base):
    """The coach's analysis of a finished match (docs/coach.md), one row per match.

    A worker claims a match by inserting its row (``status`` ``"running"``, ``worker`` its process id,
    ``claimed_at``): the primary key lets one claim win. ``"done"`` rows hold ``grades`` (one object per
    play, as ``cucumber analyse --json`` prints them) and ``accuracy`` (per seat, in percent or ``None``);
    ``"failed"`` ones the ``error``. A claim still running long after ``claimed_at`` may be taken over.
    """

    __tablename__ = "analyses"
    __table_args__ = (
        CheckConstraint("status IN ('running', 'done', 'failed')", name="status"),
        Index("ix_analyses_status_claimed_at", "status", "claimed_at"),
    )

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(StoredText(16))
    worker: Mapped[str] = mapped_column(StoredText(100))
    claimed_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    grades: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON(none_as_null=True))
    accuracy: Mapped[list[float | None] | None] = mapped_column(JSON(none_as_null=True))
    error: Mapped[str | None] = mapped_column(StoredText(500))


class VapidKeyRow(Base):
    """The server's VAPID key pair for Web Push (RFC 8292), made at the first start with push on (at most one
    row, ``id`` 1): ``private_key`` the P-256 secret (32 bytes), ``public_key`` the uncompressed point
    (65 bytes), both unpadded base64url."""

    __tablename__ = "vapid_keys"
    __table_args__ = (CheckConstraint("id = 1", name="single"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    private_key: Mapped[str] = mapped_column(StoredText(64))
    public_key: Mapped[str] = mapped_column(StoredText(100))
    created_at: Mapped[datetime]


class PushSubscriptionRow(Base):
    """A browser's Web Push subscription for one seat of a room: the seat is the player's ``token_hash`` at
    ``room_code``; ``endpoint`` the push service's URL, ``p256dh`` and ``auth`` the browser's keys
    (unpadded base64url), ``language`` the code its pushes are written in. One row per room and endpoint;
    ``renewed_at`` is the last time the page sent it. Not tied to the room's row: a room is stored only
    once something happens in it, and a page may subscribe before."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("room_code", "endpoint"),
        Index("ix_push_subscriptions_room_code_token_hash", "room_code", "token_hash"),
        Index("ix_push_subscriptions_renewed_at", "renewed_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    room_code: Mapped[str] = mapped_column(StoredText(32))
    token_hash: Mapped[str] = mapped_column(StoredText(64))
    endpoint: Mapped[str] = mapped_column(StoredText(2000))
    p256dh: Mapped[str] = mapped_column(StoredText(100))
    auth: Mapped[str] = mapped_column(StoredText(40))
    language: Mapped[str] = mapped_column(StoredText(8))
    created_at: Mapped[datetime]
    renewed_at: Mapped[datetime]
