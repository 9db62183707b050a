"""The rules engine of Cucumber: pure, deterministic, standard library only.

Start with :func:`new_match`, deal with :func:`deal_cards` (or
:func:`deal_hands`), then :func:`play` card by card; :func:`view_for` gives
what one viewer may see, and :mod:`app.game.record` reads and writes records.
"""

from app.game.cards import DECK, Card, parse_cards
from app.game.errors import GameError, InvalidCard, InvalidDeal, InvalidMatch, InvalidRules
from app.game.match import Deal, Match, deal_cards, deal_hands, new_match, play, play_out_deal
from app.game.record import NotARecord, RecordFault, check_record, replay, to_record
from app.game.refusals import (
    CardNotInHand,
    DealInProgress,
    DealNotStarted,
    IllegalMove,
    IllegalPlay,
    MatchOver,
    NotYourTurn,
    Refusal,
)
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, PRESETS, RuleOption, Rules, preset
from app.game.views import MatchPhase, MatchView, view_for

__all__ = [
    "DECK",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPTIONS",
    "PRESETS",
    "Card",
    "CardNotInHand",
    "Deal",
    "DealInProgress",
    "DealNotStarted",
    "GameError",
    "IllegalMove",
    "IllegalPlay",
    "InvalidCard",
    "InvalidDeal",
    "InvalidMatch",
    "InvalidRules",
    "Match",
    "MatchOver",
    "MatchPhase",
    "MatchView",
    "NotARecord",
    "NotYourTurn",
    "RecordFault",
    "Refusal",
    "RuleOption",
    "Rules",
    "check_record",
    "deal_cards",
    "deal_hands",
    "new_match",
    "parse_cards",
    "play",
    "play_out_deal",
    "preset",
    "replay",
    "to_record",
    "view_for",
]
