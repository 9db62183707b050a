"""A room's chat on its own: cleaning a line, who writes as whom, mutes and the switch, history, fan-out."""

from __future__ import annotations

from typing import Any

import pytest

from app.game.rules import Rules
from app.rooms.chat import HISTORY, TEXT_LIMIT, Chat, ChatLine, ChatStatus, clean_text
from app.rooms.errors import RoomError
from app.rooms.lobby import Lobby


class Listener:
    """A connection as chat sees it: it records the frames it is offered."""

    kind = "test"

    def __init__(self, token_hash: str | None = None, viewer: str = "v" * 10, language: str = "en",
                 broken: bool = False) -> None:
        self.token_hash, self.viewer, self.language = token_hash, viewer, language
        self.renderer = self
        self.frames: list[Any] = []
        self.aborted = False
        self.broken = broken

    def offer(self, text: str) -> bool:
        self.frames.append(text)
        return True

    def abort(self) -> None:
        self.aborted = True

    def chat(self, line: ChatLine) -> Any:
        if self.broken:
            raise RuntimeError("template error")
        return ("line", line.text or line.reaction)

    def chat_welcome(self, lines: tuple[ChatLine, ...], status: ChatStatus) -> Any:
        return ("welcome", [line.text for line in lines], status.spectator_chat) if lines else None

    def chat_status(self, status: ChatStatus, *, host: bool) -> Any:
        return ("status", status.spectator_chat, [sender.id for sender in status.muted], host)


@pytest.fixture
def lobby() -> Lobby:
    """Ana (host) and Ben seated."""
    lobby, _ = Lobby(Rules()).joined("Ana")
    lobby, _ = lobby.joined("Ben")
    return lobby


def hosts(lobby: Lobby) -> tuple[Listener, Listener, Listener]:
    """Ana's, Ben's and a spectator's connections."""
    return (Listener(lobby.seats[0].token_hash), Listener(lobby.seats[1].token_hash),
            Listener(None, viewer="s" * 10))


@pytest.mark.parametrize(("text", "kept"), [
    ("  hello  ", "hello"),
    ("two\n\nlines\tand  spaces", "two lines and spaces"),
    ("é" * TEXT_LIMIT, "é" * TEXT_LIMIT),
    ("<b>x</b>", "<b>x</b>"),
    ("a\x00b\x07 \x85c\x7f", "a b c"),  # control characters are white space
    ("family \N{MAN}\u200d\N{WOMAN}\u200d\N{GIRL}", "family \N{MAN}\u200d\N{WOMAN}\u200d\N{GIRL}"),
    ("\u202egnp.exe\u202c ok", "gnp.exe ok"),  # overrides and embeddings would turn around what follows
    ("a \u2067\u05e9\u05dc\u05d5\u05dd\u2069 b \u202a", "a \u05e9\u05dc\u05d5\u05dd b"),  # isolates too
    ("\u05e9\u200f!", "\u05e9\u200f!"),  # a mark turns nothing around: it stays
])
def test_a_line_is_kept_trimmed_with_single_spaces(text, kept):
    assert clean_text(text) == kept


@pytest.mark.parametrize(("text", "code"), [("", "chat_empty"), (" \n\t", "chat_empty"),
                                            ("\u200b\u200b", "chat_empty"), ("\x00\x07", "chat_empty"),
                                            ("\u3164 \u2800", "chat_empty"), ("\u0301", "chat_empty"),
                                            ("\u202e\u2066", "chat_empty"), ("x" * (TEXT_LIMIT + 1), "chat_too_long")])
def test_an_empty_or_long_line_is_refused(text, code):
    with pytest.raises(RoomError) as refused:
        clean_text(text)
    assert refused.value.code == code


def test_players_write_under_their_player_id_and_spectators_under_their_viewer_id(lobby):
    ana, ben, watcher = hosts(lobby)
    chat, live = Chat(), [ana, ben, watcher]
    assert chat.sender(lobby, ana, live) == (sender := chat.sender(lobby, ana, live))
    assert (sender.id, sender.name, sender.seat, sender.spectator, sender.host) == (
        lobby.seats[0].player, "Ana", 0, False, True)
    spectator = chat.sender(lobby, watcher, live)
    assert (spectator.id, spectator.name, spectator.seat, spectator.spectator) == ("s" * 10, None, None, True)
    with pytest.raises(RoomError) as refused:
        chat.sender(lobby, Listener(None), live)  # not one of the room's connections
    assert refused.value.code == "not_in_room"
    with pytest.raises(RoomError) as refused:
        chat.sender(lobby.without(1), ben, live)  # Ben's seat was freed
    assert refused.value.code == "not_in_room"


def test_a_line_goes_to_everyone_rendered_once_per_kind_and_language(lobby):
    ana, ben, watcher = hosts(lobby)
    danish = Listener(None, viewer="d" * 10, language="da")
    calls = []
    original = Listener.chat
    for listener in (ana, ben, watcher, danish):
        listener.chat = lambda line, me=listener: calls.append(me) or original(me, line)  # type: ignore[method-assign]
    chat = Chat()
    line = chat.say(chat.sender(lobby, ben, [ana, ben, watcher, danish]), None, [ana, ben, watcher, danish],
                    text=" hi ")
    assert line.text == "hi" and line.number == 1
    assert all(listener.frames == [("line", "hi")] for listener in (ana, ben, watcher, danish))
    assert len(calls) == 2  # English once, Danish once


def test_a_listener_that_cannot_be_rendered_is_dropped_alone(lobby):
    ana, ben, _ = hosts(lobby)
    broken = Listener(None, viewer="b" * 10, language="da", broken=True)
    chat = Chat()
    chat.say(chat.sender(lobby, ana, [ana, ben, broken]), None, [ana, ben, broken], text="hi")
    assert broken.aborted and broken.frames == []
    assert ben.frames == [("line", "hi")] and not ben.aborted


def test_a_refused_line_reaches_nobody_and_is_not_kept(lobby):
    ana, ben, watcher = hosts(lobby)
    live = [ana, ben, watcher]
    chat = Chat()
    chat.allow_spectators(lobby, chat.sender(lobby, ana, live), False, None, live)
    chat.mute(lobby, chat.sender(lobby, ana, live), lobby.seats[1].player, None, live)
    for listener in live:
        listener.frames.clear()
    for who, kwargs, code in [(watcher, {"text": "hi"}, "spectator_chat_off"), (ben, {"text": "hi"}, "muted"),
                              (ben, {"reaction": "oops"}, "muted"), (ana, {"reaction": "dance"}, "bad_request"),
                              (ana, {"text": " "}, "chat_empty")]:
        with pytest.raises(RoomError) as refused:
            chat.say(chat.sender(lobby, who, live), None, live, **kwargs)
        assert refused.value.code == code
    assert chat.lines == () and all(listener.frames == [] for listener in live)


def test_only_the_host_mutes_and_switches_and_everyone_is_told(lobby):
    ana, ben, watcher = hosts(lobby)
    live = [ana, ben, watcher]
    chat = Chat()
    for asker in (ben, watcher):
        with pytest.raises(RoomError) as refused:
            chat.mute(lobby, chat.sender(lobby, asker, live), lobby.seats[0].player, None, live)
        assert refused.value.code == "not_host"
        with pytest.raises(RoomError) as refused:
            chat.allow_spectators(lobby, chat.sender(lobby, asker, live), False, None, live)
        assert refused.value.code == "not_host"
    host = chat.sender(lobby, ana, live)
    with pytest.raises(RoomError) as refused:
        chat.mute(lobby, host, "2" * 10, None, live)
    assert refused.value.code == "unknown_sender"
    with pytest.raises(RoomError) as refused:
        chat.mute(lobby, host, host.id, None, live)
    assert refused.value.code == "bad_request"
    chat.mute(lobby, host, "s" * 10, None, live)  # a spectator connected, who has not written yet
    assert ana.frames[-1] == ("status", True, ["s" * 10], True)
    assert ben.frames[-1] == watcher.frames[-1] == ("status", True, ["s" * 10], False)


def test_mutes_and_the_switch_last_until_a_new_match_starts(lobby):
    ana, ben, watcher = hosts(lobby)
    live = [ana, ben, watcher]
    chat = Chat()
    host = chat.sender(lobby, ana, live)
    chat.mute(lobby, host, lobby.seats[1].player, "match1", live)
    chat.allow_spectators(lobby, host, False, "match1", live)
    assert chat.status("match1") == ChatStatus(False, (chat.sender(lobby, ben, live),))
    assert chat.status(None) == chat.status("match1")  # a finished match cleared away does not end them
    assert chat.status("match2") == ChatStatus(True, ())
    assert chat.say(chat.sender(lobby, ben, live), "match2", live, text="free").text == "free"
    lobby_chat = Chat()
    lobby_chat.mute(lobby, host, lobby.seats[1].player, None, live)  # before the first match: until it starts
    assert lobby_chat.status(None).muted and not lobby_chat.status("match1").muted


def test_the_host_is_never_muted_nor_switched_off(lobby):
    ana, ben, _ = hosts(lobby)
    seatless = lobby.without(0)  # Ana gave up her seat and still hosts
    watching = Listener(lobby.seats[0].token_hash, viewer="h" * 10)
    live = [watching, ben]
    chat = Chat()
    host = chat.sender(seatless, watching, live)
    assert host.spectator and host.host and host.id == "h" * 10
    chat.allow_spectators(seatless, host, False, None, live)
    assert chat.say(host, None, live, text="still here").text == "still here"


def test_the_last_lines_are_kept_and_welcome_a_new_connection(lobby):
    ana, ben, watcher = hosts(lobby)
    chat = Chat()
    newcomer = Listener(None, viewer="n" * 10)
    chat.welcome(newcomer, None)
    assert newcomer.frames == []  # nothing kept: this renderer sends nothing
    sender = chat.sender(lobby, ana, [ana])
    for number in range(HISTORY + 3):
        chat.say(sender, None, [ana], text=f"line {number}")
    assert [line.text for line in chat.lines] == [f"line {n}" for n in range(3, HISTORY + 3)]
    chat.welcome(newcomer, None)
    assert newcomer.frames == [("welcome", [f"line {n}" for n in range(3, HISTORY + 3)], True)]
