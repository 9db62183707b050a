"""A room's table chat: short messages and quick reactions, who may write, and sending them to everyone.

Chat lives in the server's memory only, never with the match: the room keeps
its last :data:`HISTORY` lines for whoever (re)connects, and a restart
forgets them, and the mutes. Mutes and the spectators' switch hold until a
new match starts (docs/protocol.md, "Table chat"). Nothing here reads or
writes a hand: a line holds its sender's public facts and what they wrote.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from app.common.names import shows_something
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby
from app.wording.chat import REACTIONS
from app.wording.errors import problem
from app.wording.language import speaking

log = logging.getLogger(__name__)

HISTORY = 50
"""Lines a room keeps, and sends after the state to a connection that opens."""
TEXT_LIMIT = 200
"""Characters a message may have, after trimming."""
_CONTROLS_AS_SPACES = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)], " ")
"""The control characters (Unicode's ``Cc``: C0, DEL and C1), each as a space (``str.translate``)."""
_DIRECTION_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
"""The bidirectional embeddings, overrides and isolates, to be dropped (``str.translate``): left open in a line,
they would turn around how whatever follows it is shown (the name after it, in a client that writes them on one
line). The marks (LRM, RLM), which turn nothing around, stay."""
REACTION_CODES = tuple(REACTIONS)
"""Every quick reaction's code (``thumbs_up``, ``well_played``…), as the protocol sends them."""


@dataclass(frozen=True, slots=True)
class Sender:
    """Who wrote a line, as everyone may know it: ``id`` (a player id, or a spectator's anonymous id),
    ``name`` and ``seat`` (a player's; ``None`` for a spectator), whether a ``spectator`` and whether
    the ``host``."""

    id: str
    name: str | None
    seat: int | None
    spectator: bool
    host: bool


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One line of the chat: ``number`` (growing within the room), its ``sender``, and either ``text``
    (trimmed, 1 to :data:`TEXT_LIMIT` characters) or ``reaction`` (a code of :data:`REACTION_CODES`)."""

    number: int
    sender: Sender
    text: str | None = None
    reaction: str | None = None


@dataclass(frozen=True, slots=True)
class ChatStatus:
    """Who may write: whether spectators may (``spectator_chat``) and who is ``muted``, in the order muted."""

    spectator_chat: bool
    muted: tuple[Sender, ...]


class Listener(Protocol):
    """What chat needs of a connection (:class:`~app.rooms.connection.Connection`)."""

    token_hash: str | None
    viewer: str
    language: str
    renderer: Any

    @property
    def kind(self) -> str:
        """The kind of client (``json``, ``page``)."""

    def offer(self, text: str) -> bool:
        """Queue a frame without waiting."""

    def abort(self) -> None:
        """Drop the connection (its frame could not be rendered)."""


def clean_text(text: str) -> str:
    """A message as it is kept: control characters (NUL, BEL, …) taken as white space, the bidirectional
    embeddings, overrides and isolates dropped, every run of white space (new lines too) made one space, trimmed.

    Raises :class:`RoomError` ``chat_empty`` when nothing that is drawn is left (only white space, zero-width
    or control characters: :func:`~app.common.names.shows_something`) and ``chat_too_long`` past
    :data:`TEXT_LIMIT` characters (Unicode code points).
    """
    cleaned = " ".join(text.translate(_CONTROLS_AS_SPACES).translate(_DIRECTION_CONTROLS).split())
    if not shows_something(cleaned):
        raise RoomError(ErrorCode.CHAT_EMPTY, problem("chat_empty"), status=422)
    if len(cleaned) > TEXT_LIMIT:
        raise RoomError(ErrorCode.CHAT_TOO_LONG, problem("chat_too_long", count=TEXT_LIMIT, length=len(cleaned)),
                        status=422)
    return cleaned


class Chat:
    """A room's chat: its last lines, its mutes and whether spectators may write.

    The room owns one; every method runs without waiting, so each is whole
    between the room's other actions. ``match_id`` arguments are the room's
    current match (``None`` before the first): when it names a match not
    seen before, a new match has started and the mutes and the switch are
    cleared. Refusals raise :class:`RoomError` and change nothing.
    """

    def __init__(self, history: int = HISTORY) -> None:
        self._lines: deque[ChatLine] = deque(maxlen=history)
        self._count = 0
        self._muted: dict[str, Sender] = {}
        self._spectator_chat = True
        self._match: str | None = None

    @property
    def lines(self) -> tuple[ChatLine, ...]:
        """The lines kept, oldest first."""
        return tuple(self._lines)

    def status(self, match_id: str | None) -> ChatStatus:
        """Who may write now."""
        self._follow(match_id)
        return ChatStatus(self._spectator_chat, tuple(self._muted.values()))

    def sender(self, lobby: Lobby, listener: Listener, live: Collection[Listener]) -> Sender:
        """Who ``listener`` writes as: its seat's player, else a spectator by its anonymous ``viewer`` id.

        Raises ``not_in_room`` when the connection is no longer one of the
        room's ``live`` ones, or when its token names nobody here any more
        (its seat was freed): such a connection only watches.
        """
        token = listener.token_hash
        if listener not in live or (token is not None and not lobby.knows(token)):
            raise RoomError(ErrorCode.NOT_IN_ROOM, problem("not_in_room"))
        host = lobby.is_host(token)
        seat = lobby.seat_of(token)
        if seat is None:
            return Sender(listener.viewer, None, None, spectator=True, host=host)
        return Sender(lobby.seats[seat].player, lobby.seats[seat].name, seat, spectator=False, host=host)

    def say(self, sender: Sender, match_id: str | None, live: Iterable[Listener], *, text: str | None = None,
            reaction: str | None = None) -> ChatLine:
        """``sender`` writes ``text`` (as :func:`clean_text` keeps it) or sends ``reaction``; everyone
        ``live`` gets the line. Returns it.

        Raises ``chat_empty``/``chat_too_long``, ``bad_request`` for an
        unknown reaction, ``muted`` for a sender the host muted, and
        ``spectator_chat_off`` for a spectator while the host has spectator
        chat off. The host is never muted nor switched off.
        """
        kept = clean_text(text or "") if reaction is None else None
        if reaction is not None and reaction not in REACTIONS:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("reaction_code", codes=", ".join(REACTION_CODES)))
        self._follow(match_id)
        if not sender.host and sender.id in self._muted:
            raise RoomError(ErrorCode.MUTED, problem("chat_muted"))
        if not sender.host and sender.spectator and not self._spectator_chat:
            raise RoomError(ErrorCode.SPECTATOR_CHAT_OFF, problem("spectator_chat_off"))
        self._count += 1
        line = ChatLine(self._count, sender, kept, reaction)
        self._lines.append(line)
        _broadcast(live, lambda one: one.renderer.chat(line), lambda one: (one.kind, one.language))
        return line

    def mute(self, lobby: Lobby, asker: Sender, target: str, match_id: str | None,
             live: Collection[Listener]) -> None:
        """The host (``asker``) mutes the sender ``target`` (a player id, or a spectator's id) until a new
        match starts; everyone ``live`` gets the new status.

        Raises ``not_host``, ``bad_request`` for the host's own id, and
        ``unknown_sender`` for an id that is neither a seat's player nor a
        spectator connected or in the chat's lines.
        """
        if not asker.host:
            raise RoomError(ErrorCode.NOT_HOST, problem("not_host"), status=403)
        if target == asker.id:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("mute_yourself"))
        who = self._known(lobby, live).get(target)
        if who is None:
            raise RoomError(ErrorCode.UNKNOWN_SENDER, problem("unknown_sender"), status=404)
        self._follow(match_id)
        self._muted.setdefault(target, who)
        self._tell(lobby, match_id, live)

    def allow_spectators(self, lobby: Lobby, asker: Sender, on: bool, match_id: str | None,
                         live: Collection[Listener]) -> None:
        """The host (``asker``) lets spectators write (``on``) or not, until a new match starts; everyone
        ``live`` gets the new status. Raises ``not_host``."""
        if not asker.host:
            raise RoomError(ErrorCode.NOT_HOST, problem("not_host"), status=403)
        self._follow(match_id)
        self._spectator_chat = on
        self._tell(lobby, match_id, live)

    def welcome(self, listener: Listener, match_id: str | None) -> None:
        """Send a connection that just opened (after its state) the lines kept and who may write."""
        status = self.status(match_id)
        _broadcast([listener], lambda one: one.renderer.chat_welcome(self.lines, status), lambda one: 0)

    def _tell(self, lobby: Lobby, match_id: str | None, listeners: Iterable[Listener]) -> None:
        status = self.status(match_id)
        _broadcast(listeners, lambda one: one.renderer.chat_status(status, host=lobby.is_host(one.token_hash)),
                   lambda one: (one.kind, one.language, lobby.is_host(one.token_hash)))

    def _known(self, lobby: Lobby, live: Collection[Listener]) -> dict[str, Sender]:
        """Every sender the host may mute, by id: the seats' players, spectators in the lines, spectators here."""
        known = {line.sender.id: line.sender for line in self._lines if line.sender.spectator}
        for listener in live:
            if listener.token_hash is None or lobby.seat_of(listener.token_hash) is None:
                known.setdefault(listener.viewer, Sender(listener.viewer, None, None, spectator=True,
                                                         host=lobby.is_host(listener.token_hash)))
        for index, seat in enumerate(lobby.seats):
            known[seat.player] = Sender(seat.player, seat.name, index, spectator=False,
                                        host=lobby.is_host(seat.token_hash))
        return known

    def _follow(self, match_id: str | None) -> None:
        """A match not seen before has started: the mutes and the switch of the one before end."""
        if match_id is not None and match_id != self._match:
            self._match = match_id
            self._muted.clear()
            self._spectator_chat = True


def _broadcast(listeners: Iterable[Listener], make: Callable[[Listener], str | None],
               alike: Callable[[Listener], Hashable]) -> None:
    """Queue for each listener the frame ``make`` renders (``None``: nothing to send), once per kind of
    listener (``alike``), in that listener's language. A listener whose frame cannot be rendered is
    dropped alone."""
    made: dict[Hashable, str | None] = {}
    for listener in listeners:
        key = alike(listener)
        try:
            if key not in made:
                with speaking(listener.language):
                    made[key] = make(listener)
            frame = made[key]
            if frame is not None:
                listener.offer(frame)
        except Exception:
            log.exception("could not render a chat frame for a %s connection", listener.kind)
            listener.abort()
