"""Match records in the ``cucumber-match/1`` format (docs/rules.md §4).

Export any match to a record, rebuild a match from a record by replaying
every deal through the engine, and check a record the way ``verify`` reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.game.cards import Card, cards_of
from app.game.errors import GameError, InvalidCard, InvalidDeal, InvalidMatch, InvalidRules, card_given, shown
from app.game.match import Match, deal_hands, new_match, play
from app.game.refusals import CardNotInHand, IllegalMove
from app.game.rules import Rules

FORMAT = "cucumber-match/1"

PLAYER = "player"
"""A deal's optional ``decided_by`` entry for a play the seat's own player chose (docs/rules.md §4)."""

STAND_IN_REASONS = ("away", "stepped_away", "turn_clock", "deadline", "vacation")
"""The other ``decided_by`` entries: why a stand-in bot played for a person (docs/rules.md §4)."""


class NotARecord(GameError):
    """The data is not a ``cucumber-match/1`` record at all (shape, format, rules, players)."""

    code = "not_a_record"


class RecordFault(GameError):
    """The first fault of a well-formed record (docs/rules.md §4).

    ``deal`` is the deal index (from 0); ``play`` the play index within that
    deal (from 0), ``None`` for a dealer or hand fault; ``seat`` and ``card``
    point at the fault where there is one.
    """

    code = "record_fault"

    def __init__(self, message: str, *, deal: int, play: int | None = None,
                 seat: int | None = None, card: str | None = None) -> None:
        super().__init__(message)
        self.deal = deal
        self.play = play
        self.seat = seat
        self.card = card

    def to_dict(self) -> dict[str, Any]:
        """The fault as ``verify`` prints it: ``ok`` false, deal, play, seat, card, reason."""
        return {"ok": False, "deal": self.deal, "play": self.play, "seat": self.seat,
                "card": self.card, "reason": self.message}


def deciders(record: Mapping[str, Any]) -> list[list[str] | None]:
    """Each deal's ``decided_by`` (docs/rules.md §4) of a valid ``record``, ``None`` where a deal has none.

    An entry that is not a list of one known word (:data:`PLAYER` or one of
    :data:`STAND_IN_REASONS`) per play counts as none: the field is optional
    and nothing checks it, so a malformed one is ignored rather than refused.
    """
    known = {PLAYER, *STAND_IN_REASONS}
    out: list[list[str] | None] = []
    for deal in record.get("deals", []):
        given = deal.get("decided_by") if isinstance(deal, Mapping) else None
        plays = deal.get("plays") if isinstance(deal, Mapping) else None
        if (isinstance(given, list) and isinstance(plays, list) and len(given) == len(plays)
                and all(isinstance(who, str) and who in known for who in given)):
            out.append([str(who) for who in given])
        else:
            out.append(None)
    return out


def to_record(match: Match) -> dict[str, Any]:
    """The record of ``match``, finished or in progress (docs/rules.md §4).

    Returns a JSON-ready dict: ``format``, every rules option, the player
    names and the deals (completed ones, then the one in progress if any).
    """
    deals = list(match.history)
    if match.deal is not None and match.deal.turn is not None:
        deals.append(match.deal)
    return {
        "format": FORMAT,
        "rules": match.rules.to_dict(),
        "players": list(match.players),
        "deals": [
            {"dealer": deal.dealer,
             "hands": [[card.code for card in cards_of(hand)] for hand in deal.dealt],
             "plays": [card.code for card in deal.plays]}
            for deal in deals
        ],
    }


def replay(record: Any) -> Match:
    """Rebuild a match from its record, checking every deal and play in order.

    Returns the match as it stands after the last play of the record. Raises
    :class:`NotARecord` if the data is not a record (wrong shape, format,
    rules or players) and :class:`RecordFault` for the first fault of a
    record, checked deal by deal as docs/rules.md §4 says: dealer, hands, plays.
    The players' names are labels: any strings, the same one twice or an
    empty one included (storing a record asks more: ``app.storage``).
    """
    if not isinstance(record, Mapping):
        raise NotARecord(f"a record must be a JSON object, not {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise NotARecord(f"format must be {FORMAT!r}, not {shown(record.get('format'))}")
    options = record.get("rules", {})  # options left out take their default; all of them, with no "rules"
    if options is None:
        raise NotARecord("bad rules: rules must be an object of options, not null")
    try:
        rules = Rules.from_dict(options)
    except (InvalidRules, TypeError) as error:
        raise NotARecord(f"bad rules: {error}") from None
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise NotARecord("players must be a list of names")
    try:
        match = new_match(players, rules)
    except InvalidMatch as error:
        raise NotARecord(error.message) from None
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise NotARecord("deals must be a list")
    for index, deal in enumerate(deals):
        if not isinstance(deal, Mapping):
            raise RecordFault("a deal must be an object with dealer, hands and plays", deal=index)
        match = _replay_deal(match, index, deal)
        if match.deal is not None and match.deal.turn is not None and index < len(deals) - 1:
            raise RecordFault("deal ended before all its cards were played (only the last deal may be unfinished)",
                              deal=index, play=len(match.deal.plays), seat=match.deal.turn)
    return match


def _replay_deal(match: Match, index: int, deal: Mapping[str, Any]) -> Match:
    if match.finished:
        raise RecordFault("the match was already over before this deal", deal=index)
    dealer = deal.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int):
        raise RecordFault(f"dealer must be a seat number, not {shown(dealer)}", deal=index)
    hands: Any = deal.get("hands")  # anything at all: deal_hands checks its shape
    try:
        match, _ = deal_hands(match, hands, dealer=dealer)
    except InvalidDeal as error:
        raise RecordFault(error.message, deal=index, seat=error.seat, card=error.card) from None
    plays = deal.get("plays")
    if not isinstance(plays, list):
        raise RecordFault("plays must be a list of cards", deal=index)
    for number, code in enumerate(plays):
        seat = match.turn
        if seat is None:
            raise RecordFault("more plays than cards dealt", deal=index, play=number, card=card_given(code))
        try:
            card = Card.parse(code)
            match, _ = play(match, card)
        except InvalidCard as error:
            raise RecordFault(error.message, deal=index, play=number, seat=seat, card=card_given(code)) from None
        except CardNotInHand:
            raise RecordFault(f"card not in hand: {card.code}", deal=index, play=number, seat=seat,
                              card=card.code) from None
        except IllegalMove as error:
            # The refusal's code and facts, e.g. "must_match (card 9C, highest KS, lowest 6H)".
            raise RecordFault(f"illegal play: {error.refusal}", deal=index, play=number, seat=seat,
                              card=card.code) from None
    return match


def outcome(match: Match) -> dict[str, Any]:
    """What ``verify`` prints for a valid record: where the match it describes stands.

    ``{"ok": true, "finished", "scores", "lives", "eliminated", "winners",
    "deals"}``: per-seat lists in seat order, ``lives`` 0 once eliminated,
    ``winners`` empty until the end, ``deals`` the completed deals.
    """
    return {
        "ok": True,
        "finished": match.finished,
        "scores": list(match.scores),
        "lives": list(match.lives),
        "eliminated": [left == 0 for left in match.lives],
        "winners": list(match.winners),
        "deals": match.deals_completed,
    }


def check_record(record: Any) -> dict[str, Any]:
    """Check a record and return what ``verify`` prints for it.

    A valid record gives its :func:`outcome`; a faulty one the first fault as
    ``{"ok": false, "deal", "play", "seat", "card", "reason"}``. Raises
    :class:`NotARecord` when the data is not a record at all.
    """
    try:
        return outcome(replay(record))
    except RecordFault as fault:
        return fault.to_dict()
