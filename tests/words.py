"""What a page says to people, and the English words that must not be left in a page in another language.

``readable(html)`` is the text a person sees or hears: text outside scripts and
styles, the labels and titles of elements, and the words a page hands its
scripts (the JSON blocks ``#page-words`` and ``#replay-words``).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

ENGLISH = (
    "the", "and", "of", "is", "on", "your", "you", "trick", "tricks", "deal", "deals", "card", "cards",
    "player", "players", "turn", "wait", "waiting", "match", "matches", "life", "lives", "points", "seat", "seats",
    "table", "rules", "share", "play", "played", "lowest", "highest", "threshold", "dealer", "watching",
    "connecting", "reconnecting", "replay", "past", "open", "copy", "copied", "take", "again", "win", "wins",
    "winner", "host", "away", "remove", "previous", "last", "next", "finished", "custom", "options", "easy", "hard",
    "off", "set", "add", "leave", "keys", "first", "page", "pages", "newer", "older", "scores", "led", "took",
    "penalty", "value", "quick", "example", "how", "when", "with", "only", "everyone", "seconds", "clock", "save",
)
"""Common English words of the pages that are no word of Danish, Swedish, German, Spanish or Italian.

Left out on purpose: words those languages share with English or use as they
are (link, start, hand, bot, normal, offline, point, in, to, a, no), and the
game's own name, Cucumber, which German, Spanish and Italian players use.
"""

KEYS = ("Page Up", "Page Down")
"""Keys named as they are printed on the keyboards of Denmark and Sweden, in English."""

_LABELS = ("aria-label", "title", "alt", "placeholder")
_WORDS = ("page-words", "replay-words")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._script: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.parts += [value for name, value in attrs if name in _LABELS and value]
        if tag in ("script", "style"):
            self._script = values.get("id") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is None:
            self.parts.append(data)
        elif self._script in _WORDS:
            self.parts += [str(value) for value in json.loads(data).values()]


def readable(html: str) -> str:
    """Everything in ``html`` meant for people to read or hear, as one text."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return " ".join(" ".join(reader.parts).split())


def english_left(html: str, *, names: tuple[str, ...] = ()) -> list[str]:
    """The words of :data:`ENGLISH` that ``html`` still says, leaving out the players' ``names``."""
    text = re.sub(r"\{\w+\}", " ", readable(html))  # a script's placeholders are names, not words
    for name in (*names, *KEYS):
        text = text.replace(name, " ")
    words = set(re.findall(r"[^\W\d_]+", text.lower()))
    return sorted(words & set(ENGLISH))
