"""The translation hook: whole sentences with named placeholders, plural forms, and the language spoken."""

import pytest

from app.wording.counts import lives, lives_left, points
from app.wording.language import (
    LANGUAGES,
    both,
    either,
    language,
    listing,
    negotiate,
    noted,
    number,
    say,
    say_count,
    say_in,
    speaking,
    supported,
    text_direction,
    translations,
)

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


# ---------------------------------------------------------------- other languages


PLURALS = {
    # language: {count: (points, lives, lives left)}
    "en": {0: ("0 points", "0 lives", "0 lives left"), 1: ("1 point", "1 life", "1 life left"),
           2: ("2 points", "2 lives", "2 lives left"), 5: ("5 points", "5 lives", "5 lives left")},
    "da": {0: ("0 point", "0 liv", "0 liv tilbage"), 1: ("1 point", "1 liv", "1 liv tilbage"),
           2: ("2 point", "2 liv", "2 liv tilbage"), 5: ("5 point", "5 liv", "5 liv tilbage")},
    "sv": {0: ("0 poäng", "0 liv", "0 liv kvar"), 1: ("1 poäng", "1 liv", "1 liv kvar"),
           2: ("2 poäng", "2 liv", "2 liv kvar"), 5: ("5 poäng", "5 liv", "5 liv kvar")},
    "de": {0: ("0 Punkte", "0 Leben", "0 Leben übrig"), 1: ("1 Punkt", "1 Leben", "1 Leben übrig"),
           2: ("2 Punkte", "2 Leben", "2 Leben übrig"), 5: ("5 Punkte", "5 Leben", "5 Leben übrig")},
    "es": {0: ("0 puntos", "0 vidas", "quedan 0 vidas"), 1: ("1 punto", "1 vida", "queda 1 vida"),
           2: ("2 puntos", "2 vidas", "quedan 2 vidas"), 5: ("5 puntos", "5 vidas", "quedan 5 vidas")},
    "it": {0: ("0 punti", "0 vite", "0 vite rimaste"), 1: ("1 punto", "1 vita", "1 vita rimasta"),
           2: ("2 punti", "2 vite", "2 vite rimaste"), 5: ("5 punti", "5 vite", "5 vite rimaste")},
}


@pytest.mark.parametrize("code", list(LANGUAGES))
@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_counts_take_each_language_plural_form(code, count):
    with speaking(code):
        assert (points(count), lives(count), lives_left(count)) == PLURALS[code][count]


@pytest.mark.parametrize(("code", "count", "expected"), [
    ("da", 1, "Du må kun fortsætte, hvis mindst 1 anden var med, da runden begyndte."),
    ("da", 2, "Du må kun fortsætte, hvis mindst 2 andre var med, da runden begyndte."),
    ("sv", 1, "Du får bara fortsätta om minst 1 annan var kvar när given började."),
    ("sv", 5, "Du får bara fortsätta om minst 5 andra var kvar när given började."),
])
def test_danish_and_swedish_sentences_agree_with_their_count(code, count, expected):
    with speaking(code):
        assert say_count("You may only continue if at least {count} other was still in when that deal began.",
                         "You may only continue if at least {count} others were still in when that deal began.",
                         count) == expected


def test_speaking_chooses_the_language_for_the_block_only():
    assert language() == "en"
    with speaking("sv"):
        assert language() == "sv" and say("The last player left in wins.") == "Den sista spelaren som är kvar vinner."
        with speaking("de"):
            assert say("{name} wins the match!", name="Ana") == "Ana gewinnt die Partie!"
        assert language() == "sv"
    assert say("The last player left in wins.") == "The last player left in wins."
    with pytest.raises(KeyError):
        speaking("pt").__enter__()


def test_words_in_a_context_are_translated_apart():
    with speaking("da"):
        assert say_in("card corner", "A") == "E" and say_in("card corner", "J") == "B"
    with speaking("de"):
        assert say_in("card corner", "Q") == "D"


def test_numbers_and_lists_as_each_language_writes_them():
    assert number(1234) == "1,234" and listing(["Ana", "Ben", "Cy"]) == "Ana, Ben and Cy"
    with speaking("da"):
        assert number(1234) == "1.234" and listing(["Ana", "Ben", "Cy"]) == "Ana, Ben og Cy"
    with speaking("de"):
        assert say_count("{count} point", "{count} points", 1500) == "1.500 Punkte"
    assert listing(["Ana"]) == "Ana" and listing(["Ana", "Ben"]) == "Ana and Ben"


@pytest.mark.parametrize(("tag", "code"), [("da", "da"), ("da-DK", "da"), ("SV_fi", "sv"), ("de-CH", "de"),
                                           ("pt-BR", None), ("*", None), ("", None), (None, None), (3, None),
                                           ("en;q=1", None)])
def test_supported_reads_a_language_tag(tag, code):
    assert supported(tag) == code


@pytest.mark.parametrize(("header", "code"), [
    ("da-DK,da;q=0.9,en-US;q=0.8,en;q=0.7", "da"),
    ("pt-BR,pt;q=0.9,sv;q=0.5,en;q=0.4", "sv"),
    ("en;q=0.5, de;q=0.8", "de"),
    ("it;q=0, es", "es"),
    ("fr, nl", None),
    ("", None),
    (None, None),
    ("garbage;;;q=x,,", None),
])
def test_negotiate_takes_the_most_preferred_language_spoken_here(header, code):
    assert negotiate(header) == code


def test_every_language_is_written_left_to_right_and_has_its_catalogue():
    for code in LANGUAGES:
        assert text_direction(code) == "ltr"
        assert translations(code) is translations(code)  # compiled once


def test_a_number_said_once_in_one_language_is_said_anew_in_another():
    # Numbers are kept once written; each language keeps its own, and a float stays apart from an int.
    assert number(4321) == "4,321" and number(4321) == "4,321"
    with speaking("da"):
        assert number(4321) == "4.321"
    with speaking("de"):
        assert number(4321) == "4.321" and number(2.5) == "2,5"
    assert number(4321) == "4,321" and number(2.0) == "2" and number(1.5) == "1.5"
