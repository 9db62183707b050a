"""Who may step away from their seat, or come back, and when: decided without a room."""

from __future__ import annotations

import math
import random

import pytest

from app.common.identity import hash_token
from app.game.match import deal_cards, new_match
from app.game.rules import Rules
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby
from app.rooms.presence import Presence
from app.rooms.schedule import Timing, away_seats, seat_due
from app.rooms.stepping import check_step


class Watcher:
    """A spectator's live connection, as presence sees it."""

    token_hash = None
    dropped = False


def seated() -> tuple[Lobby, str, str]:
    lobby, ana = Lobby(Rules(hand_size=3)).joined("Ana")
    lobby, ben = lobby.joined("Ben")
    return lobby, hash_token(ana), hash_token(ben)


def refusal(action) -> ErrorCode:
    with pytest.raises(RoomError) as refused:
        action()
    return refused.value.code


def playing(lobby: Lobby):
    match, _ = deal_cards(new_match([seat.name for seat in lobby.seats], lobby.rules), random.Random(1))
    return match


def test_only_a_seated_player_in_a_match_being_played_steps_away():
    lobby, ana, ben = seated()
    presence = Presence()
    assert refusal(lambda: check_step(lobby, None, presence, None, True)) == ErrorCode.NOT_SEATED
    assert refusal(lambda: check_step(lobby, None, presence, ana, True)) == ErrorCode.MATCH_NOT_STARTED
    match = playing(lobby)
    assert check_step(lobby, match, presence, ben, True) == ben
    assert refusal(lambda: check_step(lobby, match, presence, ben, False)) == ErrorCode.NOT_AWAY
    presence.step(ben, True)
    assert refusal(lambda: check_step(lobby, match, presence, ben, True)) == ErrorCode.ALREADY_AWAY
    assert check_step(lobby, match, presence, ben, False) == ben
    over = match._replace(finished=True, winners=(0,))
    assert refusal(lambda: check_step(lobby, over, presence, ben, False)) == ErrorCode.MATCH_OVER


def test_a_player_out_of_the_match_has_nothing_to_hand_over():
    lobby, ana, ben = seated()
    lobby, cy = lobby.joined("Cy")
    match = playing(lobby)._replace(lives=(2, 0, 2))
    assert refusal(lambda: check_step(lobby, match, Presence(), ben, True)) == ErrorCode.PLAYER_ELIMINATED
    assert check_step(lobby, match, Presence(), hash_token(cy), True) == hash_token(cy)


def test_a_stepped_away_seat_is_away_at_once_and_its_turn_is_due_after_the_bot_delay():
    lobby, ana, ben = seated()
    presence = Presence()
    timing = Timing(bot_delay=0.8, away_grace=60.0)
    match = playing(lobby)
    presence.attach(Watcher())  # someone watches: turns are played for
    presence.gone_from([ben], 4.0)
    presence.step(ben, True)
    # The table counts the seat gone for good; hosting and seat links still go by the real absence.
    assert presence.seat_absent_for(ben, 5.0) == math.inf and presence.absent_for(ben, 5.0) == 1.0
    assert presence.stepped_seats(lobby.seats) == frozenset({1})
    assert away_seats(presence.absences(lobby.seats, 5.0), timing) == frozenset({1})
    turn = match.turn
    match = match._replace(deal=match.deal._replace(turn=1)) if turn != 1 else match
    due = seat_due(match, lobby.seats, presence, turn_started=5.0, clock=None, now=5.3, timing=timing)
    assert due is not None and due.reason == "away" and due.delay == pytest.approx(0.5)
    presence.step(ben, False)
    assert away_seats(presence.absences(lobby.seats, 5.0), timing) == frozenset()
    presence.step(ben, True)
    presence.end_steps()
    assert not presence.stepped_away(ben)


def test_who_stepped_away_is_known_before_it_changes_and_again_after_a_rebuild():
    lobby, ana, ben = seated()
    presence = Presence()
    assert presence.after_step(ben, True) == frozenset({ben}) and presence.steps() == frozenset()
    presence.step(ben, True)
    assert presence.after_step(ben, False) == frozenset() and presence.steps() == frozenset({ben})
    rebuilt = Presence()
    rebuilt.stepped_again(presence.steps())
    assert rebuilt.stepped_away(ben) and rebuilt.stepped_seats(lobby.seats) == frozenset({1})


def test_the_record_names_who_decided_a_card_a_bot_played():
    lobby, ana, ben = seated()
    presence = Presence()
    presence.step(ben, True)
    first, second = lobby.seats
    assert presence.decider(first, "bot") == "player"
    assert presence.decider(second, "clock") == "turn_clock"
    assert presence.decider(second, "away") == "stepped_away"
    assert presence.decider(first, "away") == "away"
