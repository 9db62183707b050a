"""Matches between random-legal players: complete, legal, seeded and uniform."""

import random
from collections import Counter

import pytest

from app.game import PRESETS, Rules, deal_cards, play_out_deal, replay, to_record
from app.game.simulate import play_random_match, random_legal_card
from tests.game.helpers import play_codes, start, table

QUICK = Rules(hand_size=3)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 5, 7])
def test_a_random_match_is_complete_and_every_play_was_legal(name, players):
    match = play_random_match(players, PRESETS[name], random.Random(players))
    assert match.finished and match.winners
    assert match.players == tuple(f"P{seat + 1}" for seat in range(players))
    assert all(deal.is_complete for deal in match.history)
    # Replaying through the checked, card-by-card path accepts every card.
    assert replay(to_record(match)) == match


def test_players_may_be_named():
    match = play_random_match(["Ana", "Ben"], Rules(), random.Random(0))
    assert match.players == ("Ana", "Ben")


def test_the_same_seed_gives_the_same_match():
    first = play_random_match(4, Rules(), random.Random(42))
    assert play_random_match(4, Rules(), random.Random(42)) == first
    assert play_random_match(4, Rules(), random.Random(43)) != first


def test_random_legal_card_is_legal_and_uniform():
    match, _ = play_codes(start("9C 7D 4S", "KH AS 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    rng = random.Random(1)
    counts = Counter(random_legal_card(match, rng).code for _ in range(3000))
    assert set(counts) == {"2S", "KH", "AS"}
    assert all(850 <= count <= 1150 for count in counts.values()), counts


def test_random_legal_card_needs_someone_to_play():
    with pytest.raises(ValueError):
        random_legal_card(table(3), random.Random(0))
    match = play_random_match(3, QUICK, random.Random(0))
    with pytest.raises(ValueError):
        random_legal_card(match, random.Random(0))


def chosen_by(match, seat_plays, samples):
    """How often each card was the ``seat_plays``-th card of the deal over seeded random play-outs."""
    return Counter(play_out_deal(match, rng=random.Random(seed))[0].deal.plays[seat_plays].code
                   for seed in range(samples))


def test_play_out_deal_picks_a_follower_card_uniformly_among_the_legal_ones():
    # Ben follows Ana's 9C holding 2D 2S KH AS: all four are legal (two lowest, two high).
    match = start("9C 7D 4S 3C", "2D 2S KH AS", "9H 8C 3D 5C", dealer=2, rules=Rules(hand_size=4))
    match, _ = play_codes(match, "9C")
    counts = chosen_by(match, 1, 2000)
    assert set(counts) == {"2D", "2S", "KH", "AS"}
    assert all(400 <= count <= 600 for count in counts.values()), counts


def test_play_out_deal_picks_a_follower_card_uniformly_from_the_start_of_a_trick():
    # Whichever nine Ana leads, Ben may play any of his four cards.
    match = start("9C 9D 9H 9S", "2D 2S KH AS", "3C 4C 5C 6C", dealer=2, rules=Rules(hand_size=4))
    counts = chosen_by(match, 1, 2000)
    assert set(counts) == {"2D", "2S", "KH", "AS"}
    assert all(400 <= count <= 600 for count in counts.values()), counts


def test_play_out_deal_picks_the_lead_uniformly():
    match = start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    counts = chosen_by(match, 0, 1500)
    assert set(counts) == {"9C", "7D", "4S"}
    assert all(400 <= count <= 600 for count in counts.values()), counts


def test_play_out_deal_never_picks_an_illegal_card():
    # Ben may not play 6D on a 9 under the house rules, nor anything but KH under must_match.
    for rules, allowed in ((QUICK, {"2S", "KH"}), (Rules(hand_size=3, follow="must_match"), {"KH"})):
        match, _ = play_codes(start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=rules), "9C")
        assert {play_out_deal(match, rng=random.Random(seed))[0].deal.plays[1].code for seed in range(200)} == allowed


def test_deal_cards_deals_every_card_with_equal_chance():
    counts = Counter()
    for seed in range(600):
        match, _ = deal_cards(table(2, QUICK), random.Random(seed))
        counts.update(card.code for card in match.hand(0))
    # 600 deals of 3 cards among 52: about 34.6 each
    assert len(counts) == 52
    assert all(12 <= count <= 62 for count in counts.values()), counts
