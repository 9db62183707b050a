"""Seat records, match ids and token hashes."""

from __future__ import annotations

import hashlib

import pytest

from app.identity import MATCH_ID_ALPHABET, hash_token, new_match_id, token_matches
from app.storage import SeatRecord
from app.storage.values import MatchPage


def test_match_ids_are_short_readable_and_new_each_time():
    ids = {new_match_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(match_id) == 12 and set(match_id) <= set(MATCH_ID_ALPHABET) for match_id in ids)
    assert not set("01ilo") & set(MATCH_ID_ALPHABET)


def test_a_token_is_stored_as_its_sha256():
    assert hash_token("secret") == hashlib.sha256(b"secret").hexdigest()
    assert token_matches("secret", hash_token("secret"))
    assert not token_matches("Secret", hash_token("secret"))


def test_a_seat_record_holds_a_hash_never_a_token():
    seat = SeatRecord(seat=2, name="Ana", token_hash=hash_token("t"))
    assert not seat.is_bot
    assert SeatRecord(seat=0, name="Robo", bot="normal").is_bot
    with pytest.raises(ValueError, match="token_hash"):
        SeatRecord(seat=0, name="Ana", token_hash="the-token-itself")


@pytest.mark.parametrize(("seat", "bot"), [(-1, None), (True, None), (0, "brilliant")])
def test_a_seat_record_is_checked(seat, bot):
    with pytest.raises(ValueError):
        SeatRecord(seat=seat, name="X", bot=bot)


def test_a_page_knows_its_neighbours():
    page = MatchPage(items=(), total=45, page=2, per_page=20, pages=3)
    assert (page.has_previous, page.has_next) == (True, True)
