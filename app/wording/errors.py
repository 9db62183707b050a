"""Why the server refuses something, in words: one sentence per reason, said in the reader's language.

Rooms, the protocol and the routes raise errors with a stable code (the
protocol's ``error.code``) and a :class:`Problem`: a reason from
:data:`PROBLEMS` and its facts. The words are made only when someone reads
them, in the language of whoever reads them (:mod:`app.wording.language`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.game.errors import GameError, InvalidCard, InvalidRules
from app.game.rules import CHOICE, NUMBER, OPTIONS, PRESETS
from app.wording.language import either, noted, noted_count, say, say_count
from app.wording.refusals import error_message

PROBLEMS = {
    # Who is asking, and where
    "not_host": noted("only the host can do that"),
    "not_seated": noted("only seated players can do that; take a seat first"),
    "no_such_seat": noted("no such seat"),
    "no_such_room": noted("there is no room with this code (it may have closed)"),
    "no_such_match": noted("no finished match has this id"),
    "unknown_token": noted("this token has no seat in this room"),
    "room_crowded": noted("too many people are connected to this room"),
    "server_full": noted("this server has as many tables as it can hold; try again later"),
    "server_stopping": noted("this server is stopping (it may be restarting); try again in a moment"),
    "room_moving": noted("this table is moving to another server process; try again in a moment"),
    "push_off": noted("this server sends no push notifications"),
    "push_endpoint_refused": noted("this push subscription is not one this server sends to (its push service is "
                                   "not on the server's list, or its keys are not a browser's)"),
    "webhook_refused": noted("this address is not one this server posts to: give a Discord or Slack incoming "
                             "webhook (https)"),
    "push_token": noted("the token must be text"),
    "push_subscription": noted("the subscription needs its endpoint"),
    "cross_site": noted("This form was sent from another site, so nothing was changed. "
                        "Open the room's link and try again from there."),
    # An address the site does not serve, or not so
    "not_found": noted("there is nothing at this address"),
    "method_not_allowed": noted("this address does not take {method} requests"),
    # A request that does not fit its route (the JSON API's 422)
    "request_unreadable": noted("the request's body could not be read"),
    "request_not_json": noted("the request's body is not valid JSON"),
    "request_not_object": noted("the request's body must be a JSON object"),
    "request_field_missing": noted("{field} is missing"),
    "request_field_invalid": noted("{field} does not have a value of the right kind"),
    "request_field_unknown": noted("{field} is not a field of this request"),
    # Names and seats
    "name_not_text": noted("a name must be text"),
    "name_empty": noted("enter a name"),
    "name_invisible": noted("a name may only contain visible characters"),
    "name_blank": noted("a name needs at least one visible letter, digit or symbol"),
    "name_taken": noted("someone here is already called {name}; choose another name"),
    "seat_is_bot": noted("a bot already plays this seat"),
    "already_seated": noted("you already have a seat at this table"),
    "player_present": noted("{name} is here or only just left; "
                            "a seat changes hands only once its player has been away a while"),
    "player_back": noted("{name} is back at the table"),
    "seat_moved_device": noted("your seat moved to another browser; this page now watches"),
    "seat_moved_host": noted("the host gave your seat to someone else; this page now watches"),
    "seat_changed": noted("that seat changed since you chose it (someone left, or another player sits there now); "
                          "nothing was done"),
    "seats_changed": noted("the seats changed since you looked (a bot or a player sat down meanwhile); nothing was "
                           "added"),
    "seats_field": noted("seats is the number of seats taken, a whole number (0 or more)"),
    "name_the_player": noted('name the seat by its "player" (the state\'s seats[].player)'),
    "player_field": noted("player is a seat's player id (the state's seats[].player)"),
    "invalid_link": noted("this link does not work (any more): it works once, for a while, and only while its seat "
                          "is the same player's; ask for a new one"),
    "link_secret": noted("secret is the text after the # of the link"),
    "host_token": noted("token is the host's token, as text"),
    "bot_strength": noted("a bot is {strengths}"),
    # The match
    "match_not_started": noted("the match has not started"),
    "match_running": noted("a match is already being played"),
    "match_watch": noted("the match has started; you can watch it"),
    "seats_fixed": noted("seats cannot change during a match"),
    "rules_fixed": noted("the rules cannot change during a match"),
    "clock_fixed": noted("the turn clock cannot change during a match"),
    "clock_range": noted("the turn clock is off or {low} to {high} seconds"),
    "pace_hours": noted("a slow table gives each turn {hours} hours"),
    "quiet_hours": noted("quiet hours run from one time (HH:MM) to another in a time zone such as Europe/Copenhagen"),
    "vacation_days": noted("a vacation lasts 0 (back now) to {high} days"),
    "slow_only": noted("only a slow table has this setting"),
    "webhook_slow_only": noted("only a slow table can have a chat webhook"),
    "not_enough_players": noted("a match needs {low} to {high} players"),
    "stale_play": noted("the table has moved on since you chose that card; nothing was played"),
    "match_over": noted("the match is over"),
    "already_away": noted("you have already stepped away; a bot plays your seat until you come back"),
    "not_away": noted("you have not stepped away: your seat is yours"),
    "player_eliminated": noted("you are out of this match; there is nothing left to hand to a bot"),
    "card_code": noted("a card must be a card code such as 9C"),
    "not_a_card": noted("{text} is not a card code (rank 2-9, T or 10, J, Q, K, A, then suit C, D, H or S)"),
    # Table chat
    "not_in_room": noted("this connection has no place in the room any more (your seat was freed); "
                         "reload the page to chat as a spectator"),
    "chat_empty": noted("write something first"),
    "chat_muted": noted("the host has muted you until the next match starts"),
    "spectator_chat_off": noted("the host has turned spectator chat off"),
    "unknown_sender": noted("nobody here writes under that id"),
    "mute_yourself": noted("you cannot mute yourself"),
    "reaction_code": noted("a reaction is one of {codes}"),
    "chat_text": noted("text is the message, as text"),
    "spectator_switch": noted("on is true or false"),
    "sender_field": noted("sender is the id in a chat message's from.id"),
    # The message itself
    "empty_message": noted("empty message"),
    "binary_message": noted("messages must be JSON text, not binary"),
    "not_an_object": noted("a message must be a JSON object"),
    "lone_surrogate": noted("a message's text must be Unicode: half of a surrogate pair alone is not"),
    "needs_type": noted('a message needs a "type"'),
    "unknown_type": noted("unknown message type {kind}"),
    "bad_field": noted("bad field {field} in {kind}"),
    "match_field": noted("match is the state's match_id"),
    "moment_fields": noted("deal and played are whole numbers"),
    "hello_first": noted("send hello first"),
    "hello_expected": noted("the first message must be {hello}"),
    "already_greeted": noted("already greeted"),
    "bad_rules": noted("bad rules: {detail}"),
    # The server
    "storage_unavailable": noted("the game could not be saved (database unavailable); "
                                 "nothing changed, try again in a moment"),
    "storage_read": noted("the database is not available"),
    "server_error": noted("the server could not handle that message; nothing changed"),
    "sockets_limited": noted("too many connections from your network; try again in {seconds} s"),
    "messages_limited": noted("too many messages of this kind; nothing was done, wait a moment"),
    "messages_limited_closing": noted("far too many messages; nothing was done, and the connection is closed"),
}
"""Every refusal's sentence by reason; ``{named}`` facts come with the :class:`Problem`."""

COUNTED = {
    "name_too_long": noted_count("a name has at most {count} character", "a name has at most {count} characters"),
    "room_full": noted_count("all {count} seats are taken", "all {count} seats are taken"),
    "room_full_watch": noted_count("all {count} seats are taken; you can watch",
                                   "all {count} seats are taken; you can watch"),
    "chat_too_long": noted_count("a message may have at most {count} character (this one has {length})",
                                 "a message may have at most {count} characters (this one has {length})"),
    "too_large": noted_count("a message may have at most {count} byte", "a message may have at most {count} bytes"),
}
"""Refusals that count something (``count`` among the facts), singular and plural."""

LIMITS = {
    "rooms_created": noted_count("Too many tables opened from your network for now; try again in {count} second.",
                                 "Too many tables opened from your network for now; try again in {count} seconds."),
    "joins": noted_count("Too many seats taken from your network for now; try again in {count} second.",
                         "Too many seats taken from your network for now; try again in {count} seconds."),
    "sockets": noted_count("Too many connections opened from your network for now; try again in {count} second.",
                           "Too many connections opened from your network for now; try again in {count} seconds."),
    "posts": noted_count("Too many requests sent from your network for now; try again in {count} second.",
                         "Too many requests sent from your network for now; try again in {count} seconds."),
    "chat": noted_count("You are writing too fast; try again in {count} second.",
                        "You are writing too fast; try again in {count} seconds."),
}
"""The refusal of one use too many of each per-address limit (``app.web.ratelimit.LIMITED``), by its name."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A refusal to be put in words later: a reason of :data:`PROBLEMS`, :data:`COUNTED` or
    :data:`LIMITS` (``limit`` set) and its facts.

    ``str(problem)`` is the sentence in the language being spoken at that
    moment, so an error raised in one place is read in each reader's own
    language. Raises ``KeyError`` (when put in words) for an unknown reason.
    """

    reason: str
    facts: dict[str, Any] = field(default_factory=dict)
    limit: bool = False

    def __str__(self) -> str:
        if self.limit:
            return say_count(*LIMITS[self.reason], **self.facts)
        if self.reason in COUNTED:
            return say_count(*COUNTED[self.reason], **self.facts)
        return say(PROBLEMS[self.reason], **self.facts)


def problem(reason: str, **facts: Any) -> Problem:
    """A :class:`Problem` of ``reason`` with ``facts``: ``problem("name_taken", name="Ana")``."""
    return Problem(reason, facts)


def request_problems(errors: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """What is wrong with a request that does not fit its route, one :class:`Problem` per fault.

    ``errors`` are pydantic's error entries as FastAPI reports them (each
    with ``type`` and ``loc``, whose first item says where: ``body``,
    ``query``, ``path``); the fields are named by their path (``rules.threshold``).
    """
    problems = []
    for error in errors:
        field = ".".join(str(part) for part in error["loc"][1:])
        if error["type"] == "json_invalid":
            problems.append(problem("request_not_json"))
        elif not field:
            problems.append(problem("request_not_object"))
        elif error["type"] == "missing":
            problems.append(problem("request_field_missing", field=field))
        elif error["type"] == "extra_forbidden":
            problems.append(problem("request_field_unknown", field=field))
        else:
            problems.append(problem("request_field_invalid", field=field))
    return problems


def limit_problem(name: str, seconds: int) -> Problem:
    """The refusal of one use too many of limit ``name``, to try again in ``seconds``."""
    return Problem(name, {"count": seconds}, limit=True)


@dataclass(frozen=True, slots=True)
class EngineProblem:
    """An engine error (:class:`~app.game.errors.GameError`) to be put in words later, as :class:`Problem`.

    Illegal moves say their refusal (:func:`~app.wording.refusals.refusal`);
    a bad card code and bad rules say what was expected; other errors keep
    the engine's own message.
    """

    error: GameError

    def __str__(self) -> str:
        error = self.error
        if isinstance(error, InvalidRules):
            return rules_problem(error)
        if isinstance(error, InvalidCard) and error.text is not None:
            return say(PROBLEMS["not_a_card"], text=repr(error.text))
        return error_message(error)


def rules_problem(error: InvalidRules) -> str:
    """Why rules were refused, from the engine's facts (the option, the value refused).

    An option of the table with a value: what it takes (``"threshold must
    be a whole number from 10 to 100, not 200"``); an unknown option or
    preset; rules that are not an object. Options are named as the API
    names them.
    """
    option = next((option for option in OPTIONS if option.name == error.option), None)
    if error.option == "preset":
        return say("unknown preset {name}; choose one of {presets}", name=repr(error.value),
                   presets=", ".join(PRESETS))
    if option is None and error.option is not None:
        return say("unknown rules option {name}", name=repr(error.option))
    if option is None or not error.has_value:
        return say("rules must be an object of options")
    value = repr(error.value)
    if option.kind == CHOICE:
        return say("{option} must be one of {choices}, not {value}", option=option.name,
                   choices=", ".join(option.choices), value=value)
    if option.kind == NUMBER:
        return say("{option} must be a whole number from {low} to {high}, not {value}", option=option.name,
                   low=option.low, high=option.high, value=value)
    return say("{option} must be a whole number from {low} to {high} or {words}, not {value}", option=option.name,
               low=option.low, high=option.high, words=either([repr(word) for word in option.choices]), value=value)

