"""Computer players for Cucumber, from random (``easy``) to searches (``hard``, ``expert``).

Call :func:`choose_card` with a seat's view; :mod:`app.bots.arena` plays bots
against each other and measures them.
"""

from app.bots.choose import DEFAULT_BUDGET_S, choose_card
from app.bots.strength import BotStrength

__all__ = ["DEFAULT_BUDGET_S", "BotStrength", "choose_card"]
