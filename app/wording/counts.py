"""Counted phrases that several sentences share: points, lives, deals.

Each is plural-aware (:func:`~app.wording.language.say_count`) and goes
into a sentence as a named placeholder, so a sentence may hold two counts.
"""

from __future__ import annotations

from app.wording.language import say_count


def points(count: int) -> str:
    """A number of points: ``"1 point"``, ``"0 points"``, ``"12 points"``."""
    return say_count("{count} point", "{count} points", count)


def lives(count: int) -> str:
    """A number of lives: ``"1 life"``, ``"2 lives"``."""
    return say_count("{count} life", "{count} lives", count)


def lives_left(count: int) -> str:
    """Lives still held: ``"1 life left"``, ``"2 lives left"``."""
    return say_count("{count} life left", "{count} lives left", count)
