"""Each connection's message budgets: kinds, allowances, refill, refusal, the hard cap, the settings."""

from __future__ import annotations

import json

import pytest

from app.config.settings import Settings
from app.rooms.credits import Allowance, Bucket, Credits, Kind, Verdict, allowances, kind_of
from app.rooms.messages import ProtocolError, parse_message

ALLOWED, REFUSED, CLOSE = Verdict.ALLOWED, Verdict.REFUSED, Verdict.CLOSE


def kind(message: dict) -> Kind:
    return kind_of(parse_message(json.dumps(message), 4096))


@pytest.mark.parametrize(("message", "expected"), [
    ({"type": "play", "card": "9C"}, Kind.PLAYS),
    ({"type": "start"}, Kind.HOST),
    ({"type": "set_rules", "preset": "quick"}, Kind.HOST),
    ({"type": "add_bot"}, Kind.HOST),
    ({"type": "hand_to_bot", "seat": 1}, Kind.HOST),
    ({"type": "remove", "seat": 1}, Kind.HOST),
    ({"type": "set_clock", "seconds": 30}, Kind.HOST),
    ({"type": "leave"}, Kind.HOST),
    ({"type": "sync"}, Kind.SYNCS),
    ({"type": "heartbeat"}, Kind.HEARTBEATS),
    ({"type": "hello"}, Kind.OTHER),
])
def test_each_message_draws_on_the_budget_of_its_kind(message, expected):
    assert kind(message) == expected


def test_a_frame_that_is_not_a_message_draws_on_everything_else():
    with pytest.raises(ProtocolError) as problem:
        parse_message('{"type": "dance"}', 4096)
    assert kind_of(problem.value) == Kind.OTHER


def test_an_allowance_is_one_in_the_limits_notation_and_empty_is_none():
    assert Allowance.parse("30/minute") == Allowance(30, 60.0)
    assert Allowance.parse("20/10 seconds") == Allowance(20, 10.0)
    assert Allowance.parse("") is None and Allowance.parse("  ") is None
    for text in ("5/second;100/minute", "many"):
        with pytest.raises(ValueError):
            Allowance.parse(text)


def spend(bucket: Bucket, count: int, now: float = 0.0, close_after: float = 3) -> list[Verdict]:
    return [bucket.spend(now, close_after) for _ in range(count)]


def test_a_burst_gets_its_allowance_then_refusals_then_past_three_times_it_the_close():
    bucket = Bucket(Allowance(5, 60.0), now=0.0)
    assert spend(bucket, 16) == [ALLOWED] * 5 + [REFUSED] * 10 + [CLOSE]


def test_the_budget_refills_bit_by_bit_up_to_the_allowance():
    bucket = Bucket(Allowance(5, 10.0), now=0.0)  # one message every 2 s
    assert spend(bucket, 5) == [ALLOWED] * 5
    assert spend(bucket, 1, now=1.0) == [REFUSED]  # half a message refilled, less one refused
    assert spend(bucket, 1, now=5.0) == [ALLOWED]  # 4 s later: two more, less the debt of the refused one
    assert spend(bucket, 1, now=5.0) == [REFUSED]
    assert spend(bucket, 7, now=1000.0) == [ALLOWED] * 5 + [REFUSED] * 2  # never more than the allowance


def test_a_client_that_keeps_sending_while_refused_stays_refused_and_is_closed():
    bucket = Bucket(Allowance(10, 10.0), now=0.0)  # one message a second
    verdicts = [bucket.spend(moment / 2, 3) for moment in range(200)]  # two a second, for ever
    assert verdicts[:10] == [ALLOWED] * 10
    assert CLOSE in verdicts
    assert verdicts.index(CLOSE) > 10


def test_a_client_at_the_allowed_pace_is_never_refused():
    bucket = Bucket(Allowance(20, 10.0), now=0.0)  # the heartbeat default: two a second
    assert {bucket.spend(moment * 0.5, 3) for moment in range(100_000)} == {ALLOWED}


def test_without_a_hard_cap_refusals_leave_no_debt_and_nothing_is_closed():
    bucket = Bucket(Allowance(2, 10.0), now=0.0)
    assert spend(bucket, 100, close_after=0) == [ALLOWED] * 2 + [REFUSED] * 98
    assert spend(bucket, 2, now=5.0, close_after=0) == [ALLOWED, REFUSED]


def test_a_hard_cap_of_one_closes_at_the_first_message_over():
    assert spend(Bucket(Allowance(3, 60.0), now=0.0), 4, close_after=1) == [ALLOWED] * 3 + [CLOSE]


def test_each_kind_has_its_own_budget_and_a_kind_without_one_is_never_refused():
    credits = Credits({Kind.SYNCS: Allowance(2, 60.0), Kind.PLAYS: Allowance(1, 60.0)}, 3, now=0.0)
    assert [credits.spend(Kind.SYNCS, 0.0) for _ in range(3)] == [ALLOWED, ALLOWED, REFUSED]
    assert credits.spend(Kind.PLAYS, 0.0) == ALLOWED
    assert {credits.spend(Kind.HEARTBEATS, 0.0) for _ in range(1000)} == {ALLOWED}


def test_the_settings_give_each_kind_its_allowance_or_none():
    assert allowances(Settings()) == {Kind.PLAYS: Allowance(60, 10.0), Kind.HOST: Allowance(30, 60.0),
                                      Kind.SYNCS: Allowance(30, 60.0), Kind.HEARTBEATS: Allowance(20, 10.0),
                                      Kind.OTHER: Allowance(20, 60.0)}
    assert Kind.SYNCS not in allowances(Settings(limit_socket_syncs=""))
    assert allowances(Settings(rate_limits=False)) == {}


def test_a_per_connection_limit_must_be_one_allowance():
    for text in ("5/second;100/minute", "often"):
        with pytest.raises(ValueError, match="limit_socket_plays"):
            Settings(limit_socket_plays=text)


def test_the_defaults_leave_room_for_a_page_at_its_fastest_heartbeat_and_a_quick_player():
    """A page beats every second at the shortest (away grace 3 s), plays a card a second, and
    syncs or changes the table now and then: nothing of it is ever refused."""
    credits = Credits(allowances(Settings()), Settings().socket_close_after, now=0.0)
    for second in range(3600):
        assert credits.spend(Kind.HEARTBEATS, second) == ALLOWED
        assert credits.spend(Kind.PLAYS, second + 0.5) == ALLOWED
        if second % 10 == 0:
            assert credits.spend(Kind.SYNCS, second + 0.2) == ALLOWED
            assert credits.spend(Kind.HOST, second + 0.3) == ALLOWED
            assert credits.spend(Kind.OTHER, second + 0.4) == ALLOWED
