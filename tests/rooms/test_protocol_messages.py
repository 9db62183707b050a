"""Reading client frames into typed messages, and the frames JSON clients get back."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.rooms import frames
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.frames import error_message, you_json
from app.rooms.lobby import Seat, Target
from app.rooms.messages import (
    AddBot,
    HandToBot,
    Hello,
    Play,
    ProtocolError,
    Remove,
    SetClock,
    SetRules,
    Sync,
    parse_message,
)
from app.rooms.views import Table, room_view
from app.wording import unplayable
from app.wording.language import speaking

LIMIT = 4096


def parse(value) -> object:
    return parse_message(value if isinstance(value, str | bytes) else json.dumps(value), LIMIT)


def refusal(value) -> ErrorCode:
    with pytest.raises(ProtocolError) as refused:
        parse(value)
    return refused.value.code


@pytest.mark.parametrize(("message", "expected"), [
    ({"type": "hello"}, Hello(type="hello")),
    ({"type": "hello", "token": "abc"}, Hello(type="hello", token="abc")),
    ({"type": "play", "card": "9C"}, Play(type="play", card="9C")),
    ({"type": "play", "card": "9c", "deal": 2, "played": 5}, Play(type="play", card="9c", deal=2, played=5)),
    ({"type": "add_bot"}, AddBot(type="add_bot", strength="normal")),
    ({"type": "add_bot", "strength": "hard"}, AddBot(type="add_bot", strength="hard")),
    ({"type": "add_bot", "seats": "2"}, AddBot(type="add_bot", seats=2)),
    ({"type": "add_bot", "seats": 0}, AddBot(type="add_bot", seats=0)),
    ({"type": "hand_to_bot", "seat": 2}, HandToBot(type="hand_to_bot", seat=2)),
    ({"type": "hand_to_bot", "player": "ben2345678", "strength": "easy"},
     HandToBot(type="hand_to_bot", player="ben2345678", strength="easy")),
    ({"type": "remove", "seat": 0, "HEADERS": {"HX-Trigger": "x"}}, Remove(type="remove", seat=0)),
    ({"type": "remove", "player": "ben2345678"}, Remove(type="remove", player="ben2345678")),
    ({"type": "remove", "player": "ben2345678", "seat": 1}, Remove(type="remove", player="ben2345678", seat=1)),
    ({"type": "set_clock", "seconds": 30}, SetClock(type="set_clock", seconds=30)),
    ({"type": "set_clock", "seconds": "45"}, SetClock(type="set_clock", seconds=45)),
    ({"type": "set_clock", "seconds": "off"}, SetClock(type="set_clock", seconds=None)),
    ({"type": "set_clock", "seconds": 0}, SetClock(type="set_clock", seconds=None)),
    ({"type": "set_clock"}, SetClock(type="set_clock", seconds=None)),
    ({"type": "sync"}, Sync(type="sync")),
])
def test_each_message_is_read_into_its_type(message, expected):
    assert parse(message) == expected


def test_a_seat_action_aims_at_the_player_it_names():
    assert parse({"type": "remove", "player": "ben2345678"}).target == Target(player="ben2345678")
    assert parse({"type": "hand_to_bot", "seat": 1, "player": "ben2345678"}).target == Target("ben2345678", 1)
    assert parse({"type": "remove", "seat": 1}).target == Target(seat=1)


def test_a_play_names_its_moment_only_when_it_says_so():
    assert parse({"type": "play", "card": "9C"}).moment is None
    assert parse({"type": "play", "card": "9C", "deal": 3, "played": 0}).moment == (3, 0)


@pytest.mark.parametrize(("frame", "code"), [
    (b'{"type": "sync"}', ErrorCode.MALFORMED),
    ("[1, 2]", ErrorCode.MALFORMED),
    ("not json", ErrorCode.MALFORMED),
    ("[" * 100_000, ErrorCode.TOO_LARGE),
    ('{"type": "sync", "pad": "' + "x" * LIMIT + '"}', ErrorCode.TOO_LARGE),
    ("{}", ErrorCode.BAD_REQUEST),
    ('{"type": 7}', ErrorCode.BAD_REQUEST),
    ('{"type": "dance"}', ErrorCode.UNKNOWN_TYPE),
    ('{"type": "play"}', ErrorCode.INVALID_CARD),
    ('{"type": "play", "card": 9}', ErrorCode.INVALID_CARD),
    ('{"type": "play", "card": "9C", "deal": "soon"}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove", "seat": "two"}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove", "seat": true}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove"}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove", "player": null}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove", "player": "Ben"}', ErrorCode.BAD_REQUEST),
    ('{"type": "remove", "player": 1234567890}', ErrorCode.BAD_REQUEST),
    ('{"type": "hand_to_bot", "strength": "easy"}', ErrorCode.BAD_REQUEST),
    ('{"type": "add_bot", "strength": "godlike"}', ErrorCode.BAD_REQUEST),
    ('{"type": "add_bot", "seats": -1}', ErrorCode.BAD_REQUEST),
    ('{"type": "add_bot", "seats": "two"}', ErrorCode.BAD_REQUEST),
    ('{"type": "add_bot", "seats": true}', ErrorCode.BAD_REQUEST),
    ('{"type": "set_clock", "seconds": 4}', ErrorCode.BAD_REQUEST),
    ('{"type": "set_clock", "seconds": 601}', ErrorCode.BAD_REQUEST),
    ('{"type": "set_clock", "seconds": "３０"}', ErrorCode.BAD_REQUEST),
    ('{"type": "hello", "token": 12}', ErrorCode.BAD_REQUEST),
    # Half of a surrogate pair alone, escaped: no UTF-8 text can hold it, in a value or a key.
    ('{"type": "chat", "text": "hi \\ud83d"}', ErrorCode.MALFORMED),
    ('{"type": "chat", "text": "\\ude00 hi"}', ErrorCode.MALFORMED),
    ('{"type": "hello", "token": "\\ud800"}', ErrorCode.MALFORMED),
    ('{"type": "chat", "text": "hi", "\\udfff": 1}', ErrorCode.MALFORMED),
    ('{"type": "mute", "sender": ["\\ud83d"]}', ErrorCode.MALFORMED),
])
def test_a_frame_that_is_no_message_is_refused_with_its_code(frame, code):
    assert refusal(frame) == code


def test_a_number_too_long_to_read_is_malformed_where_frames_may_hold_it():
    with pytest.raises(ProtocolError) as refused:
        parse_message('{"type": "remove", "seat": ' + "1" * 4301 + "}", 8192)
    assert refused.value.code == ErrorCode.MALFORMED


@pytest.mark.parametrize("depth", [500, 900, 990, 1000, 1500])
@pytest.mark.parametrize("kind", ["sync", "hello", "chat"])
def test_a_small_frame_nested_deep_is_refused_and_nothing_breaks(kind, depth):
    """About 1,800 bytes of nested arrays with an escape in them: read or refused as a message (``hello`` and
    ``sync`` leave fields they do not know alone), never a crash."""
    for inner in ('"\\u00e9"', '"\\ud83d"', '"é"'):
        frame = '{"type": "' + kind + '", "x": ' + "[" * depth + inner + "]" * depth + "}"
        assert len(frame.encode()) < 4096
        try:
            message = parse_message(frame, 4096)
        except ProtocolError as refused:
            assert refused.code in (ErrorCode.MALFORMED, ErrorCode.BAD_REQUEST)
            assert len(refused.message) < 300
        else:
            assert kind in ("hello", "sync") and "ud83d" not in inner and message.type == kind


def test_a_whole_surrogate_pair_escaped_is_the_character_it_stands_for():
    message = parse_message('{"type": "chat", "text": "hi \\ud83d\\ude00 h\\u00e6"}', 4096)
    assert message == parse({"type": "chat", "text": "hi \N{GRINNING FACE} h\N{LATIN SMALL LETTER AE}"})


def test_the_set_rules_message_gives_rules_or_refuses_them_as_invalid_rules():
    message = parse({"type": "set_rules", "preset": "gurka", "rules": {"hand_size": 5}})
    assert isinstance(message, SetRules)
    assert message.to_rules().hand_size == 5 and message.to_rules().threshold == 30
    with pytest.raises(RoomError) as refused:
        parse({"type": "set_rules", "rules": {"threshold": 5}}).to_rules()
    assert refused.value.code == ErrorCode.INVALID_RULES and "threshold" in refused.value.message


def test_an_error_frame_carries_the_code_and_the_message():
    assert json.loads(error_message(ErrorCode.NOT_HOST, "only the host")) == {
        "type": "error", "code": "not_host", "message": "only the host"}



@pytest.mark.parametrize("message", ["only the host", "Åsa, Zoë 🥒 and 'Ben' said \"no\"\n\t\u0001 / \u2028 </script>"])
def test_frames_are_the_compact_json_the_standard_library_writes(message):
    frame = error_message(ErrorCode.NOT_HOST, message)
    assert frame == json.dumps({"type": "error", "code": "not_host", "message": message}, separators=(",", ":"))
    assert frame.isascii() and json.loads(frame)["message"] == message


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@given(JSON_VALUES)
def test_any_value_is_written_in_ascii_as_the_standard_library_writes_it(value):
    # Names, chat and summaries bring characters past ASCII (accents, suits' signs, emoji past U+FFFF).
    text = frames.compact(value)
    assert text.isascii() and json.loads(text) == value
    assert text.replace("\x7f", "\\u007f") == json.dumps(value, separators=(",", ":"))  # DEL may stay as it is


def test_a_text_the_fast_encoder_refuses_is_written_as_before():
    # A lone surrogate (a client's own words, escaped in its JSON) is not UTF-8: the frame is written as
    # the standard library writes it instead of failing.
    message = "no \ud800 here"
    assert error_message(ErrorCode.BAD_REQUEST, message) == json.dumps(
        {"type": "error", "code": "bad_request", "message": message}, separators=(",", ":"))


@pytest.mark.parametrize("code", ["en", "de"])
def test_you_holds_the_hand_its_legal_cards_and_why_each_other_card_may_not_be_played(code):
    """``you`` says each card's refusal in words: once for the cards that share one (a hand waiting for its
    turn), yet exactly what saying each card's own refusal gives, at every step of a match, for every seat."""
    rng = random.Random(11)
    seats = tuple(Seat(name, name.lower() * 16, player=f"{name.lower()}2345678") for name in ("Ana", "Ben", "Cy"))
    match, _ = deal_cards(new_match([seat.name for seat in seats], Rules(hand_size=4, lives=1)), rng)
    states = 0
    while not match.finished:
        table = Table(code="ROOM1", version=states, rules=match.rules, seats=seats, host=seats[0].token_hash,
                      match=match, match_id="m1", last_summary=None, connected=frozenset({0, 1, 2}),
                      away=frozenset(), spectators=0, turn_seconds=None, turn_remaining=None)
        with speaking(code):
            for seat in range(len(seats)):
                view = room_view(table, seat)
                assert you_json(view) == {
                    "seat": seat, "player": seats[seat].player, "host": False,
                    "hand": [held.card.code for held in view.hand],
                    "legal": [held.card.code for held in view.hand if held.legal],
                    "reasons": {held.card.code: unplayable(held.reason) for held in view.hand if not held.legal}}
        match = deal_cards(match, rng)[0] if match.needs_deal else play(match, rng.choice(
            match.legal_cards(match.turn)))[0]
        states += 1
    assert states > 20
