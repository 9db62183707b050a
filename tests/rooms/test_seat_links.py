"""Seat links as values: which seat a link may move, and pending links that work once, for a while."""

from __future__ import annotations

import pytest

from app.common.identity import hash_token
from app.game.rules import Rules
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby, Target
from app.rooms.seat_links import LinkKind, SeatLinks, link_seat

DEVICE, SEAT = LinkKind.DEVICE, LinkKind.SEAT


@pytest.fixture
def table() -> tuple[Lobby, str, str]:
    """Ana (host), Ben and a bot; returns the lobby and Ana's and Ben's token hashes."""
    lobby, ana = Lobby(Rules()).joined("Ana")
    lobby, ben = lobby.joined("Ben")
    return lobby.with_bot("easy"), hash_token(ana), hash_token(ben)


def refusal(action) -> ErrorCode:
    with pytest.raises(RoomError) as refused:
        action()
    return refused.value.code


def test_a_player_gets_a_link_for_their_own_seat_only(table):
    lobby, ana, ben = table
    assert link_seat(lobby, ben, DEVICE, None, frozenset()) == 1
    assert link_seat(lobby, ana, DEVICE, Target(player=lobby.seats[1].player), frozenset()) == 0  # target ignored
    assert refusal(lambda: link_seat(lobby, hash_token("stranger"), DEVICE, None, frozenset())) == ErrorCode.NOT_SEATED
    assert refusal(lambda: link_seat(lobby, None, DEVICE, None, frozenset())) == ErrorCode.NOT_SEATED


def test_the_host_gets_a_link_for_an_away_persons_seat_only(table):
    lobby, ana, ben = table
    ben_seat, bot_seat = Target(player=lobby.seats[1].player), Target(player=lobby.seats[2].player)
    assert link_seat(lobby, ana, SEAT, ben_seat, frozenset({1})) == 1
    assert refusal(lambda: link_seat(lobby, ana, SEAT, ben_seat, frozenset())) == ErrorCode.PLAYER_PRESENT
    assert refusal(lambda: link_seat(lobby, ana, SEAT, bot_seat, frozenset({2}))) == ErrorCode.BAD_REQUEST
    assert refusal(lambda: link_seat(lobby, ben, SEAT, ben_seat, frozenset({1}))) == ErrorCode.NOT_HOST
    assert refusal(lambda: link_seat(lobby, ana, SEAT, None, frozenset({1}))) == ErrorCode.BAD_REQUEST


def test_a_link_works_once_for_its_lifetime_and_a_new_one_replaces_it(table):
    lobby, _, _ = table
    links = SeatLinks(lifetime=600)
    first = links.issue(DEVICE, "ROOM1", 1, lobby.seats[1], now=100.0)
    assert (first.kind, first.room, first.seat, first.player, first.name, first.lifetime) == (
        DEVICE, "ROOM1", 1, lobby.seats[1].player, "Ben", 600)
    assert links.find(first.secret, 699.9) is not None
    assert links.find(first.secret, 700.0) is None  # expired
    second = links.issue(DEVICE, "ROOM1", 1, lobby.seats[1], now=200.0)
    assert second.secret != first.secret
    assert links.find(first.secret, 201.0) is None  # replaced
    other = links.issue(SEAT, "ROOM1", 0, lobby.seats[0], now=200.0)
    assert links.find(second.secret, 201.0).player == lobby.seats[1].player
    links.forget(lobby.seats[1].player)
    assert links.find(second.secret, 201.0) is None and links.find(other.secret, 201.0) is not None
    assert links.find("not a secret", 201.0) is None


def test_opening_a_link_moves_the_seat_to_a_new_token(table):
    lobby, ana, ben = table
    links = SeatLinks(lifetime=600)
    own = links.issue(DEVICE, "ROOM1", 1, lobby.seats[1], now=0.0)
    move = links.open(own.secret, lobby, 1.0, away=frozenset())  # a device link needs no absence
    assert move.seat == 1 and move.player == lobby.seats[1].player  # the same player on another device
    assert move.lobby.seats[1].token_hash == hash_token(move.token) != ben
    assert (move.old_token_hash, move.old_player) == (ben, lobby.seats[1].player)
    assert move.lobby.seats[1].name == "Ben" and move.lobby.host == ana
    assert links.find(own.secret, 1.0) is not None  # spent only once the room forgets it, after storing the move

    given = links.issue(SEAT, "ROOM1", 1, lobby.seats[1], now=0.0)
    assert refusal(lambda: links.open(given.secret, lobby, 1.0, away=frozenset({0}))) == ErrorCode.PLAYER_PRESENT
    move = links.open(given.secret, lobby, 1.0, away=frozenset({1}))
    assert move.player != lobby.seats[1].player and move.lobby.seats[1].name == "Ben"  # someone new
    assert "host gave your seat" in str(move.notice)


def test_a_link_does_not_open_once_its_seat_changed_hands_or_it_expired(table):
    lobby, _, _ = table
    links = SeatLinks(lifetime=600)
    link = links.issue(DEVICE, "ROOM1", 1, lobby.seats[1], now=0.0)
    assert refusal(lambda: links.open(link.secret, lobby.without(1), 1.0, frozenset({1}))) == ErrorCode.INVALID_LINK
    assert refusal(lambda: links.open(link.secret, lobby.with_seat_to_bot(1, "easy"), 1.0, frozenset({1}))) == (
        ErrorCode.INVALID_LINK)
    assert refusal(lambda: links.open(link.secret, lobby, 600.0, frozenset({1}))) == ErrorCode.INVALID_LINK


def test_hosting_goes_with_a_moved_seat(table):
    lobby, ana, _ = table
    moved, token = lobby.with_seat_moved(0, new_player=False)
    assert moved.host == hash_token(token) == moved.seats[0].token_hash
    assert moved.seats[0].player == lobby.seats[0].player
    assert moved.seats[1:] == lobby.seats[1:]
    assert refusal(lambda: lobby.with_seat_moved(2, new_player=True)) == ErrorCode.BAD_REQUEST  # a bot's seat
