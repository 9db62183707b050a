"""Fencing on SQLite and PostgreSQL: a write under an epoch that is no longer the room's is refused, alone."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import Connection, select

from app.storage import Fence, OwnershipLost, Storage, StorageError
from app.storage.models import PlayRow, RoomOwnerRow, RoomRow
from app.storage.ownership import check_fence
from app.storage.queries import record_play
from tests.conftest import fresh_database
from tests.storage.test_store import RULES, SEATS, T0, save_room
from tests.storage.writing import done, together


def open_new_room(storage: Storage, code: str, owner: str = "one") -> Fence:
    """Store room ``code`` as a process opens it (epoch 1, ``owner`` logged); its fence."""
    fence = Fence(code, 1, owner)
    storage.save_room(code=code, rules=RULES, host_token_hash=SEATS[0].token_hash, seats=SEATS, created_at=T0,
                      new=True, fence=fence)
    return fence


def start_dealt_match(storage: Storage, fence: Fence, match_id: str) -> None:
    """A match in progress at the fence's room, with its first deal (4 players, quick)."""
    done(storage.start_match(match_id=match_id, room_code=fence.room, rules=RULES, players=["A", "B", "C", "D"],
                             started_at=T0, fence=fence))
    done(storage.record_deal(match_id=match_id, deal=0, dealer=0, hands=[["2C", "3C", "4C"], ["2D", "3D", "4D"],
                                                                         ["2H", "3H", "4H"], ["2S", "3S", "4S"]],
                             fence=fence))


def owners(storage: Storage, code: str) -> list[tuple[int, str]]:
    with storage.engine.connect() as connection:
        return [tuple(row) for row in connection.execute(
            select(RoomOwnerRow.epoch, RoomOwnerRow.owner).where(RoomOwnerRow.room_code == code)
            .order_by(RoomOwnerRow.epoch))]


def plays(storage: Storage, match_id: str) -> list[str]:
    with storage.engine.connect() as connection:
        return plays_in(connection, match_id)


def plays_in(connection: Connection, match_id: str) -> list[str]:
    return list(connection.scalars(select(PlayRow.card).where(PlayRow.match_id == match_id)
                                   .order_by(PlayRow.deal, PlayRow.play)))


def test_a_new_room_is_stored_at_epoch_one_with_its_owner(storage):
    open_new_room(storage, "ROOM1", owner="proc-a")
    assert owners(storage, "ROOM1") == [(1, "proc-a")]
    assert storage.take_room(code="ROOM1", owner="proc-b", taken_at=T0).epoch == 2
    assert storage.room_owners("ROOM1") == [(1, "proc-a"), (2, "proc-b")]


def test_taking_a_room_returns_it_whole_and_an_unknown_or_closed_one_is_not_taken(storage):
    fence = open_new_room(storage, "ROOM1")
    start_dealt_match(storage, fence, "m1")
    taken = storage.take_room(code="ROOM1", owner="two", taken_at=T0)
    assert taken is not None and taken.code == "ROOM1" and taken.match is not None
    assert [seat.name for seat in taken.seats] == ["Ana", "Ben", "Robo"]
    assert storage.take_room(code="NOSUCH", owner="two", taken_at=T0) is None
    storage.close_room(code="ROOM1", closed_at=T0, fence=Fence("ROOM1", 2, "two"))
    assert storage.take_room(code="ROOM1", owner="three", taken_at=T0) is None


def test_every_write_under_a_stale_epoch_is_refused_and_changes_nothing(storage):
    fence = open_new_room(storage, "ROOM1", owner="one")
    start_dealt_match(storage, fence, "m1")
    done(storage.record_play(match_id="m1", deal=0, play=0, card="2C", played_at=T0, fence=fence))
    storage.take_room(code="ROOM1", owner="two", taken_at=T0)

    stale = [
        lambda: done(storage.record_play(match_id="m1", deal=0, play=1, card="3D", played_at=T0, fence=fence)),
        lambda: done(storage.record_deal(match_id="m1", deal=1, dealer=1, hands=[["5C"]] * 4, fence=fence)),
        lambda: storage.save_room(code="ROOM1", rules=RULES, host_token_hash=None, seats=SEATS[:1], created_at=T0,
                                  fence=fence),
        lambda: done(storage.start_match(match_id="m2", room_code="ROOM1", rules=RULES, players=["A", "B"],
                                    started_at=T0, fence=fence)),
        lambda: done(storage.finish_match(match_id="m1", record={"deals": []}, placings=[1, 2, 3, 4], winners=[0],
                                     ended_at=T0, fence=fence)),
        lambda: storage.abandon_match(match_id="m1", ended_at=T0, fence=fence),
        lambda: storage.close_room(code="ROOM1", closed_at=T0, fence=fence),
        lambda: storage.delete_unused_room(code="ROOM1", closed_at=T0, fence=fence),
    ]
    for write in stale:
        with pytest.raises(OwnershipLost) as refused:
            write()
        assert refused.value.room == "ROOM1"
    assert plays(storage, "m1") == ["2C"]
    (snapshot,) = storage.active_rooms()
    assert snapshot.epoch == 2 and len(snapshot.seats) == 3 and snapshot.match.match_id == "m1"
    # The new owner writes on.
    done(storage.record_play(match_id="m1", deal=0, play=1, card="3D", played_at=T0,
                             fence=Fence("ROOM1", 2, "two")))
    assert plays(storage, "m1") == ["2C", "3D"]


def test_a_play_under_its_rooms_epoch_is_refused_only_for_what_it_plays(storage):
    """The play's own statement checks its fence: when it stores nothing, the fence is looked at first, then
    the play's place in its deal."""
    fence = open_new_room(storage, "ROOM1")
    start_dealt_match(storage, fence, "m1")
    done(storage.record_play(match_id="m1", deal=0, play=0, card="2C", played_at=T0, fence=fence))
    done(storage.record_play(match_id="m1", deal=0, play=0, card="2C", played_at=T0, fence=fence))  # a retry
    with pytest.raises(StorageError, match="is stored already, as 2C") as refused:
        done(storage.record_play(match_id="m1", deal=0, play=0, card="3D", played_at=T0, fence=fence))
    assert not isinstance(refused.value, OwnershipLost)
    with pytest.raises(StorageError, match="out of order"):
        done(storage.record_play(match_id="m1", deal=0, play=5, card="3D", played_at=T0, fence=fence))
    with pytest.raises(OwnershipLost):  # another room's fence
        done(storage.record_play(match_id="m1", deal=0, play=1, card="3D", played_at=T0,
                                 fence=Fence("OTHER", 1, "one")))
    storage.take_room(code="ROOM1", owner="two", taken_at=T0)
    with pytest.raises(OwnershipLost):  # a retry too, once the room has another owner
        done(storage.record_play(match_id="m1", deal=0, play=0, card="2C", played_at=T0, fence=fence))
    assert plays(storage, "m1") == ["2C"]


def test_a_stale_play_fails_alone_in_its_group_commit(storage):
    lost, kept = open_new_room(storage, "LOST1"), open_new_room(storage, "KEPT1")
    start_dealt_match(storage, lost, "m-lost")
    start_dealt_match(storage, kept, "m-kept")
    storage.take_room(code="LOST1", owner="two", taken_at=T0)
    # Submitted back to back, the three go to the writer together (or in turn: each must fare alike).
    results = together(
        storage.record_play(match_id="m-kept", deal=0, play=0, card="2C", played_at=T0, fence=kept),
        storage.record_play(match_id="m-lost", deal=0, play=0, card="2C", played_at=T0, fence=lost),
        storage.record_play(match_id="m-kept", deal=0, play=1, card="3D", played_at=T0 + timedelta(seconds=1),
                            fence=kept),
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], OwnershipLost)
    assert plays(storage, "m-kept") == ["2C", "3D"] and plays(storage, "m-lost") == []


def checked_then_played(connection: Connection, fence: Fence) -> None:
    """A write of the room after :func:`check_fence` (as every fenced write but a play makes it)."""
    check_fence(connection, fence)
    record_play(connection, match_id="m1", deal=0, play=0, card="2C", played_at=T0)


def played_under_fence(connection: Connection, fence: Fence) -> None:
    """A play whose one statement checks its fence (as the group commit makes it)."""
    record_play(connection, match_id="m1", deal=0, play=0, card="2C", played_at=T0, fence=fence)


@pytest.mark.postgres
@pytest.mark.parametrize("write", [checked_then_played, played_under_fence], ids=["checked", "one_statement"])
def test_a_room_is_taken_only_after_the_write_in_progress_commits_and_then_sees_it(tmp_path, request, write):
    """A write under the old epoch that holds the room's row makes the taker wait, and is in what it reads.

    (On SQLite writers take turns by the database's write lock, so the question does not arise.)
    """
    with fresh_database("postgres", tmp_path, request) as url, Storage(url) as storage:
        storage.upgrade()
        taken_while_writing(storage, write)


def taken_while_writing(storage: Storage, write: Callable[[Connection, Fence], None]) -> None:
    fence = open_new_room(storage, "ROOM1")
    start_dealt_match(storage, fence, "m1")
    with storage.engine.connect() as connection, connection.begin():
        write(connection, fence)
        assert plays_in(connection, "m1") == ["2C"]
        taken: list[object] = []
        taker = threading.Thread(target=lambda: taken.append(
            storage.take_room(code="ROOM1", owner="two", taken_at=T0)))
        taker.start()
        taker.join(1.0)
        assert taker.is_alive() and not taken  # waiting for the old owner's transaction
    taker.join(30)
    (snapshot,) = taken
    assert snapshot.epoch == 2 and snapshot.match.record["deals"][0]["plays"] == ["2C"]


def test_the_single_servers_lease(storage):
    until = T0 + timedelta(seconds=5)
    assert storage.server_lease() is None
    assert storage.take_server_lease(holder="a", host="h1", pid=10, now=T0, until=until)
    assert not storage.take_server_lease(holder="b", host="h1", pid=11, now=T0, until=until)
    assert storage.take_server_lease(holder="b", host="h1", pid=11, now=T0, until=until, replacing="a")
    assert not storage.renew_server_lease(holder="a", until=until)
    assert storage.renew_server_lease(holder="b", until=until + timedelta(seconds=5))
    lease = storage.server_lease()
    assert (lease.holder, lease.host, lease.pid, lease.expires_at) == ("b", "h1", 11, until + timedelta(seconds=5))
    # Once expired, anyone may take it.
    assert storage.take_server_lease(holder="c", host="h2", pid=12, now=until + timedelta(seconds=6),
                                     until=until + timedelta(seconds=11))
    storage.release_server_lease(holder="b")  # not b's any more: nothing happens
    assert storage.server_lease().holder == "c"
    storage.release_server_lease(holder="c")
    assert storage.server_lease() is None


def test_rooms_in_play_are_the_open_ones_with_a_match_in_progress(storage):
    playing, idle = open_new_room(storage, "PLAY1"), open_new_room(storage, "IDLE1")
    start_dealt_match(storage, playing, "m1")
    save_room(storage, "OLD01")
    assert idle.room not in storage.rooms_in_play()
    assert storage.rooms_in_play() == ["PLAY1"]
    with storage.engine.connect() as connection:
        assert connection.scalar(select(RoomRow.epoch).where(RoomRow.code == "OLD01")) == 0
