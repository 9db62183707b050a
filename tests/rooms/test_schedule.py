"""The pure schedule: when a seat is played for, who is away, and what the room's timer arms next."""

from __future__ import annotations

import math
import random

import pytest

from app.common.identity import hash_token
from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.rooms.lobby import Lobby
from app.rooms.presence import Presence
from app.rooms.schedule import (
    RETRY_SECONDS,
    Action,
    Due,
    TableFacts,
    Timing,
    TurnClock,
    TurnFacts,
    away_now,
    away_seats,
    clock_left,
    moment_of,
    next_due,
    turn_due,
)

TIMING = Timing(deal_pause=4.0, bot_delay=0.8, away_grace=60.0)


def facts(**changes) -> TableFacts:
    base = {"finish_pending": False, "playing": True, "needs_deal": False, "since_turn": 0.0, "turn": None,
            "absences": (), "host_absent": None}
    return TableFacts(**{**base, **changes})


def test_a_bot_plays_after_its_delay_counted_from_the_start_of_the_turn():
    due = turn_due(TurnFacts(bot="hard", absent_for=None, turn_for=0.3, clock=None), TIMING)
    assert due == Due(pytest.approx(0.5), "hard", "bot")


def test_a_present_person_without_a_clock_is_never_played_for():
    due = turn_due(TurnFacts(bot=None, absent_for=None, turn_for=100.0, clock=None), TIMING)
    assert math.isinf(due.delay)


def test_an_absent_person_is_played_for_once_the_grace_period_is_over():
    due = turn_due(TurnFacts(bot=None, absent_for=50.0, turn_for=50.0, clock=None), TIMING)
    assert (due.delay, due.strength, due.reason) == (pytest.approx(10.0), "normal", "away")


def test_the_clock_plays_for_a_person_when_it_runs_out_first():
    due = turn_due(TurnFacts(bot=None, absent_for=1.0, turn_for=20.0, clock=30), TIMING)
    assert (due.delay, due.reason) == (pytest.approx(10.0), "clock")


def test_nobody_is_played_for_while_nobody_at_all_is_there():
    assert turn_due(TurnFacts(bot=None, absent_for=500.0, turn_for=500.0, clock=30, anyone_here=False), TIMING) is None
    assert turn_due(TurnFacts(bot="easy", absent_for=None, turn_for=5.0, clock=None, anyone_here=False),
                    TIMING) is not None


def test_away_seats_are_those_gone_for_the_grace_period():
    assert away_seats([None, 59.9, 60.0, 200.0, None], TIMING) == frozenset({2, 3})


def test_seats_are_shown_away_only_while_a_match_is_being_played():
    lobby, _ = Lobby(Rules()).joined("Ana")
    lobby, ben = lobby.joined("Ben")
    lobby = lobby.with_bot("easy")
    presence = Presence()
    presence.gone_from([seat.token_hash for seat in lobby.seats], 0.0)
    presence.step(hash_token(ben), True)
    assert away_now(presence, lobby.seats, 59.0, TIMING, playing=True) == frozenset({1})
    assert away_now(presence, lobby.seats, 60.0, TIMING, playing=True) == frozenset({0, 1})
    assert away_now(presence, lobby.seats, 60.0, TIMING, playing=False) == frozenset()


def test_a_pending_finish_is_retried_before_anything_else():
    assert next_due(facts(finish_pending=True, needs_deal=True), TIMING) == (RETRY_SECONDS, Action.RETRY_FINISH)


def test_the_next_deal_comes_after_the_pause_counted_from_the_end_of_the_deal():
    assert next_due(facts(needs_deal=True, since_turn=1.5), TIMING) == (pytest.approx(2.5), Action.DEAL)


def test_the_earliest_of_a_play_and_an_away_mark_arms_the_timer():
    turn = Due(30.0, "normal", "clock")
    assert next_due(facts(turn=turn, absences=(55.0,)), TIMING) == (pytest.approx(5.0), Action.AUTO_PLAY)
    assert next_due(facts(turn=turn, absences=(10.0,)), TIMING) == (pytest.approx(30.0), Action.AUTO_PLAY)


def test_hosting_passes_on_after_the_grace_period_even_in_the_lobby():
    assert next_due(facts(playing=False, host_absent=45.0), TIMING) == (pytest.approx(15.0), Action.HAND_OVER_HOST)


def test_nothing_is_due_when_nothing_can_happen():
    assert next_due(facts(playing=False), TIMING) is None
    assert next_due(facts(turn=Due(float("inf"), "normal", "none")), TIMING) is None


def test_the_moment_counts_deals_from_one_and_cards_in_the_deal():
    match, _ = deal_cards(new_match(["Ana", "Ben"], Rules(hand_size=3)), random.Random(4))
    assert moment_of(match) == (1, 0)
    seat = match.turn
    match, _ = play(match, match.legal_cards(seat)[0], seat)
    assert moment_of(match) == (1, 1)


def test_the_turn_clock_starts_again_only_when_the_turn_changes():
    match, _ = deal_cards(new_match(["Ana", "Ben"], Rules(hand_size=3)), random.Random(4))
    clock = TurnClock(0.0)
    clock.note(match, 10.0)
    clock.note(match, 12.0)  # the same turn: a spectator came, say
    assert clock.started == 10.0 and clock.remaining(30, 25.0) == pytest.approx(15.0)
    seat = match.turn
    match, _ = play(match, match.legal_cards(seat)[0], seat)
    clock.note(match, 26.0)
    assert clock.started == 26.0 and clock.remaining(None, 27.0) is None
    assert clock.remaining(5, 40.0) == 0.0


def test_the_clock_runs_for_a_person_to_play_only():
    match, _ = deal_cards(new_match(["Ana", "Ben"], Rules(hand_size=3)), random.Random(4))
    lobby, _ = Lobby(Rules()).joined("Ana")
    people, robots = lobby.joined("Ben")[0].seats, lobby.with_bot("easy").seats
    clock = TurnClock(10.0)
    assert clock_left(match, people, clock, 30, 25.0) == pytest.approx(15.0)
    assert clock_left(match, people, clock, None, 25.0) is None
    assert clock_left(None, people, clock, 30, 25.0) is None
    assert clock_left(match._replace(finished=True, winners=(0,)), people, clock, 30, 25.0) is None
    bots_turn = match if match.turn == 1 else match._replace(deal=match.deal._replace(turn=1))
    assert clock_left(bots_turn, robots, clock, 30, 25.0) is None

