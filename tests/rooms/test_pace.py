"""A slow table's pace: deadlines that stop in quiet hours (across clock changes), reminders, vacations."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from app.rooms.errors import RoomError
from app.rooms.pace import (
    NoticeFacts,
    Pace,
    QuietHours,
    is_quiet,
    notices_due,
    pace_from,
    quiet_hours_from,
    quiet_until,
    reminder_time,
    time_run_out,
    turn_deadline,
    vacation_end,
)

HOUR = 3600.0
COPENHAGEN = QuietHours(time(23, 0), time(8, 0), "Europe/Copenhagen")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize("hours", [1, 4, 12, 24, 72])
def test_a_pace_takes_the_allowed_hours(hours):
    assert pace_from({"turn_hours": hours}) == Pace(hours)
    assert pace_from({"turn_hours": float(hours)}) == Pace(hours)


@pytest.mark.parametrize("value", [{"turn_hours": 2}, {"turn_hours": "4"}, {"turn_hours": True}, {}, [],
                                   {"turn_hours": 4, "extra": 1}, 4, "slow"])
def test_any_other_pace_is_a_bad_request(value):
    with pytest.raises(RoomError) as refused:
        pace_from(value)
    assert (refused.value.code, refused.value.status) == ("bad_request", 422)


def test_no_pace_is_a_live_room():
    assert pace_from(None) is None


def test_quiet_hours_are_checked():
    assert quiet_hours_from("23:00", "08:00", "Europe/Copenhagen") == COPENHAGEN
    for start, end, zone in [("24:00", "08:00", "UTC"), ("23:00", "8:00", "UTC"), ("23:00", "23:00", "UTC"),
                             ("23:00", "08:00", "Mars/Olympus"), ("23:00", "08:00", "../etc/passwd"),
                             (None, "08:00", "UTC"), ("23:00", "08:00", 3)]:
        with pytest.raises(RoomError) as refused:
            quiet_hours_from(start, end, zone)
        assert refused.value.code == "bad_request"


def test_a_deadline_without_quiet_hours_is_the_pace_later():
    start = utc("2026-06-01T12:00:00")
    assert turn_deadline(start, Pace(4), HOUR, None) == start + timedelta(hours=4)
    assert turn_deadline(start, Pace(4), 1.0, None) == start + timedelta(seconds=4)  # slow hours scaled


def test_the_deadline_stops_through_quiet_hours():
    # Copenhagen is UTC+2 in June: quiet from 21:00 to 06:00 UTC.
    start = utc("2026-06-01T19:00:00")
    # 2 hours run before 21:00, the other 2 after 06:00 the next morning.
    assert turn_deadline(start, Pace(4), HOUR, COPENHAGEN) == utc("2026-06-02T08:00:00")


def test_a_turn_begun_in_quiet_hours_starts_running_when_they_end():
    start = utc("2026-06-01T23:30:00")
    assert turn_deadline(start, Pace(1), HOUR, COPENHAGEN) == utc("2026-06-02T07:00:00")


def test_a_long_deadline_skips_every_night():
    start = utc("2026-06-01T06:00:00")  # quiet ends: 15 hours of day, then 9 quiet, each day
    # 72 hours: four days of 15, and 12 more on the fifth.
    assert turn_deadline(start, Pace(72), HOUR, COPENHAGEN) == utc("2026-06-05T18:00:00")


def test_quiet_hours_follow_the_clock_change_in_spring():
    # On 29 March 2026 Copenhagen goes from UTC+1 to UTC+2 at 02:00 local: the night is an hour shorter.
    night = quiet_until(COPENHAGEN, utc("2026-03-29T00:00:00"))
    assert night == utc("2026-03-29T06:00:00")  # 08:00 local in summer time
    assert quiet_until(COPENHAGEN, utc("2026-03-28T22:00:00")) == night  # it began at 23:00 local, UTC+1
    assert not is_quiet(COPENHAGEN, utc("2026-03-28T21:59:00"))
    start = utc("2026-03-28T21:00:00")  # 22:00 local: an hour runs before the quiet, then from 06:00 UTC
    assert turn_deadline(start, Pace(4), HOUR, COPENHAGEN) == utc("2026-03-29T09:00:00")


def test_quiet_hours_follow_the_clock_change_in_autumn():
    # On 25 October 2026 Copenhagen goes back from UTC+2 to UTC+1: the night is an hour longer.
    assert quiet_until(COPENHAGEN, utc("2026-10-24T22:00:00")) == utc("2026-10-25T07:00:00")
    start = utc("2026-10-24T20:00:00")  # 22:00 local summer time
    assert turn_deadline(start, Pace(4), HOUR, COPENHAGEN) == utc("2026-10-25T10:00:00")


def test_quiet_hours_within_one_day():
    lunch = QuietHours(time(12, 0), time(13, 0), "UTC")
    assert is_quiet(lunch, utc("2026-06-01T12:30:00"))
    assert not is_quiet(lunch, utc("2026-06-01T13:00:00"))
    assert time_run_out(utc("2026-06-01T11:00:00"), 2 * HOUR, lunch) == utc("2026-06-01T14:00:00")


def test_the_reminder_comes_at_four_fifths_of_the_players_time():
    start = utc("2026-06-01T12:00:00")
    assert reminder_time(start, Pace(24), HOUR, None) == start + timedelta(hours=19.2)
    assert reminder_time(start, Pace(1), 10.0, None) == start + timedelta(seconds=8)
    # 3.2 hours: 1 before the quiet hours, 2.2 after they end.
    assert reminder_time(utc("2026-06-01T20:00:00"), Pace(4), HOUR, COPENHAGEN) == utc("2026-06-02T08:12:00")


def test_a_vacation_lasts_whole_slow_days():
    now = utc("2026-06-01T12:00:00")
    assert vacation_end(now, 3, HOUR) == now + timedelta(days=3)
    assert vacation_end(now, 14, 1.0) == now + timedelta(seconds=14 * 24)
    assert vacation_end(now, 0, HOUR) is None
    for days in (-1, 15, 2.5, "3", True, None):
        with pytest.raises(RoomError):
            vacation_end(now, days, HOUR)


def facts(**changes):
    start = utc("2026-06-01T12:00:00")
    given = {"started": start, "reminder": start + timedelta(hours=3.2), "deadline": start + timedelta(hours=4),
             "told": frozenset(), "connected": False, "played_for": False, "quiet": None}
    return NoticeFacts(**{**given, **changes})


def test_the_turn_is_pushed_at_once_to_a_player_not_connected():
    settled, later = notices_due(facts(), utc("2026-06-01T12:00:00"))
    assert settled == {"turn": True}
    assert later == utc("2026-06-01T15:12:00")  # the reminder


def test_nothing_is_pushed_to_a_connected_player_but_each_notice_is_settled_once():
    settled, later = notices_due(facts(connected=True), utc("2026-06-01T12:00:00"))
    assert settled == {"turn": False}
    settled, later = notices_due(facts(connected=True, told=frozenset({"turn"})), utc("2026-06-01T15:12:00"))
    assert settled == {"reminder": False} and later is None
    assert notices_due(facts(told=frozenset({"turn", "reminder"})), utc("2026-06-01T15:30:00")) == ({}, None)


def test_a_notice_due_in_quiet_hours_waits_for_their_end():
    quiet = QuietHours(time(11, 0), time(13, 0), "UTC")
    settled, later = notices_due(facts(quiet=quiet), utc("2026-06-01T12:00:00"))
    assert settled == {} and later == utc("2026-06-01T13:00:00")
    assert notices_due(facts(quiet=quiet), utc("2026-06-01T13:00:00"))[0] == {"turn": True}


def test_a_reminder_missed_while_the_server_was_down_is_sent_alone():
    settled, _ = notices_due(facts(), utc("2026-06-01T15:40:00"))
    assert settled == {"turn": False, "reminder": True}


def test_nothing_is_sent_for_a_turn_a_bot_plays_or_that_ran_out():
    assert notices_due(facts(played_for=True), utc("2026-06-01T12:00:00")) == (
        {"turn": False, "reminder": False}, None)
    assert notices_due(facts(), utc("2026-06-01T16:00:00"))[0] == {"turn": False, "reminder": False}
