"""One-time links that move a seat to another browser: a player's own, or an away player's the host gives away.

:func:`link_seat` decides, from the lobby alone, which seat a link may be
made for; :class:`SeatLinks` keeps a room's pending links. Both are pure:
times are the room's clock readings, passed in. Pending links live in the
room's memory only, so a server restart forgets them (the player asks for
a new one), and only the hash of each secret is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.common.identity import hash_token, new_token
from app.rooms.errors import ErrorCode, RoomError, Words
from app.rooms.lobby import Lobby, Seat, Target
from app.wording.errors import problem


class LinkKind(StrEnum):
    """What a link does with its seat."""

    DEVICE = "device"
    """The seated player goes on on another device: same seat, same player id, a new token."""
    SEAT = "seat"
    """The host gives an away player's seat to someone new: same seat and name, a new player id and token."""


@dataclass(frozen=True, slots=True)
class Link:
    """A link just made, for the connection that asked for it and no one else.

    ``secret`` is what opens it (it goes after the ``#`` of the URL, which
    browsers never send to a server, so it appears in no request line and
    no log); ``seat``, ``player`` and ``name`` say which seat it moves;
    ``lifetime`` is how many seconds it works, once.
    """

    kind: LinkKind
    room: str
    seat: int
    player: str
    name: str
    secret: str
    lifetime: float


@dataclass(frozen=True, slots=True)
class Pending:
    """A link not used yet: what it does, to whose seat (by player id), and until when (clock seconds)."""

    kind: LinkKind
    player: str
    expires: float


@dataclass(frozen=True, slots=True)
class Move:
    """What opening a link does: ``lobby`` with ``seat`` held by the new ``token``.

    ``old_token_hash`` and ``old_player`` are who held the seat before;
    ``notice`` is what their connections are told.
    """

    lobby: Lobby
    seat: int
    token: str
    old_token_hash: str | None
    old_player: str
    notice: Words

    @property
    def player(self) -> str:
        """The seat's player id from now on."""
        return self.lobby.seats[self.seat].player


NOTICES: dict[LinkKind, Words] = {
    LinkKind.DEVICE: problem("seat_moved_device"),
    LinkKind.SEAT: problem("seat_moved_host"),
}
"""What the connections of the seat's previous holder are told, by kind of link."""


def link_seat(lobby: Lobby, token_hash: str | None, kind: LinkKind, target: Target | None,
              away: frozenset[int]) -> int:
    """The index of the seat a link of ``kind`` asked for by ``token_hash`` may move.

    ``device``: the asker's own seat (``not_seated``, 403, without one).
    ``seat``: the host gives away the seat ``target`` aims at, a person's
    who is in ``away`` (the seats gone past the grace period or stepped
    away), refused as :meth:`~app.rooms.lobby.Lobby.require_away_seat` says.
    """
    if kind == LinkKind.DEVICE:
        return lobby.require_seat(token_hash)
    return lobby.require_away_seat(token_hash, target or Target(), away)


class SeatLinks:
    """A room's pending links, by the hash of their secret; each works once, for ``lifetime`` seconds.

    A seat has at most one pending link: a new one for the same player
    replaces the last.
    """

    def __init__(self, lifetime: float) -> None:
        self.lifetime = lifetime
        self._pending: dict[str, Pending] = {}

    def issue(self, kind: LinkKind, room: str, index: int, seat: Seat, now: float) -> Link:
        """A new link of ``kind`` to ``seat`` (number ``index`` of room ``room``), working until ``now + lifetime``.

        Any earlier link to that seat stops working, and expired ones are dropped.
        """
        self._pending = {key: pending for key, pending in self._pending.items()
                         if pending.player != seat.player and pending.expires > now}
        secret = new_token()
        self._pending[hash_token(secret)] = Pending(kind, seat.player, now + self.lifetime)
        return Link(kind, room, index, seat.player, seat.name, secret, self.lifetime)

    def find(self, secret: str, now: float) -> Pending | None:
        """The pending link ``secret`` opens at ``now``; ``None`` if it never existed, was used or expired."""
        pending = self._pending.get(hash_token(secret))
        return pending if pending is not None and pending.expires > now else None

    def open(self, secret: str, lobby: Lobby, now: float, away: frozenset[int]) -> Move:
        """What opening the link of ``secret`` at ``now`` does to ``lobby``; the link stays pending until
        :meth:`forget` (so a failed write does not spend it).

        ``away`` holds the seats away now (gone past the grace period, or
        stepped away). Raises ``invalid_link`` (404) when the link was used,
        has expired, never existed or its player holds no seat any more, and
        ``player_present`` when the host's link finds its seat no longer away
        (its player is back).
        """
        link = self.find(secret, now)
        index = None if link is None else lobby.index_of(link.player)
        if link is None or index is None:
            raise RoomError(ErrorCode.INVALID_LINK, problem("invalid_link"), status=404)
        seat = lobby.seats[index]
        if link.kind == LinkKind.SEAT and index not in away:
            raise RoomError(ErrorCode.PLAYER_PRESENT, problem("player_back", name=seat.name))
        moved, token = lobby.with_seat_moved(index, new_player=link.kind == LinkKind.SEAT)
        return Move(moved, index, token, seat.token_hash, seat.player, NOTICES[link.kind])

    def forget(self, player: str) -> None:
        """Drop every pending link to ``player``'s seat (it was used, or the seat changed hands)."""
        self._pending = {key: pending for key, pending in self._pending.items() if pending.player != player}
