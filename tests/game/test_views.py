"""What one viewer may see (docs/rules.md §2.6 and the hidden cards), phase by phase."""

import dataclasses
import random

import pytest

from app.game import Card, Refusal, Rules, deal_cards, new_match, play, play_out_deal, view_for
from app.game.views import TrickCard, hand_at_rest, hand_view
from tests.game.helpers import cards, hand, play_codes, random_steps, start, table

QUICK = Rules(hand_size=3)
# Ben deals; Cy leads and wins the first two tricks with aces.
HANDS = ("2C 3C 9D", "2D 3D QS", "AH AD 5S")


def cards_in(value) -> set[Card]:
    """Every card anywhere in a view (dataclasses, tuples, nested)."""
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value):
        return set().union(*(cards_in(getattr(value, field.name)) for field in dataclasses.fields(value)))
    if isinstance(value, (tuple, list)):
        return set().union(*(cards_in(item) for item in value)) if value else set()
    return set()


def test_before_the_first_deal():
    view = view_for(table(3), 0)
    assert view.phase == "waiting"
    assert (view.deal_number, view.trick_number, view.dealer, view.turn, view.leader) == (0, 0, None, None, None)
    assert view.trick == () and view.previous_trick == ()
    assert view.you.cards == ()
    assert [seat.name for seat in view.seats] == ["Ana", "Ben", "Cy"]
    assert all(seat.score == 0 and seat.lives == 2 and not seat.eliminated for seat in view.seats)
    assert view.tricks_per_deal == 7
    assert not view.finished


def test_a_player_sees_their_own_hand_with_the_legal_cards_marked():
    match, _ = play_codes(start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK), "9C")
    view = view_for(match, 1)
    assert view.phase == "playing"
    assert view.you.seat == 1
    assert view.you.hand == hand("2S 6D KH")
    assert view.you.legal == hand("2S KH")
    reasons = {held.card.code: held.reason for held in view.you.cards}
    assert reasons["2S"] is None and reasons["KH"] is None
    assert reasons["6D"] == Refusal("match_or_lowest", card=Card.parse("6D"), highest=Card.parse("9C"),
                                    lowest=hand("2S"))
    assert view.turn == 1 and view.leader == 0
    assert view.trick == (TrickCard(0, Card.parse("9C")),)


def test_a_player_waiting_for_their_turn_has_no_legal_cards_and_is_told_why():
    match = start("9C 7D 4S", "KH 6D 2S", "9H 8C 3D", dealer=2, rules=QUICK)
    view = view_for(match, 2)
    assert view.you.legal == ()
    assert {held.reason for held in view.you.cards} == {Refusal("not_your_turn", seat=0, player="Ana")}


def test_the_dealer_turn_and_cards_left_are_public():
    match, _ = play_codes(start(*HANDS, dealer=1, rules=QUICK), "AH 2C")
    view = view_for(match, None)
    assert [seat.is_dealer for seat in view.seats] == [False, True, False]
    assert [seat.is_turn for seat in view.seats] == [False, True, False]
    assert [seat.cards_left for seat in view.seats] == [2, 3, 2]
    assert view.dealer == 1
    assert view.you is None


def test_earlier_tricks_stay_face_up_in_front_of_their_players_in_order():
    match, _ = play_codes(start(*HANDS, dealer=1, rules=QUICK), "AH 2C 2D  AD 3C")
    for viewer in (None, 0, 1, 2):
        view = view_for(match, viewer)
        assert [seat.played for seat in view.seats] == [cards("2C"), cards("2D"), cards("AH")]
        assert view.trick == (TrickCard(2, Card.parse("AD")), TrickCard(0, Card.parse("3C")))
        assert view.previous_trick == (TrickCard(2, Card.parse("AH")), TrickCard(0, Card.parse("2C")),
                                       TrickCard(1, Card.parse("2D")))
        assert view.trick_number == 2
    match, _ = play_codes(match, "3D")
    view = view_for(match, None)
    assert [seat.played for seat in view.seats] == [cards("2C 3C"), cards("2D 3D"), cards("AH AD")]
    assert view.trick == ()
    assert view.trick_number == 3


def test_after_a_deal_its_last_trick_is_shown_and_the_next_deal_is_awaited():
    match, _ = play_codes(start(*HANDS, dealer=1, rules=QUICK), "AH 2C 2D  AD 3C 3D  5S 9D QS")
    view = view_for(match, 0)
    assert view.phase == "deal_over"
    assert view.deal_number == 1 and view.trick_number == 0
    assert view.trick == tuple(TrickCard(seat, card) for seat, card in zip((2, 0, 1), cards("5S 9D QS")))
    assert [seat.score for seat in view.seats] == [0, 12, 0]
    assert view.turn is None and view.leader is None
    assert view.you.cards == ()


def test_the_deal_number_counts_from_one_while_playing():
    match, _ = play_codes(start(*HANDS, dealer=1, rules=QUICK), "AH 2C 2D  AD 3C 3D  5S 9D QS")
    match, _ = deal_cards(match, random.Random(0))
    assert view_for(match, None).deal_number == 2


def test_a_finished_match():
    match = start("AH AD 2S", "4C 5C 9H", dealer=1, rules=QUICK, scores=(3, 14), lives=(2, 1))
    match, _ = play_codes(match, "AH 4C  AD 5C  2S 9H")
    view = view_for(match, 1)
    assert view.finished and view.phase == "finished"
    assert view.winners == (0,)
    assert view.turn is None
    assert view.seats[1].eliminated and view.seats[1].lives == 0 and view.seats[1].score == 23


@pytest.mark.parametrize("seat", [-1, 3, 10])
def test_no_view_for_a_seat_not_in_the_match(seat):
    with pytest.raises(IndexError):
        view_for(table(3), seat)


@pytest.mark.parametrize("plays", [0, 1, 4, 9, 20, 34])
def test_no_view_holds_a_card_hidden_from_that_viewer(plays):
    match, _ = deal_cards(table(5), random.Random(plays))
    for _ in range(plays):
        match, _ = play_codes(match, match.legal_cards(match.turn)[0].code)
    public = set(match.deal.plays)
    for viewer in (None, 0, 1, 2, 3, 4):
        own = set(match.hand(viewer)) if viewer is not None else set()
        seen = cards_in(view_for(match, viewer))
        assert seen <= public | own
        assert own <= seen


def test_an_eliminated_seat_shows_no_cards():
    match = start("AH AD 2S", "", "4C 5C 9H", dealer=2, rules=QUICK, lives=(2, 0, 2))
    view = view_for(match, 1)
    assert view.seats[1].eliminated and view.seats[1].cards_left == 0
    assert view.you.cards == ()


def test_views_after_a_random_deal_hide_the_unplayed_pack():
    match, _ = deal_cards(table(3), random.Random(4))
    match, _ = play_out_deal(match, rng=random.Random(4))
    dealt = set().union(*(match.deal.dealt_hand(seat) for seat in range(3)))
    for viewer in (None, 0, 1, 2):
        assert cards_in(view_for(match, viewer)) <= dealt


def test_a_players_view_is_the_public_view_with_their_own_hand():
    rng = random.Random(11)
    match, _ = deal_cards(new_match(["Ana", "Ben", "Cy"], Rules(hand_size=4)), rng)
    for _ in range(6):
        for seat in range(match.seat_count):
            assert view_for(match, seat) == view_for(match, None)._replace(you=hand_view(match, seat))
        seat = match.turn
        match, _ = play(match, rng.choice(match.legal_cards(seat)), seat)


@pytest.mark.parametrize("rules", [Rules(hand_size=4),
                                   Rules(hand_size=3, follow="must_match", ace_lead="forces_lowest")])
def test_each_card_of_a_hand_gives_the_reason_playing_it_would_meet(rules):
    rng = random.Random(7)
    match, _ = deal_cards(new_match(["Ana", "Ben", "Cy", "Dag"], rules), rng)
    while not match.finished:
        for seat in range(match.seat_count):
            assert hand_view(match, seat).hand == match.hand(seat)
            for held in hand_view(match, seat).cards:
                assert held.reason == match.refusal(seat, held.card)
                assert held.legal == (held.reason is None) == match.is_legal(seat, held.card)
        if match.needs_deal:
            match, _ = deal_cards(match, rng)
        else:
            seat = match.turn
            match, _ = play(match, rng.choice(match.legal_cards(seat)), seat)
    for seat in range(match.seat_count):
        assert all(held.reason == match.refusal(seat, held.card) for held in hand_view(match, seat).cards)


@pytest.mark.parametrize("seed", range(6))
def test_a_hand_at_rest_is_the_hand_view_whose_every_card_is_refused_alike(seed):
    rules = Rules(hand_size=3, lives=2) if seed % 2 else Rules(hand_size=4)
    first = new_match(["Ana", "Ben", "Cy", "Dag"][:2 + seed % 3], rules)
    for match, _ in [(first, None), *random_steps(first, random.Random(seed))]:
        for seat in range(match.seat_count):
            rest, view = hand_at_rest(match, seat), hand_view(match, seat)
            reasons = {held.reason for held in view.cards}
            refused_alike = len(reasons) == 1 and None not in reasons
            assert (rest is not None) == refused_alike, (seat, rest, view)
            if rest is not None:
                assert rest == (view.hand, view.cards[0].reason.code) == (match.hand(seat), match.waiting(seat))
    assert match.finished


def test_a_seat_to_play_or_holding_nothing_has_no_hand_at_rest():
    match = start("AH AD 2S", "", "4C 5C 9H", dealer=2, rules=QUICK, lives=(2, 0, 2))
    assert hand_at_rest(match, match.turn) is None
    assert hand_at_rest(match, 1) is None  # eliminated: no cards
    other = next(seat for seat in (0, 2) if seat != match.turn)
    assert hand_at_rest(match, other) == (match.hand(other), "not_your_turn")
    with pytest.raises(IndexError):
        hand_at_rest(match, 3)
