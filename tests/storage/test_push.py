"""Web Push in the database: one VAPID key pair, and at most five subscriptions a seat, one per room and
endpoint."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.storage import Storage, StorageError
from app.storage.push import MAX_PER_SEAT

T0 = datetime(2026, 12, 6, 8, 0, tzinfo=UTC)
SEAT, OTHER = "a" * 64, "b" * 64
P256DH = "B" + "A" * 86
AUTH = "A" * 22


def keep(storage: Storage, endpoint: str, *, seat: str = SEAT, room: str = "K7QXM", minutes: int = 0,
         language: str = "en") -> None:
    storage.keep_push_subscription(room_code=room, token_hash=seat, endpoint=endpoint, p256dh=P256DH, auth=AUTH,
                                   language=language, now=T0 + timedelta(minutes=minutes))


def endpoints(storage: Storage, seat: str = SEAT, room: str = "K7QXM") -> list[str]:
    return [record.endpoint for record in storage.push_subscriptions(room_code=room, token_hash=seat)]


def test_the_first_key_pair_kept_is_everyones(storage):
    assert storage.vapid_keys() is None
    assert storage.keep_vapid_keys(private_key="p1", public_key="k1", created_at=T0) == ("p1", "k1")
    assert storage.keep_vapid_keys(private_key="p2", public_key="k2", created_at=T0) == ("p1", "k1")
    assert storage.vapid_keys() == ("p1", "k1")


def test_a_subscription_is_kept_renewed_and_moved_to_the_seat_that_sends_it(storage):
    keep(storage, "https://push/1")
    keep(storage, "https://push/1", minutes=5, language="da")  # renewed
    [record] = storage.push_subscriptions(room_code="K7QXM", token_hash=SEAT)
    assert (record.language, record.renewed_at) == ("da", T0 + timedelta(minutes=5))
    keep(storage, "https://push/1", seat=OTHER, minutes=6)  # the browser now sits at another seat
    assert endpoints(storage) == [] and endpoints(storage, OTHER) == ["https://push/1"]
    keep(storage, "https://push/1", room="ABCDE", minutes=7)  # and the same browser at another table
    assert endpoints(storage, room="ABCDE") == ["https://push/1"] and endpoints(storage, OTHER) == ["https://push/1"]


def test_a_seat_keeps_its_latest_subscriptions(storage):
    for minute in range(MAX_PER_SEAT + 2):
        keep(storage, f"https://push/{minute}", minutes=minute)
    assert endpoints(storage) == [f"https://push/{minute}" for minute in range(MAX_PER_SEAT + 1, 1, -1)]


def test_subscriptions_are_deleted_one_by_seat_by_room_and_when_stale(storage):
    keep(storage, "https://push/1")
    keep(storage, "https://push/2", minutes=1)
    keep(storage, "https://push/3", seat=OTHER, minutes=2)
    keep(storage, "https://push/4", room="ABCDE", minutes=3)
    assert storage.delete_push_subscription(room_code="K7QXM", endpoint="https://push/1", token_hash=OTHER) == 0
    assert storage.delete_push_subscription(room_code="K7QXM", endpoint="https://push/1", token_hash=SEAT) == 1
    assert storage.delete_push_subscription(room_code="K7QXM", endpoint="https://push/1") == 0
    assert storage.delete_seat_subscriptions(room_code="K7QXM", token_hash=SEAT) == 1
    assert storage.forget_stale_subscriptions(renewed_before=T0 + timedelta(minutes=3)) == 1  # push/3
    assert storage.delete_room_subscriptions(room_code="ABCDE") == 1
    assert storage.delete_room_subscriptions(room_code="K7QXM") == 0


def test_an_endpoint_too_long_to_store_is_refused_by_every_database(storage):
    with pytest.raises(StorageError):
        keep(storage, "https://push/" + "x" * 2000)
    assert endpoints(storage) == []
