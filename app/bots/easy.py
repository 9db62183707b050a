"""The ``easy`` bot: a card chosen uniformly at random among the legal ones."""

from __future__ import annotations

import random

from app.game.cards import Card
from app.game.views import MatchView


def easy_card(view: MatchView, rng: random.Random) -> Card:
    """A card uniform among ``view.you.legal`` (docs/rules.md §2.4, §3 ``follow``), drawn with ``rng``.

    Raises ``ValueError`` when the viewer has no legal card.
    """
    if view.you is None or not view.you.legal:
        raise ValueError("the viewer has no legal card to play")
    return rng.choice(view.you.legal)
