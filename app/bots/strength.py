"""The bot strengths, weakest first: the one list the bots, rooms, storage and pages take them from.

A strength's value is its name as stored in the database and sent in messages.
"""

from __future__ import annotations

from enum import StrEnum


class BotStrength(StrEnum):
    """How well a bot plays, weakest first; each member equals its name (``BotStrength.HARD == "hard"``).

    - ``EASY``: a random legal card.
    - ``NORMAL``: a rule of thumb.
    - ``HARD``: a search over the hands the others may hold.
    - ``EXPERT``: that search on the fast engine, with the hands weighted by
      how well they explain the others' plays and, heads-up, the end of the
      deal played exactly.
    """

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"

    @classmethod
    def parse(cls, name: object) -> BotStrength:
        """The strength called ``name`` exactly (``"hard"`` → ``BotStrength.HARD``; a member gives itself).

        Raises ``ValueError`` naming the strengths for anything else
        (another case, other text, a non-string).
        """
        if isinstance(name, str):
            for strength in cls:
                if strength.value == name:
                    return strength
        raise ValueError(f"unknown bot strength {name!r}; choose one of {', '.join(cls)}")
