"""Players as people read them: bots' strengths and the names the table gives bots, in each language."""

import pytest

from app.bots.strength import BotStrength
from app.wording import players
from app.wording.language import LANGUAGES, speaking
from app.wording.players import bot_tag, player_name, stored_bot_name, strength_label


def test_every_strength_has_its_words():
    assert set(players.STRENGTHS) == set(players.BOT_NAMES) == set(players.BOT_TAGS) == set(BotStrength)


def test_a_bot_is_stored_under_the_same_english_name_whatever_the_language():
    with speaking("de"):
        assert stored_bot_name("normal", 2) == "Normal bot 2"


@pytest.mark.parametrize(("code", "shown"), [
    ("en", ["Easy bot 1", "Normal bot 2", "Hard bot 7"]),
    ("da", ["Let bot 1", "Normal bot 2", "Svær bot 7"]),
    ("sv", ["Lätt bot 1", "Normal bot 2", "Svår bot 7"]),
    ("de", ["Bot 1 (leicht)", "Bot 2 (normal)", "Bot 7 (schwer)"]),
    ("es", ["Bot fácil 1", "Bot normal 2", "Bot difícil 7"]),
    ("it", ["Bot facile 1", "Bot normale 2", "Bot difficile 7"]),
])
def test_bot_names_the_table_made_are_said_in_the_readers_language(code, shown):
    with speaking(code):
        assert [player_name(name) for name in ("Easy bot 1", "Normal bot 2", "Hard bot 7")] == shown


@pytest.mark.parametrize("name", ["Ana", "normal bot 2", "Normal bot", "Normal bot 02", "Normal bot 2 ", "Big bot 1"])
def test_other_names_are_shown_as_they_are(name):
    with speaking("da"):
        assert player_name(name) == name


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_strengths_and_tags_are_worded_apart(code):
    with speaking(code):
        labels = [strength_label(strength) for strength in BotStrength]
        tags = [bot_tag(strength) for strength in BotStrength]
    assert len(set(labels)) == len(set(tags)) == len(BotStrength)
    with pytest.raises(KeyError):
        strength_label("master")
