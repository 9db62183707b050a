"""The lobby as a value: seating, names, bots and the host, decided without a room."""

from __future__ import annotations

import pytest

from app.common.identity import hash_token, is_player_id
from app.game.rules import Rules
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import MAX_SEATS, Lobby, Seat, Target, seat_index


def refusal(action) -> ErrorCode:
    with pytest.raises(RoomError) as refused:
        action()
    return refused.value.code


def test_the_first_person_seated_hosts_and_gets_a_token_only_its_hash_is_kept():
    lobby, token = Lobby(Rules()).joined("  Ana  ")
    assert lobby.seats == (Seat("Ana", hash_token(token), player=lobby.seats[0].player),)
    assert lobby.host == hash_token(token) and token not in repr(lobby)
    lobby, ben = lobby.joined("Ben")
    assert lobby.host != hash_token(ben) and lobby.seat_of(hash_token(ben)) == 1


def test_a_host_without_a_seat_sits_down_again_under_their_own_token_and_nobody_else_can():
    lobby, ana = Lobby(Rules()).joined("Ana")
    lobby, ben = lobby.joined("Ben")
    assert refusal(lambda: lobby.joined("Ana 2", ana)) == ErrorCode.ALREADY_SEATED  # she has a seat
    lobby = lobby.without(0)
    assert refusal(lambda: lobby.joined("Ben 2", ben)) == ErrorCode.NOT_HOST
    assert refusal(lambda: lobby.joined("Eve", "a guess")) == ErrorCode.NOT_HOST
    assert refusal(lambda: lobby.joined("ben", ana)) == ErrorCode.NAME_TAKEN
    seated, token = lobby.joined("Ana", ana)
    assert token == ana and seated.host == hash_token(ana) and seated.seat_of(hash_token(ana)) == 1


def test_names_are_checked_and_unique_without_regard_to_case():
    lobby, _ = Lobby(Rules()).joined("Ana")
    assert refusal(lambda: lobby.joined("ANA")) == ErrorCode.NAME_TAKEN
    assert refusal(lambda: lobby.joined("   ")) == ErrorCode.INVALID_NAME


def test_a_full_table_refuses_people_and_bots():
    lobby = Lobby(Rules())
    for _ in range(MAX_SEATS):
        lobby = lobby.with_bot("easy")
    assert [seat.name for seat in lobby.seats][:2] == ["Easy bot 1", "Easy bot 2"]
    assert refusal(lambda: lobby.joined("Ana")) == ErrorCode.ROOM_FULL
    assert refusal(lambda: lobby.with_bot("hard")) == ErrorCode.ROOM_FULL


def test_a_bot_takes_the_first_free_number_of_its_strength():
    lobby = Lobby(Rules()).with_bot("normal").with_bot("normal").with_bot("hard")
    lobby = lobby.without(0).with_bot("normal")
    assert [seat.name for seat in lobby.seats] == ["Normal bot 2", "Hard bot 1", "Normal bot 1"]


def test_a_bot_asked_for_at_a_number_of_seats_is_added_only_while_that_many_are_taken():
    lobby = Lobby(Rules()).joined("Ana")[0]
    lobby = lobby.with_bot("easy", seen=1)
    assert len(lobby.seats) == 2
    assert refusal(lambda: lobby.with_bot("easy", seen=1)) == ErrorCode.SEAT_CHANGED  # the same click again
    assert refusal(lambda: lobby.with_bot("easy", seen=3)) == ErrorCode.SEAT_CHANGED
    assert len(lobby.with_bot("easy", seen=2).seats) == 3


def test_every_occupant_gets_a_player_id_of_its_own():
    lobby, _ = Lobby(Rules()).joined("Ana")
    lobby, _ = lobby.joined("Ben")
    lobby = lobby.with_bot("easy")
    players = [seat.player for seat in lobby.seats]
    assert len(set(players)) == 3 and all(is_player_id(player) for player in players)
    # A new "Ana" is a new player.
    again, _ = lobby.without(0).joined("Ana")
    assert again.seats[-1].player not in players


def test_a_seat_handed_to_a_bot_keeps_its_name_and_loses_its_token_and_player():
    lobby, token = Lobby(Rules()).joined("Ana")
    lobby, _ = lobby.joined("Ben")
    handed = lobby.with_seat_to_bot(1, "hard")
    assert handed.seats[1] == Seat("Ben", None, bot="hard", player=handed.seats[1].player)
    assert handed.seats[1].player != lobby.seats[1].player and handed.seats[0] == lobby.seats[0]
    assert refusal(lambda: handed.with_seat_to_bot(1, "easy")) == ErrorCode.BAD_REQUEST


def test_host_and_seat_checks():
    lobby, token = Lobby(Rules()).joined("Ana")
    lobby.require_host(hash_token(token))
    assert refusal(lambda: lobby.require_host(None)) == ErrorCode.NOT_HOST
    assert refusal(lambda: lobby.require_seat(hash_token("stranger"))) == ErrorCode.NOT_SEATED
    assert refusal(lambda: lobby.check_seat(1)) == ErrorCode.BAD_REQUEST
    assert refusal(lambda: lobby.check_seat(-1)) == ErrorCode.BAD_REQUEST


def test_an_action_aims_at_a_player_wherever_they_sit_and_misses_once_they_are_gone():
    lobby, _ = Lobby(Rules()).joined("Ana")
    lobby, _ = lobby.joined("Ben")
    lobby, _ = lobby.joined("Cy")
    ana, ben, cy = (seat.player for seat in lobby.seats)
    assert lobby.target_seat(Target(player=cy)) == 2
    assert lobby.target_seat(Target(player=cy, seat=2)) == 2
    assert lobby.target_seat(Target(seat=1)) == 1  # the older form: whoever sits there
    moved = lobby.without(1)  # Ben leaves: Cy moves up
    assert moved.target_seat(Target(player=cy)) == 1
    assert refusal(lambda: moved.target_seat(Target(player=ben))) == ErrorCode.SEAT_CHANGED
    assert refusal(lambda: moved.target_seat(Target(player=cy, seat=2))) == ErrorCode.SEAT_CHANGED
    assert refusal(lambda: moved.target_seat(Target(player=ana, seat=1))) == ErrorCode.SEAT_CHANGED
    assert refusal(lambda: moved.target_seat(Target(seat=2))) == ErrorCode.BAD_REQUEST
    assert refusal(lambda: moved.target_seat(Target())) == ErrorCode.BAD_REQUEST


def test_the_host_hands_on_only_an_away_persons_seat():
    lobby, ana = Lobby(Rules()).joined("Ana")
    lobby, ben = lobby.joined("Ben")
    lobby = lobby.with_bot("easy")
    host = hash_token(ana)
    ben_seat, bot_seat = Target(player=lobby.seats[1].player), Target(player=lobby.seats[2].player)
    assert lobby.require_away_seat(host, ben_seat, frozenset({1})) == 1
    assert refusal(lambda: lobby.require_away_seat(host, ben_seat, frozenset())) == ErrorCode.PLAYER_PRESENT
    assert refusal(lambda: lobby.require_away_seat(host, bot_seat, frozenset({2}))) == ErrorCode.BAD_REQUEST
    assert refusal(lambda: lobby.require_away_seat(hash_token(ben), ben_seat, frozenset({1}))) == ErrorCode.NOT_HOST
    without_ben = lobby.without(1)  # the bot moves up into Ben's place
    assert refusal(lambda: without_ben.require_away_seat(host, ben_seat, frozenset({1}))) == ErrorCode.SEAT_CHANGED


def test_a_match_needs_two_to_seven_seated():
    lobby, _ = Lobby(Rules()).joined("Ana")
    assert refusal(lobby.require_players) == ErrorCode.NOT_ENOUGH_PLAYERS
    lobby.with_bot("easy").require_players()


def test_the_seat_index_finds_each_persons_seat_as_seat_of_does():
    lobby, _ = Lobby(Rules()).joined("Ana")
    lobby = lobby.with_bot("easy", None)
    lobby, ben = lobby.joined("Ben")
    index = seat_index(lobby.seats)
    for token_hash in [*(seat.token_hash for seat in lobby.seats), hash_token(ben), "x" * 64]:
        if token_hash is not None:
            assert index.get(token_hash) == lobby.seat_of(token_hash)
    assert index == {lobby.seats[0].token_hash: 0, hash_token(ben): 2}
