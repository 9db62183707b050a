"""Player names, room codes and form numbers."""

from __future__ import annotations

import pytest

from app.common.identity import ROOM_CODE_ALPHABET as CODE_ALPHABET
from app.common.identity import new_room_code, normalise_code
from app.common.names import InvalidName, clean_name, form_number, same_name


@pytest.mark.parametrize(("raw", "shown"), [
    ("  Ana  ", "Ana"),
    ("Ana   Maria", "Ana Maria"),
    ("<script>x</script>", "<script>x</script>"),
    ("Zoë", "Zoë"),
    ("Zoe\u0308", "Zoë"),  # NFC
    ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),
    ("x" * 20, "x" * 20),
])
def test_names_that_are_accepted(raw, shown):
    assert clean_name(raw) == shown


@pytest.mark.parametrize("raw", [
    "", "   ", "x" * 21, "a\u200bb", "\u202eevil", "a\x00b", "\u3164", "\u2800\u2800", "\uffa0",
    "\u0301\u0301\u0301", "\u034f", "\u200dA", "A\u200d", 7, None,
])
def test_names_that_are_refused(raw):
    with pytest.raises(InvalidName):
        clean_name(raw)


def test_names_compare_without_case_or_width():
    assert same_name("Ana", "ANA") and same_name("Ana", "Ａｎａ") and same_name("Ana", "𝐀𝐧𝐚")
    assert not same_name("Ana", "Anna")


@pytest.mark.parametrize("lookalike", [
    "A\u200dna", "Ana\ufe0f", "A\u034fna", "An\u17b4a", "Ana\U000e0100", "A\u3164na", "Ana\u2800", "An\uffa0a",
    "Ana \u3164", "\u2800 Ana", "Ana \u3164 \u2800",  # a filler as a word of its own: the space goes with it
])
def test_names_that_differ_only_by_characters_drawn_as_nothing_are_the_same(lookalike):
    assert clean_name(lookalike) != "Ana"  # the name itself is kept as typed
    assert same_name("Ana", clean_name(lookalike)) and same_name(clean_name(lookalike), "ANA")


SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
WALES = "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f"


def test_a_flag_spelled_with_tags_is_a_name_and_two_such_flags_are_two_names():
    assert clean_name(f"Ian {SCOTLAND}") == f"Ian {SCOTLAND}"
    assert not same_name(f"Ian {SCOTLAND}", f"Ian {WALES}") and not same_name(f"Ian {SCOTLAND}", "Ian \U0001f3f4")
    tags = {letter: chr(0xE0000 + ord(letter)) for letter in "gbzGBSCT "}
    for stray in ["A\U000e0067na", "\U0001f3f4\U000e0067\U000e0062", f"Ana {SCOTLAND[1:]}", "Ana \U000e007f",
                  "\U0001f3f4" + "".join(tags[letter] for letter in "zz") + "\U000e007f",  # no such flag: a plain 🏴
                  "\U0001f3f4" + "".join(tags[letter] for letter in "GBSCT") + "\U000e007f",
                  "\U0001f3f4" + tags[" "] + "\U000e007f"]:
        with pytest.raises(InvalidName):  # tags outside a flag, a flag never ended, or one nobody draws
            clean_name(stray)


def test_emoji_joined_or_not_are_one_name_but_other_emoji_are_not():
    assert same_name("👨\u200d👩\u200d👧", "👨👩👧") and same_name("❤\ufe0f", "❤")
    assert not same_name("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👦")


def test_room_codes_use_unambiguous_characters_and_are_not_reused():
    assert not set(CODE_ALPHABET) & set("01OIL")
    taken = {new_room_code() for _ in range(200)}
    assert all(len(code) == 5 and set(code) <= set(CODE_ALPHABET) for code in taken)
    assert new_room_code(taken) not in taken
    assert normalise_code(" k7qxm ") == "K7QXM"


@pytest.mark.parametrize(("value", "number"), [("30", 30), (" 7 ", 7), ("-3", -3), (5, 5), ("²", "²"),
                                               ("３０", "３０"), ("1e3", "1e3"), ("9" * 12, "9" * 12)])
def test_form_numbers_are_ascii_digits_only(value, number):
    assert form_number(value) == number
