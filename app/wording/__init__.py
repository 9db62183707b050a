"""Every word people read about the game: rules, deal summaries, refusals and card names.

The engine (``app.game``) gives codes and facts; these functions make English
sentences of them, each one whole string passed through
:func:`~app.wording.language.say` or :func:`~app.wording.language.say_count`,
where a translation (gettext, Babel) will hook in.
"""

from app.wording.cards import card_faces, card_name, card_symbol, rank_label, suit_symbol
from app.wording.deals import deal_sentences
from app.wording.refusals import error_message, refusal, unplayable
from app.wording.rules import describe_preset, describe_rules, option_label, value_label

__all__ = [
    "card_faces",
    "card_name",
    "card_symbol",
    "deal_sentences",
    "describe_preset",
    "describe_rules",
    "error_message",
    "option_label",
    "rank_label",
    "refusal",
    "suit_symbol",
    "unplayable",
    "value_label",
]
