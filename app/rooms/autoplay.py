"""The one call that asks a bot for a card on behalf of a seat.

A bot sees only :func:`~app.game.views.view_for` of its seat; when it plays
is decided by :mod:`app.rooms.schedule`.
"""

from __future__ import annotations

import random

from app.bots import choose_card
from app.game.cards import Card
from app.game.match import Match
from app.game.views import view_for


def bot_card(match: Match, seat: int, strength: str, seed: int, budget: float) -> Card:
    """The card a bot of ``strength`` plays for ``seat``, judged from that seat's view only.

    ``seed`` makes the bot's own chance reproducible; ``budget`` is the
    thinking time in seconds of a ``hard`` bot. Raises ``ValueError`` when it
    is not ``seat``'s turn.
    """
    view = view_for(match, seat)
    if view.you is None or not view.you.legal:
        raise ValueError(f"seat {seat} has nothing to play")
    return choose_card(view, strength, random.Random(seed), budget)
