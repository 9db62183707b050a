"""One entry point for every bot: a seat's view in, a legal card out.

A bot is given nothing but the seat's :class:`~app.game.views.MatchView`, the
one projection of a match that hides other players' cards.
"""

from __future__ import annotations

import random

from app.bots.easy import easy_card
from app.bots.expert import expert_card
from app.bots.heuristic import normal_card
from app.bots.search import DEFAULT_BUDGET_S, search_card
from app.bots.strength import BotStrength
from app.game.cards import Card
from app.game.views import MatchView

__all__ = ["DEFAULT_BUDGET_S", "BotStrength", "choose_card"]


def choose_card(view: MatchView, strength: BotStrength | str, rng: random.Random, budget_s: float | None = None, *,
                max_worlds: int | None = None) -> Card:
    """The card a bot of ``strength`` plays for the seat of ``view``; always one of ``view.you.legal``.

    ``strength`` is a :class:`BotStrength` or its name:

    - ``"easy"``: uniform among the legal cards (:func:`~app.bots.easy.easy_card`).
    - ``"normal"``: a rule of thumb (:func:`~app.bots.heuristic.normal_card`).
    - ``"hard"``: a Monte Carlo search (:func:`~app.bots.search.search_card`)
      that thinks for at most ``budget_s`` seconds (default
      :data:`DEFAULT_BUDGET_S`) and at most ``max_worlds`` sampled worlds;
      it answers at once when only one rank is legal.
    - ``"expert"``: that search on the fast engine, with sampled hands
      weighted by how well they explain the other players' plays and,
      heads-up, an exact endgame (:func:`~app.bots.expert.expert_card`);
      ``budget_s`` and ``max_worlds`` bound it alike (default
      :data:`~app.bots.expert.EXPERT_BUDGET_S`).

    ``view`` must be a player's view (``view_for(match, seat)``) on their
    turn; chance comes only from ``rng``. Raises ``TypeError`` if ``view`` is
    not a :class:`MatchView`, and ``ValueError`` for an unknown strength or
    when the viewer has no legal card.
    """
    if not isinstance(view, MatchView):
        raise TypeError(f"a bot is given a MatchView, not {type(view).__name__}")
    strength = BotStrength.parse(strength)
    if strength is BotStrength.EASY:
        return easy_card(view, rng)
    if strength is BotStrength.NORMAL:
        return normal_card(view)
    if strength is BotStrength.EXPERT:
        return expert_card(view, rng, budget_s, max_worlds)
    return search_card(view, rng, budget_s, max_worlds)
