"""The translation hook: whole sentences with named placeholders, and plural forms."""

import pytest

from app.wording.language import both, either, noted, say, say_count

LIFE = ("{count} life left", "{count} lives left")


def test_say_fills_named_placeholders():
    assert say("{name} wins the match!", name="Ana") == "Ana wins the match!"
    assert say("The last player left in wins.") == "The last player left in wins."


def test_say_inserts_values_as_they_are():
    assert say("{name} wins the match!", name="{x} {name}") == "{x} {name} wins the match!"


def test_say_names_a_missing_fact():
    with pytest.raises(KeyError):
        say("{name} wins the match!")


@pytest.mark.parametrize(("count", "expected"), [
    (0, "0 lives left"), (1, "1 life left"), (2, "2 lives left"), (5, "5 lives left"),
])
def test_say_count_chooses_the_english_plural_form(count, expected):
    assert say_count(*LIFE, count) == expected


def test_say_count_fills_other_facts_too():
    assert say_count("{name} scores {count} point.", "{name} scores {count} points.", 2, name="Cy") == \
        "Cy scores 2 points."


def test_noted_marks_without_changing():
    assert noted("the match is over") == "the match is over"


@pytest.mark.parametrize(("items", "alternatives", "together"), [
    ([], "", ""),
    (["2C"], "2C", "2C"),
    (["2C", "2S"], "2C or 2S", "2C and 2S"),
    (["2C", "2D", "2S"], "2C or 2D or 2S", "2C and 2D and 2S"),
])
def test_lists_in_sentences(items, alternatives, together):
    assert either(items) == alternatives
    assert both(items) == together
