"""The bot strengths: one list, weakest first, parsed from their names only."""

import pytest

from app.bots.strength import BotStrength


def test_strengths_weakest_first_and_equal_to_their_names():
    assert tuple(BotStrength) == ("easy", "normal", "hard", "expert")
    assert [str(strength) for strength in BotStrength] == ["easy", "normal", "hard", "expert"]


def test_parse_takes_a_name_or_a_strength():
    assert BotStrength.parse("hard") is BotStrength.HARD
    assert BotStrength.parse(BotStrength.EASY) is BotStrength.EASY


@pytest.mark.parametrize("name", ["Hard", " easy", "master", "Expert", "", None, 1, ["normal"]])
def test_parse_refuses_anything_else_and_names_the_choices(name):
    with pytest.raises(ValueError, match="choose one of easy, normal, hard"):
        BotStrength.parse(name)
