"""The ``normal`` bot: a fixed rule of thumb over the legal cards.

Also the fast rollout policy of the ``hard`` search, which calls
:func:`preferred_card` on bit sets thousands of times per decision.
"""

from __future__ import annotations

from app.game.cards import DECK, Card, mask_of
from app.game.rules import Rules
from app.game.views import MatchView


def sheds_high(rules: Rules) -> bool:
    """Whether a player wants to get rid of high cards before the last trick.

    Under the default penalty (docs/rules.md §2.7, also with §3 ``all_tied``) the
    highest card of the last trick pays, so high cards are shed and a low
    card kept for the end. Under ``penalty_to = "lowest"`` (§3, inverse
    cucumber) the lowest card of the last trick pays (every equal lowest
    one with ``all_tied``), so it is the reverse.
    """
    return rules.penalty_to == "highest"


def preferred_card(legal: int, high_first: bool) -> Card:
    """The card the rule of thumb plays from ``legal`` (a non-empty bit set of cards).

    ``high_first`` (see :func:`sheds_high`) plays the highest legal card,
    otherwise the lowest. Why this is sensible (docs/rules.md §2.4, §3):

    - Leading high forces every follower to match it or give up their lowest
      card (under ``forces_lowest`` an ace forces that outright), while
      following high sheds a dangerous card at no cost; either way the
      player's low cards stay for the last trick, which is the only one that
      scores. An ace kept to the end would also lose a forcing-ace last trick.
    - Under ``must_match`` the legal set already holds only the cards the
      player must choose from; the same preference applies among them.
    - Under inverse cucumber the mirror holds: shed low cards (the lowest
      card is always legal under ``match_or_lowest``), keep the highest.

    Cards of one rank are interchangeable (suits carry no strength, §1), so
    the lowest suit of the chosen rank is played. Raises ``ValueError`` for
    an empty ``legal``.
    """
    if not legal:
        raise ValueError("no legal card to choose from")
    if high_first:
        top = legal.bit_length() - 1
        top_rank_first = top & ~3  # lowest suit of the highest rank
        rank_cards = legal >> top_rank_first
        return DECK[top_rank_first + ((rank_cards & -rank_cards).bit_length() - 1)]
    return DECK[(legal & -legal).bit_length() - 1]


def normal_card(view: MatchView) -> Card:
    """The ``normal`` bot's card for the seat of ``view`` (docs/rules.md §2.4–2.7, §3).

    ``view`` must be a player's view on their turn (``view.you.legal`` not
    empty); the result is always one of ``view.you.legal``. The choice
    depends only on the legal cards and the penalty rule (see
    :func:`preferred_card`): the rule of thumb plays the deal, not the
    scoreboard. Raises ``ValueError`` when the viewer has no legal card.
    """
    if view.you is None or not view.you.legal:
        raise ValueError("the viewer has no legal card to play")
    return preferred_card(mask_of(view.you.legal), sheds_high(view.rules))
