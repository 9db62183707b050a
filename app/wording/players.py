"""Players as people read them: bots' strengths, and the names the table gives bots.

A bot added at the table is stored under a name made from its strength and
a number (``"Normal bot 2"``, the form rooms and match records have always
kept). Wherever a name is shown, a name of exactly that form is said in the
reader's language instead (``"Bot 2 (normal)"``…); every other name is the
player's own and is shown as it is.
"""

from __future__ import annotations

import re

from app.wording.language import noted, say

STRENGTHS = {
    "easy": noted("easy"),
    "normal": noted("normal"),
    "hard": noted("hard"),
    "expert": noted("expert"),
}
"""The label of each bot strength (``app.bots.strength.BotStrength``) on the page."""

BOT_NAMES = {
    "easy": noted("Easy bot {number}"),
    "normal": noted("Normal bot {number}"),
    "hard": noted("Hard bot {number}"),
    "expert": noted("Expert bot {number}"),
}
"""How the table names the bots it adds, by strength, in each language."""

BOT_TAGS = {
    "easy": noted("easy bot"),
    "normal": noted("normal bot"),
    "hard": noted("hard bot"),
    "expert": noted("expert bot"),
}
"""The tag beside a bot's seat, by strength."""

_STORED = re.compile(r"(Easy|Normal|Hard|Expert) bot ([1-9][0-9]?)")


def stored_bot_name(strength: str, number: int) -> str:
    """The name a bot of ``strength`` is stored under at the table: ``("normal", 2)`` → ``"Normal bot 2"``.

    Always the same English form, whatever the language spoken: it is data
    (rooms, match records), worded only when shown (:func:`player_name`).
    """
    return f"{strength.capitalize()} bot {number}"


def player_name(name: str) -> str:
    """A stored player name as shown: a bot name the table made (``"Normal bot 2"``) in the reader's
    language, any other name as it is."""
    made = _STORED.fullmatch(name)
    if made is None:
        return name
    return say(BOT_NAMES[made.group(1).lower()], number=int(made.group(2)))


def strength_label(strength: str) -> str:
    """A bot strength's label (``"hard"`` → ``"hard"`` in English); ``KeyError`` for an unknown one."""
    return say(STRENGTHS[strength])


def bot_tag(strength: str) -> str:
    """The tag of a bot's seat: ``"normal"`` → ``"normal bot"``; ``KeyError`` for an unknown strength."""
    return say(BOT_TAGS[strength])
