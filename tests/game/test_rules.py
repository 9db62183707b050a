"""The rules object and its option table: defaults, every option of docs/rules.md §3, validation, presets."""

import pytest

from app.game import PRESETS, InvalidRules, Rules, preset
from app.game.rules import (
    ACE_LEAD,
    CHOICE,
    FOLLOW,
    LAST_TRICK_TIE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUMBER,
    NUMBER_OR_WORD,
    OPTIONS,
    PENALTY_TO,
    preset_name,
)

DEFAULTS = {
    "hand_size": 7, "follow": "match_or_lowest", "ace_lead": "ordinary", "last_trick_tie": "last_played",
    "threshold": 21, "lives": 2, "second_life_min_opponents": 1, "penalty_to": "highest",
    "match_length": "elimination",
}

VALID = [
    *(("hand_size", size) for size in range(3, 8)),
    *(("follow", value) for value in FOLLOW),
    *(("ace_lead", value) for value in ACE_LEAD),
    *(("last_trick_tie", value) for value in LAST_TRICK_TIE),
    ("threshold", 10), ("threshold", 21), ("threshold", 30), ("threshold", 100),
    ("lives", 1), ("lives", 2), ("lives", 3),
    ("second_life_min_opponents", 1), ("second_life_min_opponents", 3), ("second_life_min_opponents", 6),
    *(("penalty_to", value) for value in PENALTY_TO),
    ("match_length", "elimination"), ("match_length", 1), ("match_length", 50),
]

INVALID = [
    ("hand_size", 2), ("hand_size", 8), ("hand_size", "7"), ("hand_size", 7.0), ("hand_size", True),
    ("hand_size", None),
    ("follow", "any"), ("follow", ""), ("follow", 1), ("follow", None),
    ("ace_lead", "forces_highest"), ("ace_lead", True),
    ("last_trick_tie", "first_played"), ("last_trick_tie", 0),
    ("threshold", 9), ("threshold", 101), ("threshold", 21.5), ("threshold", "21"), ("threshold", False),
    ("lives", 0), ("lives", 4), ("lives", True), ("lives", 2.0),
    ("second_life_min_opponents", 0), ("second_life_min_opponents", 7), ("second_life_min_opponents", True),
    ("penalty_to", "middle"), ("penalty_to", ["highest"]),
    ("match_length", 0), ("match_length", 51), ("match_length", "forever"), ("match_length", True),
    ("match_length", 5.0), ("match_length", None),
]


def test_the_defaults_are_the_house_rules():
    assert Rules().to_dict() == DEFAULTS
    assert not Rules().is_fixed_length


@pytest.mark.parametrize(("option", "value"), VALID)
def test_every_value_of_every_option_is_accepted(option, value):
    rules = Rules.from_dict({option: value})
    assert getattr(rules, option) == value
    assert Rules.from_dict(rules.to_dict()) == rules
    others = {name: default for name, default in DEFAULTS.items() if name != option}
    assert {name: rules.to_dict()[name] for name in others} == others


@pytest.mark.parametrize(("option", "value"), INVALID)
def test_a_bad_value_names_its_option(option, value):
    with pytest.raises(InvalidRules) as caught:
        Rules.from_dict({option: value})
    assert caught.value.option == option
    assert caught.value.code == "invalid_rules"
    assert option in caught.value.message
    with pytest.raises(InvalidRules):
        Rules(**{option: value})


def test_an_unknown_option_is_named():
    with pytest.raises(InvalidRules) as caught:
        Rules.from_dict({"threshold": 30, "jokers": 2})
    assert caught.value.option == "jokers"


@pytest.mark.parametrize("options", [[("threshold", 30)], "threshold=30", 30])
def test_rules_that_are_not_a_mapping_are_refused_as_a_whole(options):
    with pytest.raises(InvalidRules) as caught:
        Rules.from_dict(options)
    assert caught.value.option is None


def test_omitted_options_take_their_default():
    assert Rules.from_dict({}) == Rules()
    assert Rules.from_dict(None) == Rules()
    rules = Rules.from_dict({"threshold": 30, "lives": 1})
    assert (rules.threshold, rules.lives, rules.hand_size) == (30, 1, 7)


def test_changed_validates_and_leaves_the_original_alone():
    rules = Rules()
    assert rules.changed(match_length=5).match_length == 5
    assert rules.match_length == "elimination"
    with pytest.raises(InvalidRules) as caught:
        rules.changed(lives=9)
    assert caught.value.option == "lives"


def test_rules_are_immutable():
    with pytest.raises(AttributeError):
        Rules().threshold = 30  # type: ignore[misc]


def test_fixed_length():
    assert Rules(match_length=3).is_fixed_length
    assert not Rules(match_length="elimination").is_fixed_length


def test_presets():
    assert preset("agurk") == Rules()
    gurka = preset("gurka")
    assert (gurka.threshold, gurka.lives, gurka.follow, gurka.ace_lead) == (30, 1, "must_match", "forces_lowest")
    assert preset("parlett") == Rules(threshold=30, lives=2, second_life_min_opponents=3, follow="must_match",
                                      last_trick_tie="all_tied", ace_lead="forces_lowest")
    assert preset("quick").hand_size == 3
    for name, rules in PRESETS.items():
        assert preset_name(rules) == name
    assert preset_name(Rules(threshold=44)) is None


def test_parlett_is_the_german_sheet_in_full():
    # Seed 003's basic rules (docs/rules.md §3, "Presets"): must head the trick if you can, a led ace forces
    # everyone's lowest card, all who tie the last trick pay, out at 30; Parlett's buy-back gives one more life,
    # only while at least 3 others are in. Its variations (follow freely, fewer cards, 21 points, ordinary
    # aces) are the options' other values, not the preset.
    parlett = preset("parlett")
    assert parlett.to_dict() == {
        "hand_size": 7, "follow": "must_match", "ace_lead": "forces_lowest", "last_trick_tie": "all_tied",
        "threshold": 30, "lives": 2, "second_life_min_opponents": 3, "penalty_to": "highest",
        "match_length": "elimination"}
    # The old parlett, which let a player who could head the trick play their lowest, is custom rules now.
    assert preset_name(parlett.changed(follow="match_or_lowest")) is None


@pytest.mark.parametrize("name", ["", "Agurk", "poker", None])
def test_an_unknown_preset_is_refused(name):
    with pytest.raises(InvalidRules) as caught:
        preset(name)
    assert caught.value.option == "preset"



# ---------------------------------------------------------------------------
# The option table: one definition of every option's values and default


def test_the_table_has_every_field_of_the_rules_with_its_default():
    from dataclasses import fields

    assert sorted(option.name for option in OPTIONS) == sorted(field.name for field in fields(Rules))
    assert {option.name: option.default for option in OPTIONS} == DEFAULTS


def test_the_table_holds_the_values_of_docs_rules_section_3():
    table = {option.name: option for option in OPTIONS}
    assert [table[name].choices for name in ("follow", "ace_lead", "last_trick_tie", "penalty_to")] == [
        FOLLOW, ACE_LEAD, LAST_TRICK_TIE, PENALTY_TO]
    assert {name: (table[name].low, table[name].high) for name in
            ("hand_size", "threshold", "lives", "second_life_min_opponents", "match_length")} == {
        "hand_size": (3, 7), "threshold": (10, 100), "lives": (1, 3),
        "second_life_min_opponents": (1, MAX_PLAYERS - 1), "match_length": (1, 50)}
    assert table["match_length"].kind == NUMBER_OR_WORD and table["match_length"].choices == ("elimination",)
    assert {option.kind for option in OPTIONS} == {CHOICE, NUMBER, NUMBER_OR_WORD}


@pytest.mark.parametrize("option", OPTIONS, ids=[option.name for option in OPTIONS])
def test_every_value_in_the_table_makes_rules_and_its_neighbours_do_not(option):
    for value in (*option.choices, *option.numbers):
        assert option.allows(value)
        assert getattr(Rules(**{option.name: value}), option.name) == value
    outside = (option.low - 1, option.high + 1) if option.kind != CHOICE else (0, 1)  # a choice takes no number
    for value in (*outside, True, f"{option.default}x", None, 7.0):
        assert not option.allows(value)
        with pytest.raises(InvalidRules) as caught:
            Rules(**{option.name: value})
        assert caught.value.option == option.name


def test_a_refusal_says_what_the_option_takes():
    table = {option.name: option for option in OPTIONS}
    with pytest.raises(InvalidRules, match="follow must be one of match_or_lowest, must_match, not 'any'"):
        table["follow"].check("any")
    with pytest.raises(InvalidRules, match="lives must be a whole number from 1 to 3, not 4"):
        table["lives"].check(4)
    with pytest.raises(InvalidRules, match="match_length must be a whole number from 1 to 50 or 'elimination'"):
        table["match_length"].check(0)


def test_the_seat_limits():
    assert (MIN_PLAYERS, MAX_PLAYERS) == (2, 7)
