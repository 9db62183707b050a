"""The coach grades plays from what their player knew: clear losses, forced plays, reproducible grades."""

import random

import pytest

from app.bots.endgame import play_then_solve
from app.bots.expert import ROLLOUT_EPSILON, SOLVE_AT_MORE
from app.bots.knowledge import read_knowledge
from app.bots.play_model import model_for
from app.bots.worlds import sample_hands
from app.coach.analysis import (
    DRAWS_PER_WORLD,
    LABELS,
    Grade,
    accuracy,
    analyse_record,
    grade_play,
    label_for,
    record_seed,
    stand_ins,
)
from app.game import Card, Rules, deal_hands, new_match, play, to_record
from app.game.fast import followers_of, table_for
from app.game.match import deal_cards
from app.game.record import RecordFault, check_record
from app.game.simulate import play_random_match
from app.game.views import view_for

MISTAKE_OR_WORSE = {"mistake", "blunder"}


def position(players, hands, dealer, plays, **options):
    """The match just before the next play, after dealing ``hands`` and playing ``plays``."""
    match = new_match([f"P{seat}" for seat in range(players)], Rules(**options))
    match, _ = deal_hands(match, hands, dealer=dealer)
    for code in plays:
        match, _ = play(match, code)
    return match


LEAD_THE_ACE = position(2, [["9C", "AS", "2H"], ["5C", "6D", "3H"]], 1, ["9C", "3H"], hand_size=3)
"""Seat 0 leads the second of three tricks holding AS and 2H: leading 2H keeps the ace for the last trick."""

SHED_THE_ACE = position(4, [["QC", "5C", "6C"], ["3H", "AD", "4S"], ["2S", "8S", "9S"], ["KD", "KS", "7D"]], 3,
                        ["QC", "3H", "2S", "KD", "KS", "5C"], hand_size=3)
"""Seat 1 follows a led king in the second of three tricks holding AD and 4S: 4S keeps the ace to the end."""

SHED_THE_TWO = position(3, [["9C", "2S", "KH"], ["5C", "6D", "3H"], ["4C", "7D", "8H"]], 2, ["9C", "3H", "4C"],
                        hand_size=3, penalty_to="lowest")
"""Inverse cucumber (the lowest card of the last trick pays): seat 0 leads the second trick with 2S and KH;
keeping the 2 for the last trick makes it pay."""

CLEAR_CASES = [
    pytest.param(LEAD_THE_ACE, "AS", "2H", id="lead-the-ace"),
    pytest.param(SHED_THE_ACE, "AD", "4S", id="follow-with-the-ace"),
    pytest.param(SHED_THE_TWO, "2S", "KH", id="inverse-shed-the-two"),
]


@pytest.mark.parametrize(("match", "good", "bad"), CLEAR_CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_that_clearly_loses_is_a_mistake_or_worse_and_the_good_one_never_is(match, good, bad, seed):
    rng = random.Random(seed)
    bad_grade = grade_play(match, Card.parse(bad), rng)
    good_grade = grade_play(match, Card.parse(good), random.Random(seed))
    assert bad_grade.label in MISTAKE_OR_WORSE
    assert bad_grade.loss_points >= 6
    assert good in bad_grade.best
    assert good_grade.label == "best"
    assert good_grade.loss_points == 0


def test_a_play_with_one_legal_rank_is_forced_and_has_no_losses():
    # Seat 0 holds two aces after the first trick: whichever it leads, it is the same rank.
    match = position(2, [["9C", "AS", "AH"], ["5C", "6D", "3H"]], 1, ["9C", "3H"], hand_size=3)
    grade = grade_play(match, Card.parse("AH"), random.Random(1))
    assert (grade.label, grade.loss_points, grade.loss_win_share) == ("forced", None, None)
    assert set(grade.best) == {"AS", "AH"}


def test_forced_plays_of_a_match_are_never_graded_and_every_play_has_a_label():
    match = play_random_match(3, Rules(match_length=2), random.Random(4))
    record = to_record(match)
    grades = analyse_record(record, worlds=40)
    assert [(grade.deal, grade.play) for grade in grades] == [
        (deal, number) for deal, entry in enumerate(record["deals"]) for number in range(len(entry["plays"]))]
    for grade in grades:
        assert grade.label in LABELS
        if grade.label == "forced":
            assert grade.loss_points is None and grade.loss_win_share is None
        else:
            assert grade.loss_points >= 0 and 0 <= grade.loss_win_share <= 1
            assert grade.card in grade.best or grade.label != "best"
    # The last trick's plays leave each player one card: always forced.
    last = {(deal, number) for deal, entry in enumerate(record["deals"])
            for number in range(len(entry["plays"]) - 3, len(entry["plays"]))}
    assert all(grade.label == "forced" for grade in grades if (grade.deal, grade.play) in last)


def test_the_same_record_gives_the_same_grades_and_one_seat_gets_its_share():
    record = to_record(play_random_match(4, Rules(match_length=2), random.Random(7)))
    first = analyse_record(record, worlds=40)
    again = analyse_record(dict(record), worlds=40)
    assert first == again
    assert analyse_record(record, seats={2}, worlds=40) == [grade for grade in first if grade.seat == 2]


def test_the_seed_is_the_record_and_ignores_who_decided():
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(2)))
    marked = {**record, "deals": [{**deal, "decided_by": ["player"] * len(deal["plays"])}
                                  for deal in record["deals"]]}
    assert record_seed(marked) == record_seed(record)
    other = to_record(play_random_match(3, Rules(match_length=1), random.Random(3)))
    assert record_seed(other) != record_seed(record)


def test_stand_in_plays_are_not_graded_and_verify_ignores_who_decided():
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(5)))
    plays = len(record["deals"][0]["plays"])
    deciders = ["player"] * plays
    deciders[0], deciders[4] = "away", "turn_clock"
    record["deals"][0]["decided_by"] = deciders
    assert check_record(record)["ok"]
    assert stand_ins(record) == {(0, 0), (0, 4)}
    graded = {(grade.deal, grade.play) for grade in analyse_record(record, worlds=20)}
    assert (0, 0) not in graded and (0, 4) not in graded and (0, 1) in graded


def test_an_unfinished_record_is_graded_up_to_its_last_play():
    record = to_record(play_random_match(3, Rules(match_length=2), random.Random(6)))
    record["deals"][1]["plays"] = record["deals"][1]["plays"][:5]
    grades = analyse_record(record, worlds=20)
    assert (grades[-1].deal, grades[-1].play) == (1, 4)


def test_a_record_that_does_not_verify_is_refused():
    record = to_record(play_random_match(3, Rules(match_length=1), random.Random(6)))
    record["deals"][0]["plays"][0] = "XX"
    with pytest.raises(RecordFault):
        analyse_record(record)


@pytest.mark.parametrize(("loss", "error", "is_best", "label"), [
    (0.0, 0.0, True, "best"),
    (0.5, 0.1, False, "good"),
    (3.0, 2.0, False, "good"),
    (3.0, 0.5, False, "inaccuracy"),
    (6.0, 5.0, False, "mistake"),
    (9.9, 0.1, False, "mistake"),
    (10.0, 0.1, False, "blunder"),
])
def test_labels_follow_the_loss_in_points(loss, error, is_best, label):
    assert label_for(loss, error, is_best) == label


def test_accuracy_is_the_mean_of_the_plays_scores():
    grades = [Grade(0, 0, 1, "AS", "best", ("AS",), 0.0, 0.0, 10),
              Grade(0, 1, 1, "2S", "mistake", ("AS",), 5.0, 0.1, 10),
              Grade(0, 2, 1, "3S", "forced", ("3S",), None, None, 0),
              Grade(0, 3, 0, "4S", "blunder", ("AS",), 20.0, 0.3, 10)]
    assert accuracy(grades, 1) == pytest.approx(75.0)
    assert accuracy(grades, 0) == 0.0
    assert accuracy(grades, 2) is None
    assert Grade.from_dict(grades[1].to_dict()) == Grade(0, 1, 1, "2S", "mistake", ("AS",), 5.0, 0.1, 0)


def _expected_points(match, rng, worlds, model):
    """Per legal rank, the seat's mean penalty points over ``worlds`` worlds played out with ``model``.

    The coach's procedure written out from docs/coach.md with the bots' parts: worlds from
    ``sample_hands``, the same draws for every candidate, ``play_then_solve`` to the end of the deal.
    """
    view = view_for(match, match.turn)
    knowledge = read_knowledge(view)
    table = table_for(match.rules)
    followers = followers_of(knowledge.order)
    ranks = sorted({card.rank for card in view.you.legal})
    firsts = [int(next(card for card in view.you.legal if card.rank == rank)) for rank in ranks]
    totals = [0.0] * len(ranks)
    for _ in range(worlds):
        hands = sample_hands(knowledge, rng)
        draws = [rng.random() for _ in range(DRAWS_PER_WORLD)]
        for index, first in enumerate(firsts):
            stream = iter(draws * 4)
            payers, points = play_then_solve(table, list(hands), followers, view.leader,
                                             [int(played.card) for played in view.trick], view.trick_number - 1,
                                             first, stream.__next__, ROLLOUT_EPSILON, True, SOLVE_AT_MORE, model)
            totals[index] += points if match.turn in payers else 0
    return [total / worlds for total in totals]


def test_the_coach_plays_its_worlds_out_with_the_model_of_play_for_every_seat():
    # Early in a deal of four seats, the later cards of every seat come from the model of how `hard`
    # plays (as the expert's play-outs), not from the rule of thumb: the loss is the model's, and on the
    # same worlds and draws the rule of thumb gives other means.
    states = random.Random("coach-model")
    checked = 0
    for _ in range(6):
        match = new_match(["A", "B", "C", "D"], Rules())
        match, _ = deal_cards(match, states)
        for _ in range(states.randrange(0, 6)):
            match, _ = play(match, states.choice(view_for(match, match.turn).you.legal))
        legal = view_for(match, match.turn).you.legal
        if len({card.rank for card in legal}) < 2:
            continue
        card = max(legal, key=lambda legal_card: legal_card.rank)
        grade = grade_play(match, card, random.Random(7), worlds=40)
        modelled = _expected_points(match, random.Random(7), 40, model_for(4))
        thumb = _expected_points(match, random.Random(7), 40, None)
        ranks = sorted({legal_card.rank for legal_card in legal})
        loss = modelled[ranks.index(card.rank)] - min(modelled)
        assert grade.loss_points == pytest.approx(loss)
        assert modelled != thumb
        checked += 1
    assert checked >= 3
