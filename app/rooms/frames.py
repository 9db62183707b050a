"""The JSON protocol's frames out, written plainly: the ``state`` object and frame for one viewer's
:class:`~app.rooms.views.RoomView`, and the ``error``, ``link`` and chat frames (docs/protocol.md,
"WebSocket").

This is the readable version of what a JSON connection receives;
:mod:`app.rooms.json_renderer` sends the same frames to a room's connections
with each version's shared part encoded once, and the tests check that each
viewer gets exactly what :func:`state_message` gives for them alone.
"""

from __future__ import annotations

import codecs
import functools
import json
from datetime import UTC, datetime
from typing import Any

import orjson

from app.game.rules import Rules
from app.game.score_sheet import DealScore
from app.game.summary import DealSummary
from app.game.views import HandCard, TrickCard
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.seat_links import Link
from app.rooms.views import RoomView
from app.wording import deal_sentences, describe_rules, unplayable


def utc_text(moment: datetime) -> str:
    """An aware time as the protocol writes it: UTC, ISO 8601 to the second, with ``Z``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _trick_json(trick: tuple[TrickCard, ...]) -> list[dict[str, Any]]:
    return [{"seat": play.seat, "card": play.card.code} for play in trick]


def state_json(view: RoomView) -> dict[str, Any]:
    """The ``state`` object for a view (docs/protocol.md, "The state object")."""
    return {**public_state_json(view), "you": you_json(view)}


def public_state_json(view: RoomView, *, last_deal: Any = None) -> dict[str, Any]:
    """The ``state`` object without ``you``: the same for every viewer of one version.

    ``last_deal`` is :func:`last_deal_json` of the view where the caller has it already (as it is, or as
    JSON text in an ``orjson.Fragment``).
    """
    return {**table_json(view, last_deal=last_deal), "score_sheet": score_sheet_json(view.score_sheet)}


def table_json(view: RoomView, *, last_deal: Any = None) -> dict[str, Any]:
    """:func:`public_state_json` without its ``score_sheet``."""
    match = view.match
    return {
        "code": view.code,
        "phase": view.phase,
        "rules": dict(_options(view.rules)),
        "rules_text": describe_rules(view.rules),
        "preset": view.preset,
        "host": view.host_seat,
        "spectators": view.spectators,
        "seats": [
            {"seat": seat.seat, "player": seat.player, "name": seat.name, "bot": seat.bot, "connected": seat.connected,
             "away": seat.away, "stepped_away": seat.stepped_away, "score": seat.score, "lives": seat.lives,
             "eliminated": seat.eliminated, "dealer": seat.is_dealer, "turn": seat.is_turn,
             "cards_left": seat.cards_left, "played_for": seat.played_for,
             "played": [card.code for card in seat.played]}
            for seat in view.seats
        ],
        "deal": match.deal_number if match else 0,
        "trick_number": match.trick_number if match else 0,
        "tricks_per_deal": view.rules.hand_size,
        "dealer": match.dealer if match else None,
        "turn": view.turn,
        "turn_seconds": view.turn_seconds,
        "turn_remaining": None if view.turn_remaining is None else round(view.turn_remaining, 1),
        "pace": None if view.pace is None else view.pace.to_json(),
        "deadline": None if view.deadline is None else utc_text(view.deadline),
        "leader": match.leader if match else None,
        "trick": _trick_json(match.trick) if match else [],
        "previous_trick": _trick_json(match.previous_trick) if match else [],
        "last_deal": last_deal_json(view) if last_deal is None else last_deal,
        "winners": list(match.winners) if match else [],
        "match_id": view.match_id,
        "standings": [{"place": line.place, "seat": line.seat, "name": line.name, "score": line.score}
                      for line in view.standings],
    }


def last_deal_json(view: RoomView) -> dict[str, Any] | None:
    """The state's ``last_deal``: how the last completed deal ended, in facts and in words (``None``
    before one has)."""
    return None if view.summary is None else deal_summary_json(view.summary, view.seat_names)


def deal_summary_json(summary: DealSummary, seat_names: tuple[str, ...]) -> dict[str, Any]:
    """The state's ``last_deal`` of the deal ``summary`` tells, its words naming the players by
    ``seat_names`` (in seat order)."""
    return {
        "deal": summary.deal,
        "trick_winner": summary.trick_winner,
        "card": summary.card.code,
        "penalties": [{"seat": s, "points": p, "card": c.code, "total": t} for s, p, c, t in summary.penalties],
        "lives_lost": [{"seat": s, "lives": left, "total": t} for s, left, t in summary.lives_lost],
        "eliminated": [{"seat": s, "total": t} for s, t in summary.eliminated],
        "reinstated": [{"seat": s, "total": t} for s, t in summary.reinstated],
        "winners": list(summary.winners),
        "text": deal_sentences(summary, seat_names),
    }


def score_sheet_json(sheet: tuple[DealScore, ...]) -> list[dict[str, Any]]:
    """The state's ``score_sheet``: every completed deal with each seat's penalty, total, lives, whether it
    lost a life and whether it is out, and the deal's last trick (docs/protocol.md, "The state object")."""
    return [{
        "deal": line.number,
        "dealer": line.dealer,
        "trick_winner": line.trick_winner,
        "last_trick": [{"seat": seat, "card": card.code} for seat, card in line.last_trick],
        "seats": [{"seat": seat, "penalty": line.penalties[seat], "total": line.totals[seat],
                   "lives": line.lives[seat], "life_lost": seat in line.lives_lost,
                   "eliminated": line.lives[seat] == 0} for seat in range(len(line.totals))],
    } for line in sheet]


@functools.lru_cache(maxsize=512)
def _options(rules: Rules) -> dict[str, Any]:
    # Rules.to_dict copies deeply, and every state sent holds the rules: done once per rules (copy before changing).
    return rules.to_dict()


def you_json(view: RoomView) -> dict[str, Any] | None:
    """The state's ``you``: the viewer's seat and player id, whether they host, their hand and what they may play."""
    player = None if view.you_seat is None else view.seats[view.you_seat].player
    return you_object(view.you_seat, view.you_are_host, player, view.hand, view.webhook)


def you_object(seat: int | None, host: bool, player: str | None, hand: tuple[HandCard, ...],
         webhook: str | None = None) -> dict[str, Any] | None:
    if seat is None and not host:
        return None
    extra = {} if webhook is None else {"webhook": webhook}  # a slow room's chat webhook: its host's alone
    codes = [held.card.code for held in hand]
    reasons = {}
    said, words = None, ""
    for code, held in zip(codes, hand, strict=True):
        if held.reason is not None:
            if held.reason is not said:  # a hand waiting for its turn gives every card one refusal: said once
                said, words = held.reason, unplayable(held.reason)
            reasons[code] = words
    return {
        "seat": seat,
        "player": player,
        "host": host,
        "hand": codes,
        "legal": [code for code, held in zip(codes, hand, strict=True) if held.legal],
        "reasons": reasons,
        **extra,
    }


def compact(value: Any) -> str:
    """``value`` as compact JSON text in ASCII: the text ``json.dumps`` gives with ``separators=(",", ":")``
    (every character past ASCII written as a ``\\u`` escape; only DEL, U+007F, may stay as it is).

    orjson writes a state in a fraction of the standard library's time (docs/performance.md); the few characters past
    ASCII (a suit's sign in a deal's summary, a name) are then escaped (:func:`ascii_json`). A text orjson
    refuses (a lone surrogate, which only a client's own words could bring) is left to the standard library.
    """
    try:
        text = orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return ascii_json(text)


def ascii_json(text: str) -> str:
    """JSON ``text`` with every character past ASCII written as the standard library's ``\\u`` escape.

    A frame in ASCII is sent as it is. One holding a single character past ASCII would be kept in two or
    four bytes a character, and turned into UTF-8 again for every socket it is sent to.
    """
    return text if text.isascii() else text.encode("ascii", _ESCAPE_PAST_ASCII).decode("ascii")


def _escape_past_ascii(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler of :func:`ascii_json`: the JSON escapes of the characters ``error`` is about."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(_escaped(character) for character in error.object[error.start:error.end]), error.end


@functools.lru_cache(maxsize=1024)
def _escaped(character: str) -> str:
    """One character's JSON escape as the standard library writes it (a pair of surrogates past U+FFFF)."""
    return json.dumps(character)[1:-1]


_ESCAPE_PAST_ASCII = "cucumber-json-escape"
codecs.register_error(_ESCAPE_PAST_ASCII, _escape_past_ascii)


def state_message(view: RoomView) -> str:
    """The ``state`` frame for a view: ``{"type": "state", "version", "state"}``."""
    return compact({"type": "state", "version": view.version, "state": state_json(view)})


def error_message(code: str, message: str) -> str:
    """The ``error`` frame: ``{"type": "error", "code", "message"}``."""
    return compact({"type": "error", "code": code, "message": message})


def chat_json(line: ChatLine) -> dict[str, Any]:
    """A ``chat`` message: ``from`` (the sender's ``id``, ``name``, ``seat``, ``spectator``, ``host``),
    its ``id`` in the room, and ``text`` or ``reaction`` (a code)."""
    sender = line.sender
    said = {"text": line.text} if line.reaction is None else {"reaction": line.reaction}
    return {"type": "chat", "id": line.number, "from": {"id": sender.id, "name": sender.name, "seat": sender.seat,
                                                        "spectator": sender.spectator, "host": sender.host}, **said}


def chat_status_json(status: ChatStatus) -> dict[str, Any]:
    """Who may chat: ``spectator_chat`` (whether spectators may) and ``muted`` (the ids of the senders muted)."""
    return {"spectator_chat": status.spectator_chat, "muted": [sender.id for sender in status.muted]}


def link_message(link: Link, url: str) -> str:
    """The ``link`` frame for a link the connection asked for: what it does (``kind``), to which seat
    (``seat``, ``player``, ``name``), its ``url`` and ``secret``, and ``expires_in`` (seconds)."""
    return compact({"type": "link", "kind": link.kind, "seat": link.seat, "player": link.player, "name": link.name,
                     "url": url, "secret": link.secret, "expires_in": link.lifetime})
