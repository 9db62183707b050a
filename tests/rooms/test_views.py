"""What of a room the views offer each viewer, decided without a room."""

from __future__ import annotations

import pytest

from app.rooms.views import SeatInfo, host_controls


def seat(**facts) -> SeatInfo:
    """Ben's seat in a match: a person, connected and not away, unless ``facts`` say otherwise."""
    shown = {"seat": 1, "name": "Ben", "score": 0, "lives": 2, "eliminated": False, "is_dealer": False,
             "is_turn": False, "cards_left": 5, "played": (), "player": "p1", "bot": None, "is_host": False,
             "is_you": False, "connected": True, "away": False}
    return SeatInfo(**{**shown, **facts})


@pytest.mark.parametrize(("facts", "controls"), [
    ({}, None),
    ({"connected": False}, None),  # only just gone: the server refuses to hand the seat on until the grace is over
    ({"connected": False, "away": True}, "hand"),
    ({"away": True, "stepped_away": True}, "hand"),  # stepped away by choice, the page still open
    ({"connected": False, "away": True, "eliminated": True}, None),
    ({"bot": "easy", "away": False}, None),
])
def test_the_host_is_offered_a_seat_to_hand_on_only_when_the_server_would_hand_it_on(facts, controls):
    assert host_controls("playing", seat(**facts), host=True, own=False) == controls
    assert host_controls("playing", seat(**facts), host=False, own=False) is None
    assert host_controls("playing", seat(**facts), host=True, own=True) is None  # a host who stepped away


def test_out_of_a_match_the_host_may_remove_any_seat_but_their_own():
    assert host_controls("lobby", seat(), host=True, own=False) == "remove"
    assert host_controls("finished", seat(), host=True, own=True) is None
    assert host_controls("lobby", seat(), host=False, own=False) is None
