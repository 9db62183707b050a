"""The rules form: fields made from the engine's option table, and reading what a form posts."""

import pytest

from app.game.rules import OPTIONS, PRESETS, Rules
from app.pages.rules_form import ROUND_NUMBERS, SELECT_AT_MOST, rules_fields, rules_from_form
from app.rooms.messages import rules_from


def fields_by_name():
    return {field.name: field for field in rules_fields()}


def test_one_field_per_option_in_the_tables_order():
    assert [field.name for field in rules_fields()] == [option.name for option in OPTIONS]


def test_choices_and_short_ranges_are_lists_and_wide_ranges_are_typed():
    for option, field in zip(OPTIONS, rules_fields(), strict=True):
        if field.widget == "number":
            assert len(option.numbers) > SELECT_AT_MOST and not option.choices
            assert (field.low, field.high) == (option.low, option.high)
        else:
            values = [choice.value for choice in field.choices]
            assert values[:len(option.choices)] == list(option.choices)
            assert all(option.allows(int(value)) for value in values[len(option.choices):])
    fields = fields_by_name()
    assert fields["threshold"].widget == "number"
    assert [choice.value for choice in fields["hand_size"].choices] == ["3", "4", "5", "6", "7"]
    assert [choice.value for choice in fields["match_length"].choices] == [
        "elimination", *(str(number) for number in ROUND_NUMBERS if number <= 50)]


def test_fields_are_labelled_in_words():
    fields = fields_by_name()
    assert fields["hand_size"].label == "Cards each"
    assert fields["follow"].choices[1].label == "must match the highest if you can"
    assert fields["second_life_min_opponents"].choices[0].label == "1 (always)"
    assert fields["match_length"].choices[1].label == "1 deal, lowest total wins"
    assert fields["match_length"].choices[2].label == "2 deals, lowest total wins"


def test_a_preset_is_sent_by_name():
    assert rules_from_form({"preset": "gurka", "threshold": "99"}) == {"preset": "gurka"}


def test_custom_rules_turn_numbers_into_ints_and_keep_words():
    form = {"preset": "custom", "hand_size": "4", "follow": "must_match", "ace_lead": "ordinary",
            "last_trick_tie": "all_tied", "threshold": "40", "lives": "3", "second_life_min_opponents": "1",
            "penalty_to": "highest", "match_length": "5"}
    message = rules_from_form(form)
    assert message == {"rules": {"hand_size": 4, "follow": "must_match", "ace_lead": "ordinary",
                                 "last_trick_tie": "all_tied", "penalty_to": "highest", "threshold": 40, "lives": 3,
                                 "second_life_min_opponents": 1, "match_length": 5}}
    expected = Rules(hand_size=4, follow="must_match", last_trick_tie="all_tied", threshold=40, lives=3,
                     match_length=5)
    assert rules_from(message.get("preset"), message.get("rules")) == expected


@pytest.mark.parametrize("length", [None, "", "elimination"])
def test_a_missing_or_empty_match_length_means_elimination(length):
    form = {"preset": "custom"} if length is None else {"preset": "custom", "match_length": length}
    assert rules_from_form(form) == {"rules": {"match_length": "elimination"}}


def test_bad_values_are_left_for_the_rules_check():
    assert rules_from_form({"threshold": "²", "follow": "any"})["rules"] == {
        "threshold": "²", "follow": "any", "match_length": "elimination"}


def test_every_preset_posted_as_custom_options_gives_the_preset_back():
    for rules in PRESETS.values():
        form = {"preset": "custom", **{name: str(value) for name, value in rules.to_dict().items()}}
        assert rules_from(rules_from_form(form).get("preset"), rules_from_form(form).get("rules")) == rules
