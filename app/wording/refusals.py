"""Why a move is refused, in words: for a refused play and for a card that cannot be played.

The engine gives a :class:`~app.game.errors.Refusal` (a code and facts,
docs/rules.md §2.3–2.4, §2.10, §3); the sentences are here.
"""

from __future__ import annotations

import functools

from app.game.errors import GameError
from app.game.refusals import IllegalMove, Refusal
from app.wording.cards import rank_label
from app.wording.language import either, language, noted, say
from app.wording.players import player_name

REFUSALS = {
    "match_over": noted("the match is over"),
    "deal_not_started": noted("no deal is being played; wait for the next deal"),
    "deal_in_progress": noted("the current deal is still being played"),
    "not_your_turn": noted("it is {player}'s turn"),
    "card_not_in_hand": noted("{card} is not in your hand"),
    "lowest_after_ace": noted("an ace was led: you must play your lowest card ({lowest})"),
    "must_match": noted("you hold a card of rank {rank} or higher, so you must play one"),
    "match_or_lowest": noted("play a card of rank {rank} or higher, or your lowest card ({lowest})"),
    "not_legal": noted("{card} is not a legal card here"),
}
"""The answer to a refused move, by :attr:`Refusal.code`."""

WAITING = {
    "not_your_turn": noted("wait for your turn"),
    "deal_not_started": noted("wait for the next deal"),
}
"""Why a card in the hand cannot be played yet, where it differs from :data:`REFUSALS`.

These name nobody: whose turn it is, the table says once (the page's status,
the state's ``turn``), and a hand whose cards did not change then says the
same from one play to the next."""


def refusal(reason: Refusal) -> str:
    """Why a move was refused, e.g. ``"play a card of rank 9 or higher, or your lowest card (2S)"``.

    Cards are named by their codes and the rank to reach by its label.
    Raises ``KeyError`` for a code outside :data:`app.game.errors.REFUSALS`.
    """
    return _say(REFUSALS[reason.code], reason)


def unplayable(reason: Refusal) -> str:
    """Why a card of one's own hand cannot be played now, as its button explains it.

    As :func:`refusal`, except while waiting: ``"wait for your turn"`` and
    ``"wait for the next deal"``.
    """
    return _unplayable(unplayable_said(reason), language())


@functools.lru_cache(maxsize=4096)
def unplayable_said(reason: Refusal) -> Refusal:
    """What :func:`unplayable` says of ``reason`` depends on, in a language: ``reason`` with only the facts
    its words name (none while waiting, :data:`WAITING`). Two reasons with equal values are said alike.

    A hand's cards that cannot be played are refused for the same few reasons, each naming the card; the
    words of most name the rank to reach and the lowest cards, not the card: one wording serves the whole
    hand. Worked out once for equal reasons (every state sent to the seat to play asks again for each card
    it may not play). Raises ``KeyError`` for a code outside :data:`app.game.errors.REFUSALS`.
    """
    if reason.code in WAITING:
        return Refusal(reason.code)
    words = REFUSALS[reason.code]
    return Refusal(reason.code, card=reason.card if "{card}" in words else None,
                   player=reason.player if "{player}" in words else None,
                   highest=reason.highest if "{rank}" in words else None,
                   lowest=reason.lowest if "{lowest}" in words else ())


@functools.lru_cache(maxsize=4096)
def _unplayable(said: Refusal, code: str) -> str:
    # Every state sent says why each card of each hand cannot be played, mostly the same few refusals
    # (whose turn it is): kept per refusal as said (:func:`unplayable_said`) and the language ``code``.
    return _say(WAITING.get(said.code) or REFUSALS[said.code], said)


def error_message(error: GameError) -> str:
    """The message for people of an engine error: an illegal move's refusal in words.

    Other errors (malformed input: a card code, rules, a deal) keep the
    engine's own message.
    """
    if isinstance(error, IllegalMove):
        return refusal(error.refusal)
    return error.message


def _say(message: str, reason: Refusal) -> str:
    return say(message, player=player_name(reason.player or ""),
               card=reason.card.code if reason.card is not None else "",
               rank=rank_label(reason.highest.rank) if reason.highest is not None else "",
               lowest=either([card.code for card in reason.lowest]))
