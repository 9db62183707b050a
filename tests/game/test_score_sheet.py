"""The score sheet: each completed deal's penalties, totals, lives and eliminations."""

import random

import pytest

from app.game import PRESETS, Rules, new_match
from app.game.score_sheet import score_sheet
from app.game.simulate import play_random_match
from app.game.standings import penalties_per_deal
from tests.game.helpers import cards, next_deal, play_codes, start


def test_a_lost_life_and_an_elimination_are_on_the_sheet():
    rules = Rules(hand_size=3, threshold=10)
    match = start("2C 3C KH", "4D 5D 6D", dealer=1, rules=rules)
    assert score_sheet(match) == ()
    match, _ = play_codes(match, "2C 4D  5D 3C  6D KH")
    (first,) = score_sheet(match)
    assert (first.number, first.dealer, first.trick_winner) == (1, 1, 0)
    assert first.last_trick == tuple(zip((1, 0), cards("6D KH"), strict=True))
    # Ana paid 13, crossed 10 and lost a life: her total became Ben's, 0 (docs/rules.md §2.8).
    assert (first.penalties, first.totals, first.lives) == ((13, 0), (0, 0), (1, 2))
    assert (first.lives_lost, first.eliminated) == ((0,), ())

    match = next_deal(match, "5H 6H AS", "2C 3C 4C")
    match, _ = play_codes(match, "2C 5H  6H 3C  AS 4C")
    assert match.finished and match.winners == (1,)
    first_again, second = score_sheet(match)
    assert first_again == first
    assert (second.number, second.dealer, second.trick_winner) == (2, 0, 0)
    assert (second.penalties, second.totals, second.lives) == ((14, 0), (14, 0), (0, 2))
    assert (second.lives_lost, second.eliminated) == ((0,), (0,))


@pytest.mark.parametrize(("lives", "needed", "left", "lost"), [
    (1, 1, (1, 1), ()),  # both out, both kept in on the one life they had: no life was taken
    (2, 2, (1, 1), (0, 1)),  # both out for want of others, kept in on one of their two lives: one was taken
    (2, 1, (1, 1), (0, 1)),  # both lose a life the ordinary way
])
def test_with_all_tied_a_life_lost_is_only_a_life_actually_taken(lives, needed, left, lost):
    # docs/rules.md §3, settled cases: a tie on the last trick takes both past the threshold in one deal.
    rules = Rules(hand_size=3, threshold=10, last_trick_tie="all_tied", lives=lives, second_life_min_opponents=needed)
    match = start("9H 9D KH", "2C 3C KC", dealer=1, rules=rules)
    match, _ = play_codes(match, "9H 2C  9D 3C  KH KC")
    (line,) = score_sheet(match)
    assert line.penalties == (13, 13) and line.lives == left == match.lives
    assert (line.lives_lost, line.eliminated) == (lost, ())
    assert not match.finished


def test_a_deal_in_progress_is_not_on_the_sheet():
    match = start("2C 3C KH", "4D 5D 6D", dealer=1, rules=Rules(hand_size=3))
    match, _ = play_codes(match, "2C 4D  5D 3C  6D")
    assert score_sheet(match) == ()


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("seed", range(6))
def test_the_sheet_agrees_with_the_match_it_comes_from(name, seed):
    rng = random.Random(seed)
    rules = PRESETS[name]
    if seed % 2:
        rules = Rules.from_dict({**rules.to_dict(), "last_trick_tie": "all_tied", "lives": 1 + seed % 3,
                                 "penalty_to": "lowest" if seed % 3 else "highest"})
    match = play_random_match(2 + seed % 6, rules, rng)
    sheet = score_sheet(match)
    assert len(sheet) == match.deals_completed
    assert [list(line.penalties) for line in sheet] == penalties_per_deal(match)
    assert sheet[-1].totals == match.scores and sheet[-1].lives == match.lives
    lives = (rules.lives,) * match.seat_count
    out = set()
    for line, deal in zip(sheet, match.history, strict=True):
        assert line.dealer == deal.dealer and line.last_trick == deal.current_trick()
        assert set(line.lives_lost) == {seat for seat in range(match.seat_count) if line.lives[seat] < lives[seat]}
        assert set(line.eliminated) <= set(line.lives_lost)
        out |= set(line.eliminated)
        lives = line.lives
    assert out == {seat for seat in range(match.seat_count) if match.lives[seat] == 0}


def test_a_new_match_has_an_empty_sheet():
    assert score_sheet(new_match(["Ana", "Ben"])) == ()
