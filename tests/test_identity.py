"""Identifiers: match and player ids short, readable and new each time; tokens kept as their hash."""

from __future__ import annotations

import hashlib

import pytest

from app.common.identity import (
    MATCH_ID_ALPHABET,
    PLAYER_ID_ALPHABET,
    hash_token,
    is_match_id,
    is_player_id,
    new_match_id,
    new_player_id,
    token_matches,
)


@pytest.mark.parametrize(("make", "length", "alphabet"), [(new_match_id, 12, MATCH_ID_ALPHABET),
                                                          (new_player_id, 10, PLAYER_ID_ALPHABET)])
def test_ids_are_short_readable_and_new_each_time(make, length, alphabet):
    ids = {make() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(made) == length and set(made) <= set(alphabet) for made in ids)
    assert not set("01ilo") & set(alphabet)


def test_ids_are_recognised_by_their_form():
    assert is_match_id(new_match_id()) and is_player_id(new_player_id())
    assert not is_match_id(new_player_id()) and not is_player_id(new_match_id())
    for text in ["", "abc", "ABCDEFGHJK", "0123456789", "k3m9q2x7ba ", "k3m9q2x7bak"]:
        assert not is_player_id(text), text


def test_a_token_is_stored_as_its_sha256():
    assert hash_token("secret") == hashlib.sha256(b"secret").hexdigest()
    assert token_matches("secret", hash_token("secret"))
    assert not token_matches("Secret", hash_token("secret"))


def test_any_text_hashes_half_a_surrogate_pair_included():
    # A JSON client can send one (an escape, "\\ud800"); it is a token nobody was given, not a failure.
    assert hash_token("\ud800") == hashlib.sha256(b"\xed\xa0\x80").hexdigest() != hash_token("")
    assert not token_matches("\ud800", hash_token(""))
