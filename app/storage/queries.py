"""The units of work of storage as plain functions over a SQLAlchemy session or connection.

Each runs inside the caller's transaction and returns frozen values;
:class:`app.storage.store.Storage` gives every call its own session and transaction, and
:class:`app.storage.batch.BatchWriter` runs the deals and plays of many rooms in one. Deals and
plays are SQL Core on a connection, with statements built once: they are the writes of every card. A
match's start and end, written at every "Play again", are SQL Core on a connection too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Connection,
    CursorResult,
    Executable,
    Select,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import InstrumentedAttribute, Session, undefer

from app.game.errors import InvalidRules
from app.game.match import Match
from app.game.record import FORMAT, PLAYER, to_record
from app.game.rules import Rules, preset_name
from app.game.standings import placings as placings_of
from app.storage import ownership
from app.storage.errors import RoomCodeTaken, StorageError
from app.storage.models import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    DealRow,
    MatchRow,
    PlayRow,
    RoomRow,
    SeatRow,
    text_fault,
)
from app.storage.values import ActiveMatch, Fence, FinishedMatch, MatchPage, RoomSnapshot, SeatRecord


def save_room(session: Session, *, code: str, rules: Mapping[str, Any], host_token_hash: str | None,
              seats: Iterable[SeatRecord], created_at: datetime, turn_seconds: int | None = None,
              new: bool = False, turn_hours: int | None = None) -> None:
    """Insert or update room ``code`` (reopening it if closed) and replace its seats with ``seats``.

    ``new``: the room is being opened, so no row may have its code yet; raises
    :class:`~app.storage.errors.RoomCodeTaken` if one has.
    """
    room = session.get(RoomRow, code)
    if room is not None and new:
        raise RoomCodeTaken(f"a room with the code {code!r} is stored already")
    if room is None:
        room = RoomRow(code=code)
        session.add(room)
    room.rules = dict(rules)
    room.host_token_hash = host_token_hash
    room.turn_seconds = turn_seconds
    room.turn_hours = turn_hours
    room.created_at = created_at
    room.closed_at = None
    session.flush()
    session.execute(delete(SeatRow).where(SeatRow.room_code == code))
    session.add_all(SeatRow(room_code=code, seat=seat.seat, name=seat.name, token_hash=seat.token_hash, bot=seat.bot,
                            player=seat.player, stepped_away=seat.stepped_away)
                    for seat in seats)


def save_slow(run: Session | Connection, *, code: str, slow: Mapping[str, Any] | None,
              wake_at: datetime | None) -> None:
    """Store what slow room ``code`` keeps besides its lobby, and when it is next due; nothing for an unknown room.
    One update, in a session or (a unit of the group commit) on a connection."""
    run.execute(update(RoomRow).where(RoomRow.code == code).values(slow=None if slow is None else dict(slow),
                                                                       wake_at=wake_at))


def due_rooms(session: Session, *, now: datetime) -> list[str]:
    """The codes of the open rooms asleep in the database whose next deadline or notice is due by ``now``."""
    return list(session.scalars(select(RoomRow.code).where(RoomRow.closed_at.is_(None), RoomRow.wake_at <= now)
                                .order_by(RoomRow.wake_at)))


def close_room(session: Session, *, code: str, closed_at: datetime) -> None:
    """Mark room ``code`` closed and abandon its match in progress; nothing happens for an unknown or closed room."""
    if _cannot_hold(RoomRow.code, code):
        return
    room = session.get(RoomRow, code)
    if room is None or room.closed_at is not None:
        return
    room.closed_at = closed_at
    _abandon_room_matches(session, room_code=code, ended_at=closed_at)


def delete_unused_room(session: Session, *, code: str, closed_at: datetime) -> bool:
    """Delete room ``code`` and its seats if no match was ever started in it; returns whether it was.

    A room with a match (of any status) is closed as by :func:`close_room` instead, so that
    its matches keep their room. An unknown room: ``False``, nothing happens.
    """
    if session.scalar(select(exists().where(MatchRow.room_code == code))):
        close_room(session, code=code, closed_at=closed_at)
        return False
    session.execute(delete(SeatRow).where(SeatRow.room_code == code))
    deleted = cast("CursorResult[Any]", session.execute(delete(RoomRow).where(RoomRow.code == code)))
    return deleted.rowcount > 0


def start_match(connection: Connection, *, match_id: str, room_code: str | None, rules: Mapping[str, Any],
                players: Sequence[str], started_at: datetime) -> None:
    """Insert a match in progress; any other match in progress at the same room is abandoned, and nobody at
    the room is stepped away any more (a new match starts with everyone back at their seat).

    SQL Core on ``connection``, in its transaction: a look-up of the match, then an update of the room's
    matches and one of its seats stepped away, and an insert (a room starts a match at every "Play again"; an
    ORM session for it cost several times as much). Storing the same match again (a retry after a lost
    answer) does nothing. Raises SQLAlchemy's errors for a match id in use by another match, an unknown
    room, a value no database here may hold or a database failure.
    """
    players = list(players)
    stored = connection.execute(_STORED_MATCH, {"match_id": match_id}).one_or_none()
    if stored is not None and tuple(stored) == (IN_PROGRESS, room_code, players):
        return
    if room_code is not None:
        _abandon_room_matches(connection, room_code=room_code, ended_at=started_at)
        connection.execute(_ALL_BACK, {"b_room": room_code})
    connection.execute(insert(MatchRow), {"id": match_id, "room_code": room_code, "status": IN_PROGRESS,
                                          "imported": False, "rules": dict(rules), "players": players,
                                          "preset": _preset_of(rules), "started_at": started_at})


_STORED_MATCH = select(MatchRow.status, MatchRow.room_code, MatchRow.players).where(
    MatchRow.id == bindparam("match_id"))
_ALL_BACK = update(SeatRow).where(SeatRow.room_code == bindparam("b_room"), SeatRow.stepped_away).values(
    stepped_away=False)


def record_deal(connection: Connection, *, match_id: str, deal: int, dealer: int,
                hands: Sequence[Sequence[str]]) -> None:
    """Insert deal ``deal`` of a match; it must be the next one (deals 0 … deal-1 stored already).

    SQL Core on ``connection``, in its transaction: one query for the checks,
    one insert. Storing a stored deal again with the same dealer and hands (a
    retry after a lost answer) does nothing. Raises :class:`StorageError` for
    an unknown match, a gap, or a stored deal with other cards; SQLAlchemy's
    errors for a value no database here may hold or a database failure.
    """
    started, stored = connection.execute(_DEAL_CHECK, {"match_id": match_id}).one()
    if not started:
        raise StorageError(f"no match {match_id!r}")
    hands = [list(hand) for hand in hands]
    if 0 <= deal < stored:
        same = connection.execute(_STORED_DEAL, {"match_id": match_id, "deal": deal}).one_or_none()
        if same is not None and tuple(same) == (dealer, hands):
            return
        raise StorageError(f"deal {deal} of match {match_id!r} is stored already, with other cards")
    if deal != stored:
        raise StorageError(f"deal {deal} of match {match_id!r} is out of order: {stored} deals are stored")
    connection.execute(_INSERT_DEAL, {"match_id": match_id, "deal": deal, "dealer": dealer, "hands": hands})


def record_play(connection: Connection, *, match_id: str, deal: int, play: int, card: str,
                played_at: datetime, fence: Fence | None = None, decided_by: str = PLAYER) -> None:
    """Insert play ``play`` of deal ``deal``; it must be the next one of that stored deal.

    SQL Core on ``connection``, in its transaction: one statement inserts the
    play if the deal is stored and ``play`` equals the number of plays stored
    for it (and, with a ``fence``, the room is still at its epoch:
    :data:`~app.storage.ownership.ROOM_AT_EPOCH`), with who decided it
    (``decided_by``, :class:`~app.storage.models.PlayRow`); only when it does not,
    queries find out why. Storing a stored play again with the same card (a
    retry after a lost answer) does nothing. Raises
    :class:`~app.storage.errors.OwnershipLost` when the room has another epoch
    (whatever the play), :class:`StorageError` for an unknown deal, a gap, or a
    stored play of another card; SQLAlchemy's errors for a value no database
    here may hold or a database failure.
    """
    statement, values = next_play(match_id=match_id, deal=deal, play=play, card=card, played_at=played_at,
                                  fence=fence, decided_by=decided_by)
    if connection.execute(statement, values).rowcount:
        return
    if fence is not None:
        ownership.check_fence(connection, fence)
    dealt, stored, same = connection.execute(_PLAY_CHECK, values).one()
    if not dealt:
        raise StorageError(f"no deal {deal} in match {match_id!r}")
    if not 0 <= play < stored:
        raise StorageError(f"play {play} of deal {deal} of match {match_id!r} is out of order: "
                           f"{stored} plays are stored")
    if same != card:
        raise StorageError(f"play {play} of deal {deal} of match {match_id!r} is stored already, as {same}")


def next_deal(*, match_id: str, deal: int, dealer: int, hands: Sequence[Sequence[str]],
              fence: Fence | None = None) -> tuple[Executable, dict[str, Any]]:
    """The statement that inserts deal ``deal`` of a stored match where it is the next one (and, with a
    ``fence``, the room is still at its epoch), with its values: :func:`record_deal`'s common case, one
    row inserted. It inserts nothing where :func:`record_deal` would find out why, or find the deal stored
    already."""
    values: dict[str, Any] = {"match_id": match_id, "deal": deal, "dealer": dealer,
                              "hands": [list(hand) for hand in hands]}
    if fence is None:
        return _INSERT_NEXT_DEAL, values
    values.update(fence_room=fence.room, fence_epoch=fence.epoch)
    return _INSERT_NEXT_FENCED_DEAL, values


def next_play(*, match_id: str, deal: int, play: int, card: str, played_at: datetime,
              fence: Fence | None = None, decided_by: str = PLAYER) -> tuple[Executable, dict[str, Any]]:
    """The statement that inserts play ``play`` of deal ``deal`` where it is the next one of that stored deal
    (and, with a ``fence``, the room is still at its epoch), with its values: :func:`record_play`'s common
    case, one row inserted. It inserts nothing where :func:`record_play` would find out why, or find the
    play stored already."""
    values: dict[str, Any] = {"match_id": match_id, "deal": deal, "play": play, "card": card,
                              "played_at": played_at, "decided_by": decided_by}
    if fence is None:
        return _INSERT_NEXT_PLAY, values
    values.update(fence_room=fence.room, fence_epoch=fence.epoch)
    return _INSERT_NEXT_FENCED_PLAY, values


# The statements of record_deal and record_play, built once: the group commit runs them for every play,
# and building a statement costs more than running it on SQLite. Each parameter takes its column's type,
# so the values are checked as in any other statement (StoredText, StoredInt).
_PLAYS = PlayRow.__table__.c
_DEAL_CHECK = select(
    exists().where(MatchRow.id == bindparam("match_id")),
    select(func.count()).select_from(DealRow).where(DealRow.match_id == bindparam("match_id")).scalar_subquery(),
)
_STORED_DEAL = select(DealRow.dealer, DealRow.hands).where(DealRow.match_id == bindparam("match_id"),
                                                          DealRow.deal == bindparam("deal"))
_INSERT_DEAL = insert(DealRow)
_DEAL_STORED = exists().where(DealRow.match_id == bindparam("match_id"), DealRow.deal == bindparam("deal"))
_PLAYS_STORED = (select(func.count()).select_from(PlayRow)
                 .where(PlayRow.match_id == bindparam("match_id"), PlayRow.deal == bindparam("deal"))
                 .scalar_subquery())
_PLAY_CHECK = select(
    _DEAL_STORED,
    _PLAYS_STORED,
    select(PlayRow.card).where(PlayRow.match_id == bindparam("match_id"), PlayRow.deal == bindparam("deal"),
                               PlayRow.play == bindparam("play")).scalar_subquery(),
)
_PLAY_COLUMNS = ("match_id", "deal", "play", "card", "played_at", "decided_by")


def _insert_next_play(*conditions: ColumnElement[bool]) -> Executable:
    """INSERT … SELECT the play's values WHERE the deal is stored AND this play is the next AND ``conditions``
    hold: one round trip a play. Its rowcount says whether it did; SQLAlchemy keeps an INSERT's only when
    asked (``preserve_rowcount``)."""
    return insert(PlayRow).from_select(_PLAY_COLUMNS, select(
        *(bindparam(name, type_=_PLAYS[name].type) for name in _PLAY_COLUMNS),
    ).where(_DEAL_STORED, bindparam("play") == _PLAYS_STORED, *conditions)).execution_options(preserve_rowcount=True)


_DEALS = DealRow.__table__.c
_DEAL_COLUMNS = ("match_id", "deal", "dealer", "hands")


def _insert_next_deal(*conditions: ColumnElement[bool]) -> Executable:
    """INSERT … SELECT the deal's values WHERE the match is stored AND this deal is the next AND
    ``conditions`` hold: one round trip a deal, its rowcount kept (see :func:`_insert_next_play`)."""
    match_stored, deals_stored = _DEAL_CHECK.selected_columns
    return insert(DealRow).from_select(_DEAL_COLUMNS, select(
        *(bindparam(name, type_=_DEALS[name].type) for name in _DEAL_COLUMNS),
    ).where(match_stored, bindparam("deal") == deals_stored, *conditions)).execution_options(preserve_rowcount=True)


_INSERT_NEXT_DEAL = _insert_next_deal()
_INSERT_NEXT_FENCED_DEAL = _insert_next_deal(ownership.ROOM_AT_EPOCH)
_INSERT_NEXT_PLAY = _insert_next_play()
_INSERT_NEXT_FENCED_PLAY = _insert_next_play(ownership.ROOM_AT_EPOCH)


def finish_match(connection: Connection, *, match_id: str, record: Mapping[str, Any], placings: Sequence[int],
                 winners: Sequence[int], ended_at: datetime) -> None:
    """Mark a match finished with its record and results.

    SQL Core on ``connection``, in its transaction: one update. A match that was never started here (its
    start was lost) is inserted, with ``started_at`` equal to ``ended_at``. Each deal in which a stand-in
    bot played for a person gets ``decided_by`` from the stored plays (docs/rules.md §4); the digest is
    that of ``record`` as given. Raises :class:`StorageError` if
    ``record`` has no list of deals; SQLAlchemy's errors (or the driver's ``TypeError`` or ``ValueError``)
    for a value no database here may hold or a database failure.
    """
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise StorageError(f"the record of match {match_id!r} has no list of deals")
    result = {"status": FINISHED, "ended_at": ended_at, "record": _with_deciders(connection, match_id, record),
              "placings": list(placings), "winners": list(winners), "deal_count": len(deals),
              "record_digest": digest_of(record)}
    finished = cast("CursorResult[Any]", connection.execute(
        update(MatchRow).where(MatchRow.id == match_id).values(**result)))
    if finished.rowcount:
        return
    rules = dict(record.get("rules") or {})
    connection.execute(insert(MatchRow), {"id": match_id, "room_code": None, "imported": False, "rules": rules,
                                          "players": list(record.get("players") or []), "preset": _preset_of(rules),
                                          "started_at": ended_at, **result})


def _with_deciders(connection: Connection, match_id: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with ``decided_by`` (who chose each play) in every deal where a stand-in played, read from
    the stored plays of ``match_id``; the other deals, and plays not stored, count as their player's."""
    rows = connection.execute(select(PlayRow.deal, PlayRow.play, PlayRow.decided_by).where(
        PlayRow.match_id == match_id, PlayRow.decided_by != PLAYER)).all()
    if not rows:
        return dict(record)
    deals = [dict(deal) for deal in record["deals"]]
    for deal, play, decided_by in rows:
        if 0 <= deal < len(deals) and 0 <= play < len(deals[deal].get("plays", [])):
            entry = deals[deal]
            entry.setdefault("decided_by", [PLAYER] * len(entry["plays"]))[play] = decided_by
    return {**record, "deals": deals}


def abandon_match(session: Session, *, match_id: str, ended_at: datetime,
                  placings: Sequence[int] | None = None) -> None:
    """Mark a match in progress abandoned, with the standings it ended at (``placings``, each seat's place)
    if given; nothing happens for an unknown match or one no longer in progress."""
    if _cannot_hold(MatchRow.id, match_id):
        return
    standings = {} if placings is None else {"placings": list(placings)}
    session.execute(update(MatchRow).where(MatchRow.id == match_id, MatchRow.status == IN_PROGRESS)
                    .values(status=ABANDONED, ended_at=ended_at, **standings))


def digest_of(record: Mapping[str, Any]) -> str:
    """The SHA-256 (64 hex digits) of ``record`` (docs/rules.md §4) written as compact JSON with sorted keys:
    the same for the same record however its keys were ordered."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def import_match(session: Session, *, match_id: str, match: Match, imported_at: datetime,
                 decided_by: Sequence[Sequence[str] | None] = ()) -> str:
    """Insert a finished match rebuilt from a record (see ``Storage.import_record``) under ``match_id``;
    returns ``match_id``, or the id of the finished match that has the same record already (nothing is
    inserted then). ``decided_by[d]``, where given, is kept as deal d's ``decided_by`` (docs/rules.md §4)
    when a stand-in made one of its plays; the digest is that of the record without it."""
    record = to_record(match)
    digest = digest_of(record)
    for deal, given in zip(record["deals"], decided_by, strict=False):
        if given is not None and any(who != PLAYER for who in given):
            deal["decided_by"] = list(given)
    stored = session.scalars(select(MatchRow.id).where(MatchRow.record_digest == digest,
                                                       MatchRow.status == FINISHED).order_by(MatchRow.id)).first()
    if stored is not None:
        return stored
    session.add(MatchRow(
        id=match_id, room_code=None, status=FINISHED, imported=True, rules=match.rules.to_dict(),
        players=list(match.players), preset=preset_name(match.rules), started_at=imported_at,
        ended_at=imported_at, deal_count=match.deals_completed, winners=list(match.winners),
        placings=placings_of(match), record=record, record_digest=digest))
    return match_id


def active_rooms(session: Session, *, code: str | None = None) -> list[RoomSnapshot]:
    """Every room not closed (only room ``code``, if given), oldest first, with its seats and match in
    progress (record rebuilt).

    A room whose newest match is finished comes with that match instead (``finished``), so
    its final standings can be shown again.
    """
    open_room: ColumnElement[bool] = RoomRow.closed_at.is_(None)
    if code is not None:
        open_room = and_(open_room, RoomRow.code == code)
    rooms = session.scalars(select(RoomRow).where(open_room).order_by(RoomRow.created_at, RoomRow.code)).all()
    seats: dict[str, list[SeatRecord]] = {}
    for seat in session.scalars(select(SeatRow).join(RoomRow, SeatRow.room_code == RoomRow.code).where(open_room)
                                .order_by(SeatRow.room_code, SeatRow.seat)):
        seats.setdefault(seat.room_code, []).append(
            SeatRecord(seat=seat.seat, name=seat.name, token_hash=seat.token_hash, bot=seat.bot, player=seat.player,
                       stepped_away=seat.stepped_away))

    def in_progress(query: Select[Any]) -> Select[Any]:
        return query.join(RoomRow, MatchRow.room_code == RoomRow.code).where(open_room, MatchRow.status == IN_PROGRESS)

    matches: dict[str, MatchRow] = {}
    for match in session.scalars(in_progress(select(MatchRow)).order_by(MatchRow.started_at, MatchRow.id)):
        matches[match.room_code or ""] = match  # the newest wins, should there be several
    deals: dict[str, list[DealRow]] = {}
    for deal in session.scalars(in_progress(select(DealRow).join(MatchRow, DealRow.match_id == MatchRow.id))
                                .order_by(DealRow.match_id, DealRow.deal)):
        deals.setdefault(deal.match_id, []).append(deal)
    plays: dict[tuple[str, int], list[str]] = {}
    for play in session.scalars(in_progress(select(PlayRow).join(MatchRow, PlayRow.match_id == MatchRow.id))
                                .order_by(PlayRow.match_id, PlayRow.deal, PlayRow.play)):
        plays.setdefault((play.match_id, play.deal), []).append(play.card)

    newest_finished: dict[str, MatchRow] = {}
    for match in session.scalars(select(MatchRow).join(RoomRow, MatchRow.room_code == RoomRow.code)
                                 .where(open_room, MatchRow.status == FINISHED)
                                 .order_by(MatchRow.started_at, MatchRow.id)
                                 .options(undefer(MatchRow.record))):
        newest_finished[match.room_code or ""] = match

    snapshots = []
    for room in rooms:
        match = matches.get(room.code)
        finished = newest_finished.get(room.code)
        last = None
        # finish_match always stores the record; a finished match without one has nothing to show.
        if (finished is not None and finished.record is not None
                and (match is None or finished.started_at >= match.started_at)):
            last = ActiveMatch(match_id=finished.id, started_at=finished.started_at, record=finished.record)
        active = None
        if match is not None:
            record = {
                "format": FORMAT,
                "rules": match.rules,
                "players": match.players,
                "deals": [{"dealer": deal.dealer, "hands": deal.hands, "plays": plays.get((match.id, deal.deal), [])}
                          for deal in deals.get(match.id, [])],
            }
            active = ActiveMatch(match_id=match.id, started_at=match.started_at, record=record)
        snapshots.append(RoomSnapshot(code=room.code, rules=room.rules, host_token_hash=room.host_token_hash,
                                      turn_seconds=room.turn_seconds, turn_hours=room.turn_hours,
                                      slow=room.slow, wake_at=room.wake_at,
                                      created_at=room.created_at, seats=tuple(seats.get(room.code, [])),
                                      match=active, finished=last, epoch=room.epoch))
    return snapshots


def match_record(session: Session, *, match_id: str) -> dict[str, Any] | None:
    """The record of a finished match, or ``None`` if there is none (unknown, in progress, abandoned)."""
    if _cannot_hold(MatchRow.id, match_id):
        return None
    record: dict[str, Any] | None = session.scalar(
        select(MatchRow.record).where(MatchRow.id == match_id, MatchRow.status == FINISHED))
    return record


def list_matches(session: Session, *, page: int, per_page: int) -> MatchPage:
    """Page ``page`` (from 1) of the finished matches, ``per_page`` a page, newest first."""
    finished = MatchRow.status == FINISHED
    total = session.scalar(select(func.count()).select_from(MatchRow).where(finished)) or 0
    rows = session.scalars(select(MatchRow).where(finished)
                           .order_by(MatchRow.ended_at.desc(), MatchRow.id.desc())
                           .offset((page - 1) * per_page).limit(per_page))
    return MatchPage(items=tuple(map(_finished, rows)), total=total, page=page, per_page=per_page,
                     pages=max(1, -(-total // per_page)))


def finished_match(session: Session, *, match_id: str) -> FinishedMatch | None:
    """Finished match ``match_id`` as listed, or ``None`` if there is none."""
    if _cannot_hold(MatchRow.id, match_id):
        return None
    row = session.scalar(select(MatchRow).where(MatchRow.id == match_id, MatchRow.status == FINISHED))
    return None if row is None else _finished(row)


def _finished(row: MatchRow) -> FinishedMatch:
    return FinishedMatch(
        match_id=row.id, room_code=row.room_code, started_at=row.started_at, ended_at=row.ended_at or row.started_at,
        players=tuple(row.players), placings=tuple(row.placings or ()), winners=tuple(row.winners or ()),
        preset=row.preset, rules=row.rules, deals=row.deal_count or 0, imported=row.imported)


def _cannot_hold(column: InstrumentedAttribute[str], key: str) -> bool:
    # A key no database can store names nothing; looking it up would be refused (text_fault).
    return text_fault(key, column.type.length) is not None


def _abandon_room_matches(run: Session | Connection, *, room_code: str, ended_at: datetime) -> None:
    """Abandon the matches in progress at room ``room_code``, in the transaction of ``run``."""
    run.execute(update(MatchRow).where(MatchRow.room_code == room_code, MatchRow.status == IN_PROGRESS)
                .values(status=ABANDONED, ended_at=ended_at))


def _preset_of(rules: Mapping[str, Any]) -> str | None:
    try:
        return preset_name(Rules.from_dict(rules))
    except (InvalidRules, TypeError):
        return None
