"""Seat records and pages of matches: the values storage takes and gives."""

from __future__ import annotations

import pytest

from app.common.identity import hash_token
from app.storage import SeatRecord
from app.storage.values import MatchPage


def test_a_seat_record_holds_a_hash_never_a_token():
    seat = SeatRecord(seat=2, name="Ana", token_hash=hash_token("t"), player="ana2345678")
    assert not seat.is_bot
    assert SeatRecord(seat=0, name="Robo", bot="normal", player="r2b2345678").is_bot
    with pytest.raises(ValueError, match="token_hash"):
        SeatRecord(seat=0, name="Ana", token_hash="the-token-itself", player="ana2345678")


@pytest.mark.parametrize(("seat", "bot", "player"), [
    (-1, None, "x234567890"), (True, None, "x234567890"), (0, "brilliant", "x234567890"),
    (0, None, "Ana"), (0, None, "a" * 11), (0, None, 1234567890), (0, None, "o234567890"),
])
def test_a_seat_record_is_checked(seat, bot, player):
    with pytest.raises(ValueError):
        SeatRecord(seat=seat, name="X", bot=bot, player=player)


def test_only_a_persons_seat_is_stepped_away_from():
    ana = {"seat": 0, "name": "Ana", "token_hash": hash_token("t"), "player": "ana2345678"}
    assert SeatRecord(**ana, stepped_away=True).stepped_away and not SeatRecord(**ana).stepped_away
    for nobody in ({"bot": "normal"}, {}, {"token_hash": hash_token("t"), "bot": "easy"}):
        with pytest.raises(ValueError, match="stepped away"):
            SeatRecord(seat=0, name="X", player="x234567892", stepped_away=True, **nobody)
    with pytest.raises(ValueError, match="stepped_away"):
        SeatRecord(**ana, stepped_away=1)


def test_a_page_knows_its_neighbours():
    page = MatchPage(items=(), total=45, page=2, per_page=20, pages=3)
    assert (page.has_previous, page.has_next) == (True, True)
