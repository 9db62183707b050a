"""The chat part of a room: its table chat, and the chat commands its people give through the room.

:class:`ChatRoom` is a base of :class:`~app.rooms.room.Room`, kept here so
that the room core stays small; who may write what, and sending it, is
decided in :mod:`.chat`. Each command reads the room as it is when it runs:
who is seated (``lobby``), who is connected (``presence``) and which match
is being played (``current``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.rooms.chat import Chat, ChatLine, ChatStatus, Sender
from app.rooms.connection import Connection
from app.rooms.current_match import CurrentMatch
from app.rooms.lobby import Lobby
from app.rooms.presence import Presence


class ChatRoom:
    """What a room has as a place to chat: ``chat``, its :class:`~app.rooms.chat.Chat`, in memory only
    (a restart forgets it). The commands raise :class:`~app.rooms.errors.RoomError` and change nothing
    when refused."""

    if TYPE_CHECKING:
        lobby: Lobby
        presence: Presence
        current: CurrentMatch

    def _start_chat(self) -> None:
        self.chat = Chat()

    def chat_status(self) -> ChatStatus:
        """Who may write in the chat now (:meth:`Chat.status`: a new match has ended the mutes and the switch)."""
        return self.chat.status(self.current.match_id)

    def chat_sender(self, conn: Connection) -> Sender:
        """Who ``conn`` writes as now (:meth:`Chat.sender`); ``not_in_room`` for a connection that is no longer
        live or whose seat was freed."""
        return self.chat.sender(self.lobby, conn, self.presence.live())

    def say(self, conn: Connection, text: str | None = None, reaction: str | None = None) -> ChatLine:
        """``conn``'s person writes ``text`` or sends ``reaction``; every live connection gets the line, which
        is returned. Refused as :meth:`chat_sender` and :meth:`Chat.say` say (``muted``, ``chat_empty``…)."""
        live = self.presence.live()
        return self.chat.say(self.chat.sender(self.lobby, conn, live), self.current.match_id, live,
                             text=text, reaction=reaction)

    def mute(self, conn: Connection, target: str) -> None:
        """The host, on ``conn``, mutes the sender ``target`` (a player id or a spectator's id) until a new match
        starts; every live connection gets the new status. Refused as :meth:`chat_sender` and
        :meth:`Chat.mute` say (``not_host``, ``unknown_sender``…)."""
        live = self.presence.live()
        self.chat.mute(self.lobby, self.chat.sender(self.lobby, conn, live), target, self.current.match_id, live)

    def allow_spectators(self, conn: Connection, on: bool) -> None:
        """The host, on ``conn``, lets spectators write (``on``) or not until a new match starts; every live
        connection gets the new status. Refused as :meth:`chat_sender` and :meth:`Chat.allow_spectators` say."""
        live = self.presence.live()
        self.chat.allow_spectators(self.lobby, self.chat.sender(self.lobby, conn, live), on, self.current.match_id,
                                   live)
