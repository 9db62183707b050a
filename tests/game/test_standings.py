"""Placings per seat, elimination deals and penalties per deal."""

import random

from app.game import Rules
from app.game.simulate import play_random_match
from app.game.standings import elimination_deals, penalties_per_deal, placings
from tests.game.helpers import next_deal, play_codes, start

QUICK = Rules(hand_size=3)


def three_eliminations():
    """Four players with one life each: Cy goes out in deal 0, Ben in deal 1, Ana in deal 2; Dag wins."""
    match = start("AH AD 2S", "2C 3C 3S", "4C 5C 9H", "6C 7C 8C", dealer=3, rules=QUICK, scores=(10, 12, 14, 0),
                  lives=(1, 1, 1, 1))
    stages = []
    match, _ = play_codes(match, "AH 2C 4C 6C  AD 3C 5C 7C  2S 3S 9H 8C")
    stages.append(match)
    match = next_deal(match, "2D 3D 4D", "AH AD 9H", "", "2C 3C 4C")
    match, _ = play_codes(match, "AH 2C 2D  AD 3C 3D  9H 4C 4D")
    stages.append(match)
    match = next_deal(match, "AH AD KH", "", "", "2C 3C 4C")
    match, _ = play_codes(match, "AH 2C  AD 3C  KH 4C")
    stages.append(match)
    return stages


def test_placings_follow_the_order_of_elimination():
    first, second, final = three_eliminations()
    assert final.finished and final.winners == (3,)
    assert elimination_deals(final) == [2, 1, 0, None]
    assert placings(final) == [2, 3, 4, 1]


def test_placings_of_a_match_in_progress_rank_players_still_in_by_total():
    first, second, _ = three_eliminations()
    assert first.scores == (10, 12, 23, 0)
    assert placings(first) == [2, 3, 4, 1]
    assert elimination_deals(first) == [None, None, 0, None]
    assert placings(second) == [2, 3, 4, 1]


def test_equal_standings_share_a_place():
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match = start("2C 3C 9C", "2D 3D 9D", "KH KD 8H", dealer=1, rules=rules, scores=(14, 14, 5), lives=(1, 1, 2))
    match, _ = play_codes(match, "KH 2C 2D  KD 3C 3D  8H 9C 9D")
    assert match.winners == (2,)
    assert placings(match) == [2, 2, 1]
    before = start("2C 3C 9C", "2D 3D 9D", "KH KD 8H", dealer=1, rules=rules, scores=(4, 4, 5))
    assert placings(before) == [1, 1, 3]


def test_a_reinstated_player_is_not_counted_as_eliminated():
    rules = Rules(hand_size=3, last_trick_tie="all_tied", lives=1)
    match = start("KH KD 9H", "2C 3C 9C", dealer=1, rules=rules, scores=(15, 18), lives=(1, 1))
    match, _ = play_codes(match, "KH 2C  KD 3C  9H 9C")
    assert elimination_deals(match) == [None, 0]
    assert placings(match) == [1, 2]


def test_penalties_per_deal():
    final = three_eliminations()[-1]
    assert penalties_per_deal(final) == [[0, 0, 9, 0], [0, 9, 0, 0], [13, 0, 0, 0]]
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match = start("2C 3C 9C", "2D 3D 9D", "KH KD 9H", dealer=1, rules=rules)
    match, _ = play_codes(match, "KH 2C 2D  KD 3C 3D  9H 9C 9D")
    assert penalties_per_deal(match) == [[9, 9, 9]]


def test_penalties_per_deal_with_inverse_cucumber_and_all_tied():
    rules = Rules(hand_size=3, penalty_to="lowest", last_trick_tie="all_tied")
    match = start("AH AD 2S", "2C 2D 2H", "4C 5C KS", dealer=2, rules=rules)
    match, _ = play_codes(match, "AH 2C 4C  AD 2D 5C  2S 2H KS")
    assert penalties_per_deal(match) == [[13, 13, 0]]


def test_every_seat_gets_a_place_and_the_winner_is_first():
    for seed in range(20):
        match = play_random_match(5, Rules(), random.Random(seed))
        places = placings(match)
        assert sorted(places)[0] == 1
        assert [places[seat] for seat in match.winners] == [1] * len(match.winners)
        assert all(1 <= place <= 5 for place in places)
        # Under the house rules exactly one player scores per deal, 2 to 14 points (§2.7, §2.10).
        for row in penalties_per_deal(match):
            assert len([points for points in row if points]) == 1
            assert 2 <= sum(row) <= 14
