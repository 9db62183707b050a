"""The estimated share of the win that the search maximises (docs/rules.md §2.8, §2.10)."""

import pytest

from app.bots.value import win_share
from app.game.match import new_match
from app.game.rules import Rules


def position(scores, lives, rules=None, winners=()):
    match = new_match([f"P{seat}" for seat in range(len(scores))], rules or Rules())
    return match._replace(scores=tuple(scores), lives=tuple(lives), winners=tuple(winners),
                          finished=bool(winners))


def test_a_finished_match_gives_the_real_share():
    match = position([3, 25, 8], [1, 0, 1], winners=(0, 2))
    assert win_share(match, 0) == 0.5
    assert win_share(match, 1) == 0.0


def test_an_eliminated_player_has_no_share():
    assert win_share(position([5, 30, 8], [2, 0, 1]), 1) == 0.0


def test_shares_of_active_players_add_up_to_one():
    match = position([5, 30, 8, 20], [2, 0, 1, 2])
    assert sum(win_share(match, seat) for seat in range(4)) == pytest.approx(1.0)


def test_fewer_points_and_more_lives_are_better():
    match = position([0, 15, 15], [2, 2, 1])
    assert win_share(match, 0) > win_share(match, 1) > win_share(match, 2)


def test_equal_positions_share_equally():
    assert win_share(position([7, 7], [2, 2]), 0) == pytest.approx(0.5)
