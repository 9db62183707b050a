"""The end of a deal in sentences (docs/rules.md §2.7–2.10, §3)."""

import pytest

from app.game import Card
from app.game.summary import DealSummary
from app.wording import deal_sentences
from app.wording.language import speaking

NAMES = ["Ana", "Ben", "Cy"]


def summary(trick_winner=2, card="8S", penalties=((2, 8, "8S", 22),), lives_lost=(), eliminated=(), reinstated=(),
            winners=()) -> DealSummary:
    """A deal's end as the engine reports it, cards written as codes."""
    return DealSummary(deal=1, trick_winner=trick_winner, card=Card.parse(card),
                       penalties=tuple((seat, points, Card.parse(code), total)
                                       for seat, points, code, total in penalties),
                       lives_lost=lives_lost, eliminated=eliminated, reinstated=reinstated, winners=winners)


def test_a_life_lost():
    assert deal_sentences(summary(lives_lost=((2, 1, 12),)), NAMES) == [
        "Cy took the last trick with 8♠.",
        "Cy scores 8 penalty points, now on 22.",
        "Cy reached the threshold and loses a life (1 life left), continuing on 12 points.",
    ]


@pytest.mark.parametrize(("left", "total", "said"), [
    (0, 0, "(0 lives left), continuing on 0 points."), (1, 1, "(1 life left), continuing on 1 point."),
    (2, 2, "(2 lives left), continuing on 2 points."), (5, 5, "(5 lives left), continuing on 5 points."),
])
def test_lives_and_points_are_counted(left, total, said):
    assert deal_sentences(summary(lives_lost=((2, left, total),)), NAMES)[-1].endswith(said)


@pytest.mark.parametrize(("points", "said"), [(1, "Cy scores 1 penalty point, now on 22."),
                                              (2, "Cy scores 2 penalty points, now on 22."),
                                              (5, "Cy scores 5 penalty points, now on 22.")])
def test_penalty_points_are_counted(points, said):
    assert deal_sentences(summary(penalties=((2, points, "8S", 22),)), NAMES)[1] == said


def test_an_elimination_and_the_winner():
    lines = deal_sentences(summary(trick_winner=0, card="5D", penalties=((0, 5, "5D", 22),), eliminated=((0, 22),),
                                   winners=(1,)), NAMES)
    assert lines[-2:] == ["Ana is eliminated with 22 points.", "Ben wins the match!"]


def test_reinstated_players_and_a_shared_win():
    lines = deal_sentences(summary(trick_winner=1, card="9C", penalties=((0, 9, "9H", 24), (1, 9, "9C", 27)),
                                   eliminated=((0, 24), (1, 27)), reinstated=((0, 24),), winners=(0, 2)), NAMES)
    assert lines == [
        "Ben took the last trick with 9♣.",
        "Ana scores 9 penalty points (the value of 9♥), now on 24.",
        "Ben scores 9 penalty points, now on 27.",
        "Ana is eliminated with 24 points.",
        "Ben is eliminated with 27 points.",
        "Nobody would be left, so Ana stays in with one life on 24 points.",
        "Ana and Cy share the win!",
    ]


def test_under_inverse_cucumber_the_card_whose_value_is_paid_is_named():
    lines = deal_sentences(summary(trick_winner=2, card="KS", penalties=((0, 13, "KS", 13), (1, 13, "KS", 13))),
                           NAMES)
    assert lines == [
        "Cy took the last trick with K♠.",
        "Ana scores 13 penalty points (the value of K♠), now on 13.",
        "Ben scores 13 penalty points (the value of K♠), now on 13.",
    ]


def test_a_summary_said_again_follows_the_language_and_the_names_given():
    said = summary(lives_lost=((2, 1, 12),))
    english = deal_sentences(said, NAMES)
    with speaking("sv"):
        swedish = deal_sentences(said, NAMES)
    assert swedish != english and deal_sentences(said, NAMES) == english
    assert deal_sentences(said, ("Ana", "Ben", "Cyd"))[0] == "Cyd took the last trick with 8♠."
    english.append("changed")
    assert deal_sentences(said, NAMES)[-1] != "changed"
