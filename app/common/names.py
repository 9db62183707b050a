"""What people type: player names and numbers from forms.

Names are 1–20 visible characters after trimming, unique in a room without
regard to case, width or characters drawn as nothing. Every way in (the
table, the API, imported records) checks names here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

NAME_MAX = 20
NAME_INPUT_MAX = 2 * NAME_MAX
"""The ``maxlength`` of a name box. Browsers count UTF-16 units, two for each character beyond U+FFFF (most
emoji), so a box of ``NAME_MAX`` cuts such a name short; a name over ``NAME_MAX`` characters that fits the box
is refused by :func:`clean_name`, with its reason."""
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_JOINER = "\u200d"  # joins emoji into one picture (👨‍👩‍👧): allowed between visible characters
_SEEN = ("L", "N", "P", "S")  # letters, numbers, punctuation, symbols
_BLANK = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}  # letters and symbols drawn as nothing
_IGNORABLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
              "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
              "\U000e0000-\U000e001f\U000e0080-\U000e0fff")
"""Unicode's default-ignorable code points (joiners, variation selectors), but for the tags U+E0020–E007F:
those are drawn, as the flag they spell (:data:`_FLAG`)."""
_UNDRAWN = re.compile(f"[{_IGNORABLE}{''.join(sorted(_BLANK))}]")
_FLAG = re.compile("\U0001f3f4(?:" + "|".join("".join(chr(0xE0000 + ord(letter)) for letter in region)
                                           for region in ("gbeng", "gbsct", "gbwls")) + ")\U000e007f")
"""England's, Scotland's and Wales' flags, each a black flag and the tags that spell its region ("gbsct"): the
flags spelled with tags that are drawn as such. Other tags would show a plain black flag, or nothing."""


class InvalidName(ValueError):
    """A name that is empty, too long or contains invisible or control characters.

    The message is English, for logs and the command line; ``reason`` (a
    reason of ``app.wording.errors``) and ``facts`` let pages say it in
    their reader's language.
    """

    code = "invalid_name"

    def __init__(self, message: str, reason: str, **facts: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.facts = facts


def clean_name(raw: object) -> str:
    """The name as shown: NFC-normalised, trimmed, inner white space collapsed.

    Raises :class:`InvalidName` unless the result has 1 to 20 characters:
    letters, marks, numbers, punctuation, symbols, single spaces between
    words, emoji joiners and the tags of a flag (🏴 and its tags, as
    Scotland's), with at least one character that is drawn (not
    blank-looking fillers or lone combining marks).
    """
    if not isinstance(raw, str):
        raise InvalidName("a name must be text", "name_not_text")
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise InvalidName("enter a name", "name_empty")
    if len(name) > NAME_MAX:
        raise InvalidName(f"a name has at most {NAME_MAX} characters", "name_too_long", count=NAME_MAX)
    joiners_ok = all(0 < index < len(name) - 1 and not name[index - 1].isspace() and not name[index + 1].isspace()
                     for index, char in enumerate(name) if char == _JOINER)
    drawn = _FLAG.sub("\U0001f3f4", name)
    if not joiners_ok or any(unicodedata.category(char) in _INVISIBLE for char in drawn if char != _JOINER):
        raise InvalidName("a name may only contain visible characters", "name_invisible")
    if not shows_something(name):
        raise InvalidName("a name needs at least one visible letter, digit or symbol", "name_blank")
    return name


def shows_something(text: str) -> bool:
    """Whether ``text`` has a character that is drawn: a letter, number, punctuation or symbol, not one of the
    fillers drawn as nothing (white space, zero-width and control characters, lone combining marks are not)."""
    return any(unicodedata.category(char).startswith(_SEEN) and char not in _BLANK for char in text)


def same_name(first: str, second: str) -> bool:
    """Whether two cleaned names count as the same: equal after NFKC and case folding, leaving out the
    characters that are drawn as nothing (joiners, variation selectors, blank fillers). So "Ana", "ANA",
    "Ａｎａ" and "A\u200dna" are one name."""
    return _folded(first) == _folded(second)


def _folded(name: str) -> str:
    return " ".join(_UNDRAWN.sub("", unicodedata.normalize("NFKC", name)).casefold().split())


_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")


def form_number(value: Any) -> Any:
    """A whole number written as text (``"30"``) as an int; anything else as it came.

    Only ASCII digits count: ``"²"`` or ``"３０"`` stay text, for the checks to refuse.
    """
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value)
    return value
