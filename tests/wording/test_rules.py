"""The rules, presets and the rules form's labels in words (docs/rules.md §2, §3)."""

import pytest

from app.game.rules import ACE_LEAD, FOLLOW, LAST_TRICK_TIE, OPTIONS, PENALTY_TO, PRESETS, Rules
from app.wording import describe_preset, describe_rules, option_label, value_label
from app.wording import rules as wording
from app.wording.language import speaking


def test_the_house_rules_in_words():
    assert describe_rules(Rules()) == [
        "7 cards each; only the last trick scores.",
        "Follow with a card at least as high as the highest in the trick, or with your lowest card.",
        "A led ace is an ordinary card: another ace may equal it.",
        "The winner of the last trick adds the value of their card (on equal ranks the later card wins).",
        "Reaching 21 points costs a life; everyone has 2 lives.",
        "After losing a life you continue on the highest total of the others.",
        "The last player left in wins.",
    ]


def test_every_option_changes_its_sentence():
    words = " ".join(describe_rules(Rules(hand_size=3, lives=1, threshold=30, match_length=5, follow="must_match",
                                          ace_lead="forces_lowest")))
    assert "3 cards each" in words and "Reaching 30 points" in words and "everyone has 1 life." in words
    assert "if you can" in words and "When an ace is led, everyone plays their lowest card" in words
    assert "The match lasts 5 deals; the lowest total wins." in words
    assert "continue on the highest total" not in words  # one life: nothing to continue with
    assert "ordinary card" in " ".join(describe_rules(Rules(ace_lead="forces_lowest_last_trick")))


def test_who_pays_follows_penalty_to_and_ties():
    said = {(penalty_to, tie): describe_rules(Rules(penalty_to=penalty_to, last_trick_tie=tie))[3]
            for penalty_to in PENALTY_TO for tie in LAST_TRICK_TIE}
    assert len(set(said.values())) == 4
    assert "later one on a tie" in said["lowest", "last_played"]
    assert "everyone who played the lowest rank" in said["lowest", "all_tied"]
    assert "everyone who played that same rank pays" in said["highest", "all_tied"]


@pytest.mark.parametrize(("lives", "said"), [(1, "everyone has 1 life."), (2, "everyone has 2 lives."),
                                             (3, "everyone has 3 lives.")])
def test_lives_are_counted(lives, said):
    assert said in describe_rules(Rules(lives=lives))[4]


@pytest.mark.parametrize(("deals", "said"), [(1, "The match lasts 1 deal;"), (2, "The match lasts 2 deals;"),
                                             (5, "The match lasts 5 deals;")])
def test_deals_are_counted(deals, said):
    assert describe_rules(Rules(match_length=deals))[-1].startswith(said)


def test_a_second_life_rule_is_said_only_when_it_asks_for_more_than_one_other():
    assert not any("may only continue" in line for line in describe_rules(Rules()))
    assert "You may only continue if at least 3 others were still in when that deal began." in \
        describe_rules(Rules(second_life_min_opponents=3))


def test_every_value_has_its_sentence():
    assert set(wording.FOLLOW) == set(FOLLOW)
    assert set(wording.ACE_LEAD) == set(ACE_LEAD)
    assert set(wording.PENALTY) == {(penalty_to, tie) for penalty_to in PENALTY_TO for tie in LAST_TRICK_TIE}


def test_every_preset_is_described():
    assert set(wording.PRESETS) == set(PRESETS)
    assert describe_preset("quick") == "Quick: the house default with 3 cards each"
    with pytest.raises(KeyError):
        describe_preset("poker")


def test_every_option_and_value_of_the_table_has_a_label():
    for option in OPTIONS:
        assert option_label(option.name)
        for value in (*option.choices, *option.numbers):
            assert value_label(option.name, value)
    with pytest.raises(KeyError):
        value_label("follow", "any")


@pytest.mark.parametrize(("deals", "label"), [(0, "0 deals, lowest total wins"), (1, "1 deal, lowest total wins"),
                                              (2, "2 deals, lowest total wins"), (5, "5 deals, lowest total wins")])
def test_match_lengths_are_counted(deals, label):
    assert value_label("match_length", deals) == label


def test_a_number_is_its_own_label_unless_it_has_one():
    assert value_label("lives", 2) == "2"
    assert value_label("second_life_min_opponents", 1) == "1 (always)"
    assert value_label("second_life_min_opponents", 2) == "2"


def test_the_rules_said_again_are_said_in_the_language_spoken_each_time():
    rules = Rules(hand_size=4, threshold=30)
    english = describe_rules(rules)
    with speaking("da"):
        danish = describe_rules(rules)
    assert danish != english and describe_rules(rules) == english
    with speaking("da"):
        assert describe_rules(rules) == danish


def test_changing_the_sentences_given_leaves_the_next_caller_its_own():
    lines = describe_rules(Rules())
    lines.append("something else")
    lines[0] = "changed"
    assert describe_rules(Rules())[0] != "changed" and "something else" not in describe_rules(Rules())
