"""Table chat in words: the quick reactions, each a code said in the reader's language, and who wrote a line.

A reaction travels as its code (``"well_played"``); each reader sees it in
their own language, with its picture where it has one.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.wording.language import noted, say


@dataclass(frozen=True, slots=True)
class Reaction:
    """One quick reaction: its ``picture`` (an emoji, or ``None`` for a phrase) and its ``words`` (untranslated)."""

    picture: str | None
    words: str


REACTIONS = {
    "thumbs_up": Reaction("👍", noted("thumbs up")),
    "laugh": Reaction("😄", noted("laughing")),
    "wow": Reaction("😮", noted("surprised")),
    "sad": Reaction("😢", noted("sad")),
    "nice_trick": Reaction(None, noted("Nice trick!")),
    "oops": Reaction(None, noted("Oops!")),
    "well_played": Reaction(None, noted("Well played!")),
    "good_luck": Reaction(None, noted("Good luck!")),
}
"""Every quick reaction by its code (the protocol's ``reaction``), in the order the page shows them."""

SPECTATOR_TAG = noted("Spectator {tag}")


def reaction_words(code: str) -> str:
    """What reaction ``code`` says, in the reader's language (``"well_played"`` → ``"Well played!"``);
    ``KeyError`` for an unknown code."""
    return say(REACTIONS[code].words)


def reaction_picture(code: str) -> str | None:
    """The emoji of reaction ``code`` (``None`` for a phrase); ``KeyError`` for an unknown code."""
    return REACTIONS[code].picture


def spectator_label(sender_id: str) -> str:
    """How a spectator, who has no name, is shown: ``"Spectator k3m9"``, from the first four
    characters of their anonymous id (enough to tell the watchers of one table apart)."""
    return say(SPECTATOR_TAG, tag=sender_id[:4])
