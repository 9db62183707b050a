"""Who plays for a seat when its player cannot: bots, the turn clock, absent players.

Pure decisions from the room's timing facts, plus the one call that asks a
bot for a card. A bot sees only :func:`~app.game.views.view_for` of its seat.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.bots import BotStrength, choose_card
from app.game.cards import Card
from app.game.match import Match
from app.game.views import view_for

STAND_IN = BotStrength.NORMAL
"""The bot that plays for an absent player or when the turn clock runs out."""


@dataclass(frozen=True, slots=True)
class Timing:
    """A room's timings, in seconds.

    ``bot_delay``: a bot's pause before playing; ``away_grace``: how long a
    player may have no connection before a bot plays for them;
    ``hard_budget``: thinking time of a ``hard`` bot; ``deal_pause``: the
    pause after a deal before the next one.
    """

    deal_pause: float = 0.0
    bot_delay: float = 0.0
    away_grace: float = 60.0
    hard_budget: float = 0.15


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What decides whether the seat to play is played for, at one moment.

    ``bot``: the seat's bot strength, ``None`` for a person; ``absent_for``:
    seconds since the person's last connection closed (``None`` while
    connected); ``turn_for``: seconds since the turn began; ``clock``: the
    room's seconds per turn (``None`` when off).
    """

    bot: str | None
    absent_for: float | None
    turn_for: float
    clock: float | None


@dataclass(frozen=True, slots=True)
class Due:
    """A seat's card is due from a bot in ``delay`` seconds, played as ``strength``.

    ``reason`` is ``"bot"``, ``"away"`` or ``"clock"``.
    """

    delay: float
    strength: str
    reason: str


def turn_due(facts: TurnFacts, timing: Timing) -> Due:
    """When and how the seat to play will be played for if nothing else happens.

    A bot seat plays after ``bot_delay``. A person is played for by the
    stand-in bot once absent for ``away_grace`` seconds, or when the turn
    clock runs out, whichever comes first (RULES of the room, not of the game).
    Returns a far-off ``Due`` when neither can happen.
    """
    if facts.bot is not None:
        return Due(max(0.0, timing.bot_delay - facts.turn_for), facts.bot, "bot")
    candidates = [Due(float("inf"), STAND_IN, "none")]
    if facts.absent_for is not None:
        wait = max(0.0, timing.away_grace - facts.absent_for)
        # Once away, keep a natural pace, as a bot seat would.
        candidates.append(Due(max(wait, timing.bot_delay - facts.turn_for, 0.0), STAND_IN, "away"))
    if facts.clock is not None:
        candidates.append(Due(max(0.0, facts.clock - facts.turn_for), STAND_IN, "clock"))
    return min(candidates, key=lambda due: due.delay)


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
