"""Match transitions, scenario by scenario: the house rules (docs/rules.md §2) and every option of §3.

Scenarios are written in card codes. Unless said otherwise there are three
players, Ana (seat 0), Ben (1) and Cy (2). Many scenarios use 3-card hands
(``QUICK``): the rule under test does not depend on the hand size, and the
deals stay short enough to read.
"""

import copy
import random
from collections import Counter

import pytest

from app.game import (
    Card,
    CardNotInHand,
    DealInProgress,
    DealNotStarted,
    IllegalPlay,
    InvalidCard,
    InvalidDeal,
    InvalidMatch,
    MatchOver,
    NotYourTurn,
    Refusal,
    Rules,
    deal_cards,
    deal_hands,
    new_match,
    play,
    play_out_deal,
)
from app.game.events import (
    CardPlayed,
    DealEnded,
    DealStarted,
    LifeLost,
    MatchWon,
    PenaltyScored,
    PlayerEliminated,
    PlayerReinstated,
    TrickWon,
)
from tests.game.helpers import cards, events_of, hand, next_deal, play_codes, start, table

QUICK = Rules(hand_size=3)

# A whole 7-card deal under the house rules whose last trick is the worked
# example of docs/rules.md §2: Ana leads 9C, Ben plays 2S, Cy plays 9H. Cy deals,
# so Ana leads the first trick.
EXAMPLE_HANDS = ("4S 5S 6C 7S 9C QC AH", "2S 5C 6D 8S KC AC AD", "2C 4D 5D 7C 7H 9H JC")
EXAMPLE_PLAYS = "6C 6D 2C  AD 4D 4S  AC 5D AH  7S KC 7H  8S 7C 5S  5C JC QC  9C 2S 9H"


def refused(match, action, error):
    """Run ``action(match)``, expect ``error``, and check the match is exactly as it was."""
    before = copy.deepcopy(match)
    with pytest.raises(error) as caught:
        action(match)
    assert match == before
    return caught.value


def finish_deal(match, rng=None):
    """Play out the current deal with random legal cards."""
    match, _ = play_out_deal(match, rng=rng or random.Random(0))
    return match


# ---------------------------------------------------------------------------
# §2.1 Start


def test_a_match_starts_everyone_on_zero_points_with_two_lives():
    match = new_match(["Ana", "Ben", "Cy"])
    assert match.scores == (0, 0, 0)
    assert match.lives == (2, 2, 2)
    assert match.players == ("Ana", "Ben", "Cy")
    assert match.dealer is None and match.deal is None
    assert match.needs_deal and not match.finished and match.winners == ()
    assert match.turn is None
    assert match.active_seats() == (0, 1, 2)


@pytest.mark.parametrize("lives", [1, 2, 3])
def test_the_lives_option_sets_the_starting_lives(lives):
    assert new_match(["Ana", "Ben"], Rules(lives=lives)).lives == (lives, lives)


@pytest.mark.parametrize("count", range(2, 8))
def test_two_to_seven_players(count):
    assert new_match([f"P{seat}" for seat in range(count)]).seat_count == count


@pytest.mark.parametrize("count", [0, 1, 8])
def test_other_player_counts_are_refused(count):
    with pytest.raises(InvalidMatch) as caught:
        new_match([f"P{seat}" for seat in range(count)])
    assert caught.value.code == "invalid_match"


def test_the_first_dealer_is_drawn_by_lot_from_the_generator():
    first = [deal_cards(table(7), random.Random(seed))[0] for seed in range(5)]
    again = [deal_cards(table(7), random.Random(seed))[0] for seed in range(5)]
    assert first == again  # the same seed gives the same dealer and the same hands
    counts = Counter(deal_cards(table(7), random.Random(seed))[0].dealer for seed in range(1400))
    assert set(counts) == set(range(7))
    # 200 expected per seat; the binomial spread is about 13
    assert all(140 <= count <= 260 for count in counts.values()), counts


def test_later_dealers_are_not_drawn_by_lot():
    match = finish_deal(start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=0, rules=QUICK))
    dealers = {deal_cards(match, random.Random(seed))[0].dealer for seed in range(20)}
    assert dealers == {1}


# ---------------------------------------------------------------------------
# §2.2 Deal


@pytest.mark.parametrize("players", range(2, 8))
def test_deal_cards_gives_seven_distinct_cards_to_every_player(players):
    match, events = deal_cards(table(players), random.Random(players))
    hands = [set(match.hand(seat)) for seat in range(players)]
    assert all(len(held) == 7 for held in hands)
    assert len(set().union(*hands)) == 7 * players
    assert events == [DealStarted(0, match.dealer, match.deal.order[0])]
    assert [match.deal.dealt_hand(seat) for seat in range(players)] == [match.hand(seat) for seat in range(players)]


def test_each_deal_is_a_fresh_shuffle():
    rng = random.Random(3)
    match, _ = deal_cards(table(3), rng)
    first = match.deal.dealt
    match, _ = deal_cards(finish_deal(match), rng)
    assert match.deal.dealt != first
    assert sum(held.bit_count() for held in match.deal.dealt) == 21


class _Unshuffled(random.Random):
    """A generator whose every draw is equal.

    The engine shuffles by sorting the pack on random keys (see deal_cards), so
    with equal keys the pack stays in order (2C 2D 2H 2S 3C …) and the order of
    dealing shows in the hands.
    """

    def random(self) -> float:
        return 0.5


def test_cards_go_one_at_a_time_clockwise_from_the_dealers_left():
    # Four seats, Dag (seat 3) eliminated; Ana dealt the first deal, so Ben
    # deals the second and the cards go to Cy, Ana, Ben, Cy, Ana, Ben, …
    match = start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", "", dealer=0, rules=QUICK, lives=(2, 2, 2, 0))
    match, _ = deal_cards(finish_deal(match), _Unshuffled(0))
    assert match.deal.dealer == 1
    pack = [card.code for card in cards("2C 2D 2H 2S 3C 3D 3H 3S 4C")]
    assert [card.code for card in match.hand(2)] == pack[0::3]
    assert [card.code for card in match.hand(0)] == pack[1::3]
    assert [card.code for card in match.hand(1)] == pack[2::3]
    assert match.hand(3) == ()


# ---------------------------------------------------------------------------
# §2.3 Lead and turn order


@pytest.mark.parametrize(("dealer", "leader"), [(0, 1), (1, 2), (2, 0)])
def test_the_player_left_of_the_dealer_leads(dealer, leader):
    match, events = deal_hands(table(3, QUICK), [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]],
                               dealer=dealer)
    assert match.turn == leader
    assert events == [DealStarted(deal=0, dealer=dealer, leader=leader)]


def test_the_first_active_player_left_of_the_dealer_leads():
    match = start("2C 3C 4C", "", "2H 3H 4H", "2D 3D 4D", dealer=0, rules=QUICK, lives=(2, 0, 2, 2))
    assert match.turn == 2
    assert match.deal.order == (2, 3, 0)


def test_the_trick_winner_leads_the_next_trick():
    # Ana leads 5C, Ben wins with 9D, so Ben leads next.
    match = start("5C 6C 7C", "9D TD JD", "3S 4S 6S", dealer=2, rules=QUICK)
    match, events = play_codes(match, "5C 9D 3S")
    assert events_of(events, TrickWon) == [TrickWon(seat=1, card=Card.parse("9D"), trick=0)]
    assert match.turn == 1
    assert match.deal.leader == 1


def test_play_goes_clockwise_among_active_players():
    match = start("2C 3C 4C", "", "2H 3H 4H", "2D 3D 4D", dealer=3, rules=QUICK, lives=(2, 0, 2, 2))
    match, events = play_codes(match, "4C")
    assert match.turn == 2  # seat 1 is out and is skipped
    refused(match, lambda m: play(m, "4H", seat=1), NotYourTurn)
    match, events = play_codes(match, "4H 4D")
    assert [event.seat for event in events_of(events, CardPlayed)] == [2, 3]


# ---------------------------------------------------------------------------
# §2.4 Legal plays


def test_the_leader_may_play_any_card():
    match = start("2C 9C KH", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    assert match.legal_cards(0) == hand("2C 9C KH")


def test_worked_example_a_follower_may_play_their_lowest_card_and_keep_the_king():
    match = start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    match, _ = play_codes(match, "9C")
    assert match.legal_cards(1) == hand("2S KH")
    error = refused(match, lambda m: play(m, "6D"), IllegalPlay)
    assert error.code == "illegal_play"
    assert error.refusal == match.refusal(1, "6D")
    assert error.refusal.lowest == cards("2S")
    match, events = play_codes(match, "2S 9H")
    # The two nines tie and Cy played later, so Cy wins and leads next.
    assert events_of(events, TrickWon) == [TrickWon(seat=2, card=Card.parse("9H"), trick=0)]
    assert match.turn == 2


def test_a_follower_must_reach_the_highest_card_in_the_trick_not_just_the_led_one():
    match = start("5C 6C 7C", "9D TD JD", "3S 7H QD", dealer=2, rules=QUICK)
    match, _ = play_codes(match, "5C 9D")
    assert match.legal_cards(2) == hand("3S QD")
    refused(match, lambda m: play(m, "7H"), IllegalPlay)


def test_an_equal_rank_is_legal():
    match = start("9C 7D 4S", "9S 6D 5S", "2C 3C 4C", dealer=2, rules=QUICK)
    match, _ = play_codes(match, "9C")
    assert Card.parse("9S") in match.legal_cards(1)


def test_any_of_several_lowest_cards_of_equal_rank_is_legal():
    match = start("9C 7D 4S", "2D KH 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    match, _ = play_codes(match, "9C")
    assert match.legal_cards(1) == hand("2D 2S KH")
    for code in ("2D", "2S", "KH"):
        play(match, code)


def test_a_led_ace_is_ordinary_by_default_and_another_ace_takes_the_trick():
    match = start("AS 7D 4S", "AH 4C 8D", "2C 3C 5C", dealer=2, rules=QUICK)
    match, _ = play_codes(match, "AS")
    assert match.legal_cards(1) == hand("4C AH")
    match, events = play_codes(match, "AH 2C")
    assert events_of(events, TrickWon)[0].seat == 1


def test_legal_cards_are_empty_for_a_seat_not_to_play():
    match = start("2C 9C KH", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    assert match.legal_cards(1) == ()
    assert not match.is_legal(1, Card.parse("2D"))
    assert match.is_legal(0, Card.parse("KH"))


def test_a_refusal_says_why_with_a_code_and_the_facts():
    match, _ = play_codes(start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    assert match.refusal(1, "2S") is None
    assert match.refusal(1, "6D") == Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"),
                                             lowest=cards("2S"))
    assert match.refusal(1, "AS") == Refusal("card_not_in_hand", card=Card.parse("AS"))
    assert match.refusal(2, "9H") == Refusal("not_your_turn", seat=1, player="Ben")
    with pytest.raises(InvalidCard):
        match.refusal(1, "1X")


def test_a_refusal_lists_every_lowest_card_of_equal_rank():
    match, _ = play_codes(start("9C 7D 4S", "2D KH 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    assert match.refusal(1, "2D") is None
    match, _ = play_codes(start("9C 7D 4S", "2D 6H 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    assert match.refusal(1, "6H").lowest == cards("2D 2S")


# ---------------------------------------------------------------------------
# §2.5 Trick winner


def test_the_highest_rank_wins_the_trick():
    match, events = play_codes(start("5C 6C 7C", "9D TD JD", "3S 4S 6S", dealer=2, rules=QUICK), "5C 9D 3S")
    assert events_of(events, TrickWon)[0] == TrickWon(1, Card.parse("9D"), 0)


def test_among_equal_highest_ranks_the_last_played_wins():
    match = start("9C 2C 3C", "9D 2D 3D", "9H 2H 3H", dealer=2, rules=QUICK)
    match, events = play_codes(match, "9C 9D 9H")
    assert events_of(events, TrickWon)[0] == TrickWon(2, Card.parse("9H"), 0)


def test_a_low_card_played_last_does_not_take_the_trick():
    match = start("9C 2C 3C", "9D 2D 3D", "9H 2H 3H", dealer=2, rules=QUICK)
    match, events = play_codes(match, "9C 9D 2H")
    assert events_of(events, TrickWon)[0] == TrickWon(1, Card.parse("9D"), 0)


# ---------------------------------------------------------------------------
# §2.7 Penalty: only the last trick scores


def test_only_the_last_trick_scores():
    # Ben deals; Cy wins the first two tricks with aces and pays nothing for
    # them; Ben wins the last with the queen and adds 12.
    match = start("2C 3C 9D", "2D 3D QS", "AH AD 5S", dealer=1, rules=QUICK)
    match, events = play_codes(match, "AH 2C 2D  AD 3C 3D  5S 9D QS")
    assert match.scores == (0, 12, 0)
    assert events_of(events, PenaltyScored) == [PenaltyScored(seat=1, points=12, card=Card.parse("QS"), total=12)]
    assert events_of(events, DealEnded) == [DealEnded(0)]
    assert match.deals_completed == 1 and match.needs_deal


def test_nobody_else_scores_even_with_an_equal_card():
    match = start("2C 3C 9D", "2D 3D 9S", "AH AD 5S", dealer=1, rules=QUICK)
    match, _ = play_codes(match, "AH 2C 2D  AD 3C 3D  5S 9D 9S")
    assert match.scores == (0, 9, 0)


def test_worked_example_last_trick_in_a_seven_card_deal():
    # Cy was on 14 and the others on 5 and 12: 14 + 9 = 23 crosses 21 for
    # the first time, so Cy loses a life and continues on 12.
    match = start(*EXAMPLE_HANDS, dealer=2, scores=(5, 12, 14))
    match, events = play_codes(match, EXAMPLE_PLAYS)
    assert events_of(events, TrickWon)[-1] == TrickWon(seat=2, card=Card.parse("9H"), trick=6)
    assert events_of(events, PenaltyScored) == [PenaltyScored(2, 9, Card.parse("9H"), 23)]
    assert events_of(events, LifeLost) == [LifeLost(seat=2, lives=1, total=12)]
    assert match.scores == (5, 12, 12)
    assert match.lives == (2, 2, 1)
    assert not match.finished


def test_worked_example_scores_nine_from_zero():
    match, _ = play_codes(start(*EXAMPLE_HANDS, dealer=2), EXAMPLE_PLAYS)
    assert match.scores == (0, 0, 9)
    assert match.lives == (2, 2, 2)


# ---------------------------------------------------------------------------
# §2.8 Threshold and lives


def cy_takes_the_last_trick_with(code, **setup):
    """A 3-card deal whose last trick Cy wins with ``code`` (Ana and Ben play 2S and 3S to it)."""
    match = start("AH AD 2S", "2C 3C 3S", "4C 5C " + code, dealer=2, rules=setup.pop("rules", QUICK), **setup)
    return play_codes(match, f"AH 2C 4C  AD 3C 5C  2S 3S {code}")


@pytest.mark.parametrize(("code", "points"), [("5H", 5), ("TH", 10), ("JH", 11), ("QH", 12), ("KH", 13), ("AS", 14)])
def test_the_penalty_is_the_value_of_the_winning_card(code, points):
    match, events = cy_takes_the_last_trick_with(code)
    assert match.scores == (0, 0, points)
    assert events_of(events, PenaltyScored) == [PenaltyScored(2, points, Card.parse(code), points)]


def test_exactly_the_threshold_costs_a_life():
    match, events = cy_takes_the_last_trick_with("7H", scores=(3, 11, 14))
    assert events_of(events, PenaltyScored) == [PenaltyScored(2, 7, Card.parse("7H"), 21)]
    assert events_of(events, LifeLost) == [LifeLost(2, 1, 11)]
    assert match.scores == (3, 11, 11)
    assert match.lives == (2, 2, 1)


def test_just_below_the_threshold_costs_nothing():
    match, events = cy_takes_the_last_trick_with("7H", scores=(3, 11, 13))
    assert match.scores == (3, 11, 20)
    assert match.lives == (2, 2, 2)
    assert events_of(events, LifeLost) == []


def test_the_new_total_is_the_highest_of_the_other_active_players_not_zero():
    match, _ = cy_takes_the_last_trick_with("9H", scores=(5, 12, 14))
    assert match.scores == (5, 12, 12)


def test_the_new_total_ignores_eliminated_players():
    # Dag (seat 3) is out on 30; the highest active total among the others is Ben's 12.
    match = start("AH AD 2S", "2C 3C 3S", "4C 5C 9H", "", dealer=2, rules=QUICK, scores=(5, 12, 14, 30),
                  lives=(2, 2, 2, 0))
    match, _ = play_codes(match, "AH 2C 4C  AD 3C 5C  2S 3S 9H")
    assert match.scores == (5, 12, 12, 30)


def test_the_second_crossing_eliminates():
    match, events = cy_takes_the_last_trick_with("9H", scores=(5, 12, 14), lives=(2, 2, 1))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(seat=2, total=23)]
    assert match.lives == (2, 2, 0)
    assert match.scores == (5, 12, 23)
    assert not match.is_active(2)
    assert match.active_seats() == (0, 1)
    assert not match.finished


# ---------------------------------------------------------------------------
# §2.9 Next deal, §2.10 End


def next_active_left_of(match, seat):
    """The first seat after ``seat``, clockwise, that is still in (docs/rules.md §2.9)."""
    count = match.seat_count
    return next(s % count for s in range(seat + 1, seat + count + 1) if match.is_active(s % count))


def test_the_deal_passes_left_skipping_eliminated_players():
    # Four players; Cy dealt; Dag (3) is out, so Ana deals next, then Ben, then Cy, …
    match = start("AH AD 2S", "2C 3C 3S", "4C 5C 9H", "", dealer=2, rules=QUICK, lives=(2, 2, 2, 0))
    dealers = [match.deal.dealer]
    rng = random.Random(5)
    while True:
        match = finish_deal(match, rng)
        if match.finished:
            break
        expected = next_active_left_of(match, dealers[-1])
        assert match.next_dealer() == expected
        match, events = deal_cards(match, rng)
        assert match.deal.dealer == expected
        assert events[0].leader == next_active_left_of(match, expected)
        dealers.append(expected)
        assert match.hand(3) == ()
    assert dealers[:4] == [2, 0, 1, 2]
    assert 3 not in dealers


def test_a_deal_from_given_hands_must_have_the_required_dealer():
    match = finish_deal(start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=0, rules=QUICK))
    assert match.next_dealer() == 1
    hands = [["5C", "6C", "7C"], ["5D", "6D", "7D"], ["5H", "6H", "7H"]]
    error = refused(match, lambda m: deal_hands(m, hands, dealer=2), InvalidDeal)
    assert "expected seat 1" in error.message
    assert deal_hands(match, hands, dealer=1)[0].deal.dealer == 1
    assert deal_hands(match, hands)[0].deal.dealer == 1


def test_the_next_dealer_skips_a_dealer_eliminated_in_the_deal():
    # Cy deals and is eliminated in that deal: Ana, the next active player on the left, deals next.
    match, _ = cy_takes_the_last_trick_with("9H", scores=(5, 12, 14), lives=(2, 2, 1))
    assert match.next_dealer() == 0
    match = next_deal(match, "2C 3C 4C", "2D 3D 4D", "")
    assert match.deal.dealer == 0
    assert match.turn == 1


def test_the_match_ends_when_one_player_is_left():
    match = start("AH AD 2S", "4C 5C 9H", dealer=1, rules=QUICK, scores=(3, 14), lives=(2, 1))
    match, events = play_codes(match, "AH 4C  AD 5C  2S 9H")
    assert match.finished and match.winners == (0,)
    assert events[-1] == MatchWon((0,))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(1, 23)]
    assert match.turn is None and not match.needs_deal
    refused(match, lambda m: deal_cards(m, random.Random(0)), MatchOver)
    refused(match, lambda m: deal_hands(m, [["2C", "3C", "4C"], []]), MatchOver)
    error = refused(match, lambda m: play(m, "2C"), MatchOver)
    assert error.code == "match_over"


def test_a_whole_match_of_random_deals_ends_with_one_player_left():
    match = table(4)
    rng = random.Random(11)
    deals = 0
    while not match.finished:
        match, _ = deal_cards(match, rng)
        match = finish_deal(match, rng)
        deals += 1
    assert len(match.active_seats()) == 1
    assert match.winners == match.active_seats()
    assert match.deals_completed == deals


# ---------------------------------------------------------------------------
# Errors leave the match unchanged


def test_a_malformed_card_is_invalid_card_not_an_illegal_move():
    match = start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    for code in ("ZZ", "", "1C", None, 7):
        error = refused(match, lambda m, code=code: play(m, code), InvalidCard)
        assert error.code == "invalid_card"


def test_playing_out_of_turn():
    match = start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    error = refused(match, lambda m: play(m, "2D", seat=1), NotYourTurn)
    assert error.code == "not_your_turn"
    assert error.refusal == Refusal("not_your_turn", seat=0, player="Ana")
    assert play(match, "2C", seat=0)[0].turn == 1


def test_a_card_not_in_hand():
    match = start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    error = refused(match, lambda m: play(m, "2D"), CardNotInHand)
    assert error.code == "card_not_in_hand"
    refused(match, lambda m: play(m, "AS", seat=0), CardNotInHand)


def test_playing_before_any_deal_and_between_deals():
    error = refused(table(3), lambda m: play(m, "2C"), DealNotStarted)
    assert error.code == "deal_not_started"
    match = finish_deal(start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK))
    refused(match, lambda m: play(m, "2C"), DealNotStarted)
    refused(match, lambda m: play_out_deal(m, rng=random.Random(0)), DealNotStarted)


def test_dealing_during_a_deal():
    match = start("2C 3C 4C", "2D 3D 4D", "2H 3H 4H", dealer=2, rules=QUICK)
    error = refused(match, lambda m: deal_cards(m, random.Random(0)), DealInProgress)
    assert error.code == "deal_in_progress"
    refused(match, lambda m: deal_hands(m, [["5C", "6C", "7C"], ["5D", "6D", "7D"], ["5H", "6H", "7H"]]),
            DealInProgress)


def test_an_illegal_play_changes_nothing():
    match, _ = play_codes(start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    refused(match, lambda m: play(m, "6D", seat=1), IllegalPlay)


@pytest.mark.parametrize(("hands", "dealer", "seat", "card"), [
    ([["2C", "3C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], 0, 0, None),          # too few cards
    ([["2C", "3C", "4C", "5C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], 0, 0, None),  # too many
    ([["2C", "3C", "4C"], ["2D", "3D", "2C"], ["2H", "3H", "4H"]], 0, 1, "2C"),    # a card twice
    ([["2C", "3C", "4C"], ["2D", "3D", "XX"], ["2H", "3H", "4H"]], 0, 1, "XX"),    # not a card
    ([["2C", "3C", "4C"], "2D 3D 4D", ["2H", "3H", "4H"]], 0, 1, None),           # not a list
    ([["2C", "3C", "4C"], ["2D", "3D", "4D"]], 0, None, None),                      # a seat missing
    ("2C 3C 4C", 0, None, None),
    ([["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], None, None, None),  # no first dealer
    ([["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], 3, None, None),     # no such seat
    ([["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], True, None, None),  # not a seat number
    ([["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]], -1, None, None),
])
def test_bad_hands_or_dealer_raise_invalid_deal(hands, dealer, seat, card):
    error = refused(table(3, QUICK), lambda m: deal_hands(m, hands, dealer=dealer), InvalidDeal)
    assert error.code == "invalid_deal"
    assert error.seat == seat
    assert error.card == card


def test_an_eliminated_seat_is_dealt_nothing_and_never_deals():
    eliminated = table(3, QUICK, lives=(2, 0, 2))
    error = refused(eliminated, lambda m: deal_hands(m, [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"]],
                                                    dealer=0), InvalidDeal)
    assert error.seat == 1
    error = refused(eliminated, lambda m: deal_hands(m, [["2C", "3C", "4C"], [], ["2H", "3H", "4H"]], dealer=1),
                    InvalidDeal)
    assert error.seat == 1
    for seed in range(30):
        match, _ = deal_cards(eliminated, random.Random(seed))
        assert match.deal.dealer != 1
        assert match.hand(1) == () and match.deal.dealt[1] == 0
        turns = set()
        while match.turn is not None:
            turns.add(match.turn)
            match, _ = play(match, match.legal_cards(match.turn)[0])
        assert turns == {0, 2}
        assert match.next_dealer() != 1


def test_a_player_eliminated_in_play_takes_no_further_part():
    match, _ = cy_takes_the_last_trick_with("9H", scores=(5, 12, 14), lives=(2, 2, 1))
    rng = random.Random(8)
    while not match.finished:
        match, _ = deal_cards(match, rng)
        assert match.deal.dealer != 2
        assert match.hand(2) == () and match.deal.dealt[2] == 0
        while match.turn is not None:
            assert match.turn != 2
            match, _ = play(match, rng.choice(match.legal_cards(match.turn)))
    assert match.lives[2] == 0 and match.scores[2] == 23
    assert 2 not in match.winners


# ---------------------------------------------------------------------------
# §3 hand_size


@pytest.mark.parametrize("size", range(3, 8))
def test_hand_size_sets_the_cards_dealt_and_the_tricks_played(size):
    rules = Rules(hand_size=size)
    match, _ = deal_cards(table(4, rules), random.Random(size))
    assert [len(match.hand(seat)) for seat in range(4)] == [size] * 4
    events = []
    while match.turn is not None:
        match, new = play(match, match.legal_cards(match.turn)[-1])
        events += new
    assert len(events_of(events, TrickWon)) == size
    assert len(events_of(events, PenaltyScored)) == 1
    assert len(match.deal.plays) == 4 * size
    bad = [[card.code for card in match.deal.dealt_hand(seat)] for seat in range(4)]
    bad[0] = bad[0][:-1]
    error = refused(table(4, rules), lambda m: deal_hands(m, bad, dealer=0), InvalidDeal)
    assert error.seat == 0


# ---------------------------------------------------------------------------
# §3 follow


MUST_MATCH = Rules(hand_size=3, follow="must_match")


def test_must_match_a_follower_holding_a_high_enough_card_must_play_one():
    match, _ = play_codes(start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=MUST_MATCH), "9C")
    assert match.legal_cards(1) == hand("KH")
    error = refused(match, lambda m: play(m, "2S"), IllegalPlay)
    assert error.refusal == Refusal("must_match", card=Card.parse("2S"), highest=Card.parse("9C"),
                                    lowest=cards("2S"))


def test_must_match_any_high_enough_card_will_do():
    match, _ = play_codes(start("9C 7D 4S", "KH AS 2S", "9H 8C 3D", dealer=2, rules=MUST_MATCH), "9C")
    assert match.legal_cards(1) == hand("KH AS")


def test_must_match_without_a_high_enough_card_only_the_lowest_is_legal():
    match, _ = play_codes(start("9C 7D 4S", "6D 2S 2D", "9H 8C 3D", dealer=2, rules=MUST_MATCH), "9C")
    assert match.legal_cards(1) == hand("2D 2S")
    refused(match, lambda m: play(m, "6D"), IllegalPlay)


def test_must_match_still_lets_the_leader_play_anything():
    match = start("9C 7D 4S", "6D 2S 2D", "9H 8C 3D", dealer=2, rules=MUST_MATCH)
    assert match.legal_cards(0) == hand("4S 7D 9C")


# ---------------------------------------------------------------------------
# §3 ace_lead


@pytest.mark.parametrize("follow", ["match_or_lowest", "must_match"])
def test_forces_lowest_a_led_ace_forces_every_followers_lowest_card(follow):
    rules = Rules(hand_size=3, ace_lead="forces_lowest", follow=follow)
    match, _ = play_codes(start("AS 7D 4S", "AH 4C 8D", "2C 3C 5C", dealer=2, rules=rules), "AS")
    assert match.legal_cards(1) == hand("4C")
    error = refused(match, lambda m: play(m, "AH"), IllegalPlay)
    assert error.refusal == Refusal("lowest_after_ace", card=Card.parse("AH"), highest=Card.parse("AS"),
                                    lowest=cards("4C"))
    match, events = play_codes(match, "4C 2C")
    assert events_of(events, TrickWon) == [TrickWon(0, Card.parse("AS"), 0)]


def test_forces_lowest_the_led_ace_wins_even_against_a_followers_lowest_ace():
    rules = Rules(hand_size=3, ace_lead="forces_lowest")
    match = start("AS 7D 4S", "2C 3C 5C", "AH AD AC", dealer=2, rules=rules)
    match, _ = play_codes(match, "AS 2C")
    assert match.legal_cards(2) == hand("AC AD AH")
    match, events = play_codes(match, "AH")
    assert events_of(events, TrickWon) == [TrickWon(0, Card.parse("AS"), 0)]
    assert match.turn == 0


def test_forces_lowest_only_a_led_ace_forces():
    rules = Rules(hand_size=3, ace_lead="forces_lowest")
    match, _ = play_codes(start("KS 7D 4S", "AH 4C 8D", "2C 3C AC", dealer=2, rules=rules), "KS")
    assert match.legal_cards(1) == hand("4C AH")
    match, _ = play_codes(match, "AH")
    assert match.legal_cards(2) == hand("2C AC")  # an ace played by a follower forces nothing


def test_forces_lowest_last_trick_is_ordinary_before_the_last_trick():
    rules = Rules(hand_size=3, ace_lead="forces_lowest_last_trick")
    match, _ = play_codes(start("AS 7D 4S", "AH 4C 8D", "2C 3C 5C", dealer=2, rules=rules), "AS")
    assert match.legal_cards(1) == hand("4C AH")
    match, events = play_codes(match, "AH 2C")
    assert events_of(events, TrickWon)[0].seat == 1


def test_forces_lowest_last_trick_forces_in_the_last_trick():
    # Ben deals; Cy wins two tricks and leads the last, Ana holds AH.
    rules = Rules(hand_size=3, ace_lead="forces_lowest_last_trick")
    match = start("2C 3C AH", "2D 3D 4D", "KH KD AS", dealer=1, rules=rules)
    match, _ = play_codes(match, "KH 2C 2D  KD 3C 3D  AS AH")
    # Ana's ace was her only (so lowest) card; the led ace still wins.
    match, events = play_codes(match, "4D")
    assert events_of(events, TrickWon)[-1] == TrickWon(2, Card.parse("AS"), 2)
    assert match.scores == (0, 0, 14)


def test_ordinary_ace_lead_in_the_last_trick_lets_the_later_ace_win():
    match = start("2C 3C AH", "2D 3D 4D", "KH KD AS", dealer=1, rules=QUICK)
    match, _ = play_codes(match, "KH 2C 2D  KD 3C 3D  AS AH 4D")
    assert match.scores == (14, 0, 0)


# ---------------------------------------------------------------------------
# §3 last_trick_tie


def tied_last_trick(rules, scores=(0, 0, 0), lives=None):
    """Ben deals; Cy wins two tricks with kings and leads 9H; Ana plays 9C, Ben 9D to the last trick."""
    match = start("2C 3C 9C", "2D 3D 9D", "KH KD 9H", dealer=1, rules=rules, scores=scores, lives=lives)
    return play_codes(match, "KH 2C 2D  KD 3C 3D  9H 9C 9D")


def test_last_played_only_the_last_of_the_tied_cards_pays():
    match, events = tied_last_trick(QUICK)
    assert match.scores == (0, 9, 0)


def test_all_tied_everyone_who_played_the_top_rank_pays():
    match, events = tied_last_trick(Rules(hand_size=3, last_trick_tie="all_tied"))
    assert match.scores == (9, 9, 9)
    assert [event.seat for event in events_of(events, PenaltyScored)] == [2, 0, 1]


def test_all_tied_does_not_charge_lower_cards():
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match = start("2C 3C 9C", "2D 3D 8D", "KH KD 9H", dealer=1, rules=rules)
    match, _ = play_codes(match, "KH 2C 2D  KD 3C 3D  9H 9C 8D")
    assert match.scores == (9, 0, 9)


def test_all_tied_several_players_cross_and_replacements_use_totals_before_the_deal():
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match, events = tied_last_trick(rules, scores=(14, 16, 5))
    # Everyone pays 9: Ana 23 and Ben 25 cross, Cy reaches 14.
    assert events_of(events, LifeLost) == [LifeLost(0, 1, 16), LifeLost(1, 1, 14)]
    assert match.scores == (16, 14, 14)
    assert match.lives == (1, 1, 2)


def test_all_tied_several_players_can_be_eliminated_in_one_deal():
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match, events = tied_last_trick(rules, scores=(14, 16, 5), lives=(1, 1, 2))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(0, 23), PlayerEliminated(1, 25)]
    assert match.lives == (0, 0, 2)
    assert match.finished and match.winners == (2,)


def test_all_tied_counts_the_leaders_card_and_a_forced_ace_pays_too():
    rules = Rules(hand_size=3, last_trick_tie="all_tied", ace_lead="forces_lowest")
    match = start("2C 3C AH", "2D 3D 4D", "KH KD AS", dealer=1, rules=rules)
    match, events = play_codes(match, "KH 2C 2D  KD 3C 3D  AS AH 4D")
    assert events_of(events, TrickWon)[-1].seat == 2
    assert match.scores == (14, 0, 14)


# ---------------------------------------------------------------------------
# §3 threshold and lives


@pytest.mark.parametrize(("threshold", "before", "crosses"), [
    (10, 0, False), (10, 1, True), (30, 20, False), (30, 21, True), (100, 90, False), (100, 91, True),
])
def test_the_threshold_option(threshold, before, crosses):
    match, events = cy_takes_the_last_trick_with("9H", rules=Rules(hand_size=3, threshold=threshold),
                                                 scores=(5, 7, before))
    assert bool(events_of(events, LifeLost)) == crosses
    assert match.scores[2] == (7 if crosses else before + 9)


def test_one_life_eliminates_at_the_first_crossing():
    match, events = cy_takes_the_last_trick_with("9H", rules=Rules(hand_size=3, lives=1), scores=(5, 7, 14),
                                                 lives=(1, 1, 1))
    assert match.lives == (1, 1, 0)
    assert events_of(events, LifeLost) == []


def test_three_lives_survive_two_crossings():
    rules = Rules(hand_size=3, lives=3)
    match, events = cy_takes_the_last_trick_with("9H", rules=rules, scores=(5, 7, 14), lives=(3, 3, 3))
    assert events_of(events, LifeLost) == [LifeLost(2, 2, 7)]
    match, events = cy_takes_the_last_trick_with("9H", rules=rules, scores=(5, 7, 14), lives=(3, 3, 2))
    assert events_of(events, LifeLost) == [LifeLost(2, 1, 7)]
    match, events = cy_takes_the_last_trick_with("9H", rules=rules, scores=(5, 7, 14), lives=(3, 3, 1))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(2, 23)]


# ---------------------------------------------------------------------------
# §3 second_life_min_opponents


def four_players_cy_crosses(rules, lives):
    """Cy (on 14) takes the last trick with 9H; Dag (seat 3) plays too when still in."""
    if lives[3]:
        match = start("AH AD 2S", "2C 3C 3S", "4C 5C 9H", "6C 7C 8C", dealer=3, rules=rules,
                      scores=(5, 12, 14, 0), lives=lives)
        return play_codes(match, "AH 2C 4C 6C  AD 3C 5C 7C  2S 3S 9H 8C")
    match = start("AH AD 2S", "2C 3C 3S", "4C 5C 9H", "", dealer=2, rules=rules, scores=(5, 12, 14, 0), lives=lives)
    return play_codes(match, "AH 2C 4C  AD 3C 5C  2S 3S 9H")


def test_second_life_min_opponents_continue_while_enough_others_are_in():
    rules = Rules(hand_size=3, second_life_min_opponents=3)
    match, events = four_players_cy_crosses(rules, (2, 2, 2, 2))
    assert events_of(events, LifeLost) == [LifeLost(2, 1, 12)]


def test_second_life_min_opponents_too_few_others_eliminates_despite_lives_left():
    rules = Rules(hand_size=3, second_life_min_opponents=3)
    match, events = four_players_cy_crosses(rules, (2, 2, 2, 0))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(2, 23)]
    assert match.lives == (2, 2, 0, 0)


def test_second_life_min_opponents_default_always_continues():
    match, events = four_players_cy_crosses(QUICK, (2, 2, 2, 0))
    assert events_of(events, LifeLost) == [LifeLost(2, 1, 12)]
    two = start("AH AD 2S", "4C 5C 9H", dealer=1, rules=QUICK, scores=(3, 14))
    two, events = play_codes(two, "AH 4C  AD 5C  2S 9H")
    assert events_of(events, LifeLost) == [LifeLost(1, 1, 3)]


@pytest.mark.parametrize("needed", range(1, 7))
@pytest.mark.parametrize("players_in", range(2, 8))
def test_second_life_min_opponents_every_value(needed, players_in):
    # Seven seats, the first players_in still in. Ana leads two aces, then 2S; Ben
    # (on 14) takes the last trick with 9H; everyone else plays their lowest card.
    others = [[f"{rank}{suit}" for rank in "45678" for suit in "CDHS"][3 * index:3 * index + 3] for index in range(5)]
    hands = ["AH AD 2S", "2C 3C 9H", *(" ".join(cards) for cards in others)]
    hands = [held if seat < players_in else "" for seat, held in enumerate(hands)]
    lives = [2 if seat < players_in else 0 for seat in range(7)]
    rules = Rules(hand_size=3, second_life_min_opponents=needed)
    match = start(*hands, dealer=players_in - 1, rules=rules, scores=(5, 14, 0, 0, 0, 0, 0), lives=lives)
    events = []
    for ana_and_ben in ("AH 2C", "AD 3C", "2S 9H"):
        match, new = play_codes(match, ana_and_ben)
        events += new
        while match.turn not in (0, None):
            match, new = play(match, match.legal_cards(match.turn)[0])
            events += new
    assert events_of(events, PenaltyScored) == [PenaltyScored(1, 9, Card.parse("9H"), 23)]
    if players_in - 1 >= needed:
        assert events_of(events, LifeLost) == [LifeLost(1, 1, 5)]
    else:
        assert events_of(events, PlayerEliminated) == [PlayerEliminated(1, 23)]


def test_second_life_min_opponents_counts_the_players_in_when_the_deal_began():
    # Two others were in at the start; Ana goes out in the same deal, Ben still continues.
    rules = Rules(hand_size=3, last_trick_tie="all_tied", second_life_min_opponents=2)
    match, events = tied_last_trick(rules, scores=(14, 16, 5), lives=(1, 2, 2))
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(0, 23)]
    assert events_of(events, LifeLost) == [LifeLost(1, 1, 14)]
    assert match.lives == (0, 1, 2)


# ---------------------------------------------------------------------------
# §3 penalty_to


LOWEST = Rules(hand_size=3, penalty_to="lowest")


def test_penalty_to_lowest_the_lowest_card_of_the_last_trick_pays_the_highest_value():
    match, events = cy_takes_the_last_trick_with("9H", rules=LOWEST)
    # The last trick is Ana 2S, Ben 3S, Cy 9H: Ana played the lowest and pays the nine.
    assert match.scores == (9, 0, 0)
    assert events_of(events, PenaltyScored) == [PenaltyScored(0, 9, Card.parse("9H"), 9)]


def test_penalty_to_lowest_among_equal_lowest_the_later_pays():
    match = start("AH AD 2S", "2C 2D 2H", "4C 5C KS", dealer=2, rules=LOWEST)
    match, _ = play_codes(match, "AH 2C 4C  AD 2D 5C  2S 2H KS")
    assert match.scores == (0, 13, 0)


def test_penalty_to_highest_is_the_trick_winner():
    match, _ = cy_takes_the_last_trick_with("9H", rules=Rules(hand_size=3, penalty_to="highest"))
    assert match.scores == (0, 0, 9)


# ---------------------------------------------------------------------------
# §3 settled case: penalty_to lowest with last_trick_tie all_tied


LOWEST_ALL_TIED = Rules(hand_size=3, penalty_to="lowest", last_trick_tie="all_tied")


def equal_lowest_last_trick(rules, scores=(0, 0, 0)):
    """Ana wins two tricks with aces; in the last trick Ana 2S and Ben 2H tie lowest under Cy's KS."""
    match = start("AH AD 2S", "2C 2D 2H", "4C 5C KS", dealer=2, rules=rules, scores=scores)
    return play_codes(match, "AH 2C 4C  AD 2D 5C  2S 2H KS")


def test_penalty_to_lowest_all_tied_every_equal_lowest_pays_the_highest_value():
    match, events = equal_lowest_last_trick(LOWEST_ALL_TIED)
    assert match.scores == (13, 13, 0)
    assert events_of(events, PenaltyScored) == [PenaltyScored(0, 13, Card.parse("KS"), 13),
                                                PenaltyScored(1, 13, Card.parse("KS"), 13)]


def test_penalty_to_lowest_all_tied_a_single_lowest_pays_alone():
    match, events = cy_takes_the_last_trick_with("9H", rules=LOWEST_ALL_TIED)
    assert match.scores == (9, 0, 0)
    assert events_of(events, PenaltyScored) == [PenaltyScored(0, 9, Card.parse("9H"), 9)]


def test_penalty_to_lowest_all_tied_when_every_card_is_equal_everyone_pays():
    match = start("AH AD 9C", "2C 3C 9D", dealer=1, rules=LOWEST_ALL_TIED)
    match, events = play_codes(match, "AH 2C  AD 3C  9C 9D")
    assert match.scores == (9, 9)
    assert [event.seat for event in events_of(events, PenaltyScored)] == [0, 1]


def test_penalty_to_lowest_all_tied_under_a_forcing_ace_the_equal_lowest_pay_the_ace():
    rules = LOWEST_ALL_TIED.changed(ace_lead="forces_lowest")
    match = start("2C 3C 4C", "2D 3D 4D", "KH KD AS", dealer=1, rules=rules)
    match, events = play_codes(match, "KH 2C 2D  KD 3C 3D  AS 4C 4D")
    assert events_of(events, TrickWon)[-1] == TrickWon(2, Card.parse("AS"), 2)
    assert match.scores == (14, 14, 0)


def test_penalty_to_lowest_all_tied_several_players_cross_in_one_deal():
    match, events = equal_lowest_last_trick(LOWEST_ALL_TIED, scores=(14, 16, 5))
    # Both pay 13: Ana 27 and Ben 29 cross; each continues on the highest total
    # of the others before this deal's penalties.
    assert events_of(events, LifeLost) == [LifeLost(0, 1, 16), LifeLost(1, 1, 14)]
    assert match.scores == (16, 14, 5)
    assert match.lives == (1, 1, 2)


# ---------------------------------------------------------------------------
# §3 match_length


def test_fixed_length_the_lowest_total_wins_after_the_last_deal():
    match, events = cy_takes_the_last_trick_with("9H", rules=Rules(hand_size=3, match_length=1), scores=(0, 0, 0))
    assert match.finished
    assert match.winners == (0, 1)  # equal lowest totals share the win
    assert events[-1] == MatchWon((0, 1))


def test_fixed_length_runs_its_number_of_deals():
    rules = Rules(hand_size=3, match_length=3, threshold=100)
    match, _ = cy_takes_the_last_trick_with("9H", rules=rules, scores=(0, 0, 0))
    rng = random.Random(2)
    assert not match.finished
    match, _ = deal_cards(match, rng)
    match = finish_deal(match, rng)
    assert not match.finished
    match, _ = deal_cards(match, rng)
    match = finish_deal(match, rng)
    assert match.finished and match.deals_completed == 3
    best = min(match.scores)
    assert match.winners == tuple(seat for seat in range(3) if match.scores[seat] == best)


def test_fixed_length_lives_still_apply_and_only_active_players_can_win():
    rules = Rules(hand_size=3, match_length=1)
    match, events = cy_takes_the_last_trick_with("9H", rules=rules, scores=(5, 12, 14), lives=(2, 2, 1))
    assert match.lives == (2, 2, 0)
    assert match.winners == (0,)


def test_fixed_length_an_eliminated_player_with_a_lower_total_does_not_win():
    # Cy went out earlier on 21. Ana and Ben both cross in the last deal and, as nobody
    # would be left, both stay in on 29: they share the win, not Cy with less.
    rules = Rules(hand_size=3, match_length=1, last_trick_tie="all_tied")
    match = start("KH KD 9H", "2C 3C 9C", "", dealer=1, rules=rules, scores=(20, 20, 21), lives=(1, 1, 0))
    match, events = play_codes(match, "KH 2C  KD 3C  9H 9C")
    assert events_of(events, PlayerReinstated) == [PlayerReinstated(0, 29), PlayerReinstated(1, 29)]
    assert match.finished and match.winners == (0, 1)


def test_fixed_length_can_end_earlier_by_elimination():
    rules = Rules(hand_size=3, match_length=10)
    match = start("AH AD 2S", "4C 5C 9H", dealer=1, rules=rules, scores=(3, 14), lives=(2, 1))
    match, _ = play_codes(match, "AH 4C  AD 5C  2S 9H")
    assert match.finished and match.winners == (0,) and match.deals_completed == 1


# ---------------------------------------------------------------------------
# §3 settled case: nobody would be left


def test_revival_exactly_one_lowest_total_stays_in_and_wins():
    rules = Rules(hand_size=3, last_trick_tie="all_tied", lives=1)
    match = start("KH KD 9H", "2C 3C 9C", dealer=1, rules=rules, scores=(15, 18), lives=(1, 1))
    match, events = play_codes(match, "KH 2C  KD 3C  9H 9C")
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(0, 24), PlayerEliminated(1, 27)]
    assert events_of(events, PlayerReinstated) == [PlayerReinstated(0, 24)]
    assert match.lives == (1, 0)
    assert match.scores == (24, 27)
    assert match.finished and match.winners == (0,)


def test_revival_several_lowest_totals_stay_in_and_play_continues():
    rules = Rules(hand_size=3, last_trick_tie="all_tied")
    match, events = tied_last_trick(rules, scores=(15, 15, 20), lives=(1, 1, 1))
    assert events_of(events, PlayerReinstated) == [PlayerReinstated(0, 24), PlayerReinstated(1, 24)]
    assert match.lives == (1, 1, 0)
    assert match.scores == (24, 24, 29)
    assert not match.finished
    # They go on with one life, on a total above the threshold: the next penalty eliminates.
    assert match.next_dealer() == 0
    match = next_deal(match, "2C 3C 4C", "KH KD 9H", "")
    match, events = play_codes(match, "KH 2C  KD 3C  9H 4C")
    assert events_of(events, PlayerEliminated) == [PlayerEliminated(1, 33)]
    assert match.finished and match.winners == (0,)


def test_revival_also_applies_with_more_lives_when_nobody_is_left():
    rules = Rules(hand_size=3, last_trick_tie="all_tied", second_life_min_opponents=2)
    match = start("KH KD 9H", "2C 3C 9C", dealer=1, rules=rules, scores=(15, 18), lives=(2, 2))
    # One other at the start is fewer than 2: both are eliminated, so the lower total stays in.
    match, events = play_codes(match, "KH 2C  KD 3C  9H 9C")
    assert events_of(events, PlayerReinstated) == [PlayerReinstated(0, 24)]
    assert match.lives == (1, 0) and match.winners == (0,)


# ---------------------------------------------------------------------------
# Events and the deal's own record


def test_events_of_a_deal_in_order():
    match, events = deal_hands(table(2, QUICK), [["AH", "AD", "2S"], ["4C", "5C", "9H"]], dealer=1)
    assert events == [DealStarted(0, 1, 0)]
    match, events = play_codes(match, "AH 4C")
    assert events == [CardPlayed(0, Card.parse("AH"), 0), CardPlayed(1, Card.parse("4C"), 0),
                      TrickWon(0, Card.parse("AH"), 0)]
    match, events = play_codes(match, "AD 5C 2S 9H")
    assert [type(event).__name__ for event in events] == [
        "CardPlayed", "CardPlayed", "TrickWon", "CardPlayed", "CardPlayed", "TrickWon", "PenaltyScored", "DealEnded"]


def test_the_deal_keeps_its_plays_seats_and_tricks():
    match = start("2C 3C 9D", "2D 3D QS", "AH AD 5S", dealer=1, rules=QUICK)
    match, _ = play_codes(match, "AH 2C 2D  AD 3C")
    deal = match.deal
    assert deal.plays == cards("AH 2C 2D AD 3C")
    assert deal.play_seats() == (2, 0, 1, 2, 0)
    assert deal.leaders == (2, 2)
    assert deal.trick_number == 1 and deal.trick_start == 3 and deal.leader == 2
    assert deal.current_trick() == ((2, Card.parse("AD")), (0, Card.parse("3C")))
    assert deal.dealt_hand(0) == hand("2C 3C 9D")
    assert match.hand(0) == hand("9D")
    assert not deal.is_complete
    match, _ = play_codes(match, "3D  5S 9D QS")
    assert match.deal.is_complete
    assert match.deal.current_trick() == ((2, Card.parse("5S")), (0, Card.parse("9D")), (1, Card.parse("QS")))
    assert match.history == (match.deal,)


# ---------------------------------------------------------------------------
# play_out_deal


def test_play_out_deal_with_a_chooser_matches_playing_card_by_card():
    match = start(*EXAMPLE_HANDS, dealer=2, scores=(5, 12, 14))
    order = iter(cards(EXAMPLE_PLAYS))
    seen = []

    def choose(seat, legal):
        card = next(order)
        seen.append(seat)
        assert legal >> card & 1
        return card

    fast, events = play_out_deal(match, choose)
    slow, slow_events = play_codes(match, EXAMPLE_PLAYS)
    assert fast == slow
    assert events == [event for event in slow_events if not isinstance(event, CardPlayed)]
    assert seen == list(slow.deal.play_seats())


def test_play_out_deal_refuses_a_chosen_card_that_is_not_legal():
    match = start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    chosen = {0: Card.parse("9C"), 1: Card.parse("6D")}
    with pytest.raises(IllegalPlay):
        play_out_deal(match, lambda seat, legal: chosen[seat])


def test_play_out_deal_needs_a_chooser_or_a_generator():
    match = start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    with pytest.raises(ValueError):
        play_out_deal(match)


@pytest.mark.parametrize("already", [0, 1, 2, 3, 5, 8])
def test_play_out_deal_at_random_plays_legal_cards_from_any_point_of_the_deal(already):
    rng = random.Random(already)
    match, _ = deal_cards(table(3, QUICK), rng)
    for _ in range(already):
        match, _ = play(match, match.legal_cards(match.turn)[0])
    after, events = play_out_deal(match, rng=random.Random(already))
    assert after.deal.is_complete
    replayed, replay_events = play_codes(match, " ".join(card.code for card in after.deal.plays[already:]))
    assert replayed == after
    assert events == [event for event in replay_events if not isinstance(event, CardPlayed)]


def test_play_out_deal_at_random_is_seeded():
    match, _ = deal_cards(table(5), random.Random(1))
    first, _ = play_out_deal(match, rng=random.Random(9))
    again, _ = play_out_deal(match, rng=random.Random(9))
    assert first == again


def test_is_legal_accepts_card_codes_and_refuses_bad_ones():
    match, _ = deal_cards(new_match(["Ana", "Ben"]), random.Random(4))
    legal = match.legal_cards(match.turn)
    assert match.is_legal(match.turn, legal[0].code.lower())
    assert not match.is_legal(match.turn, "1X")
    assert not match.is_legal(1 - match.turn, legal[0].code)
