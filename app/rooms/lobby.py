"""A table outside its match: who sits where, who hosts, the rules and the turn clock.

:class:`Lobby` is an immutable value; each change is a method that checks
the request and returns the lobby it would make (or raises
:class:`~app.rooms.errors.RoomError`). The room stores the new lobby and
only then makes it its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from app.common.identity import hash_token, new_player_id, new_token
from app.common.names import InvalidName, clean_name, same_name
from app.game.rules import MAX_PLAYERS as MAX_SEATS
from app.game.rules import MIN_PLAYERS as MIN_SEATS
from app.game.rules import Rules
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.pace import Pace
from app.wording.errors import problem
from app.wording.players import stored_bot_name

__all__ = ["MAX_SEATS", "MIN_SEATS", "Lobby", "Seat", "Target", "seat_of"]


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at the table: a person (``token_hash``) or a bot (``bot`` strength), and who sits there.

    ``player`` is the occupant's public id (:func:`~app.common.identity.new_player_id`):
    actions aimed at a seat name it, so that they miss rather than hit
    whoever sits there next. A new occupant (a person joining, a bot, a bot
    taking over, a newcomer given the seat) gets a new id; a person moving
    their seat to another device keeps theirs.
    """

    name: str
    token_hash: str | None
    bot: str | None = None
    player: str = field(kw_only=True)

    @property
    def is_bot(self) -> bool:
        """Whether a bot sits here."""
        return self.bot is not None


@dataclass(frozen=True, slots=True)
class Target:
    """The seat an action is aimed at: ``player``, the id of who sat there when it was chosen, and/or ``seat``.

    A player id keeps aiming at that person while seats shift (someone
    before them leaves) and misses once they are gone; a seat index alone is
    the older form and hits whoever sits there when the action arrives.
    With both, the action is meant for that player in that seat only.
    """

    player: str | None = None
    seat: int | None = None


def seat_of(seats: Sequence[Seat], token_hash: str | None) -> int | None:
    """The index of the seat held by the person with ``token_hash``, or ``None``."""
    if token_hash is None:
        return None
    return next((index for index, seat in enumerate(seats) if seat.token_hash == token_hash), None)


def seat_index(seats: Sequence[Seat]) -> dict[str, int]:
    """Each seated person's seat, by token hash: ``seat_index(seats).get(token_hash)`` is
    ``seat_of(seats, token_hash)`` for a token hash (bots have none)."""
    index: dict[str, int] = {}
    for number, seat in enumerate(seats):
        if seat.token_hash is not None:
            index.setdefault(seat.token_hash, number)
    return index


@dataclass(frozen=True, slots=True)
class Lobby:
    """Seats, host (a token hash; the host need not be seated), rules, turn clock (seconds or ``None``) and
    pace (``None``: a live room; else a slow room's, app/rooms/pace.py)."""

    rules: Rules
    seats: tuple[Seat, ...] = ()
    host: str | None = None
    turn_seconds: int | None = None
    pace: Pace | None = None

    def seat_of(self, token_hash: str | None) -> int | None:
        """The seat of the person with ``token_hash``, or ``None``."""
        return seat_of(self.seats, token_hash)

    def is_host(self, token_hash: str | None) -> bool:
        """Whether ``token_hash`` is the host's."""
        return token_hash is not None and token_hash == self.host

    def knows(self, token_hash: str | None) -> bool:
        """Whether ``token_hash`` belongs to someone seated here or to the host."""
        return self.is_host(token_hash) or self.seat_of(token_hash) is not None

    def require_host(self, token_hash: str | None) -> None:
        """Refuse with ``not_host`` (403) unless ``token_hash`` is the host's."""
        if not self.is_host(token_hash):
            raise RoomError(ErrorCode.NOT_HOST, problem("not_host"), status=403)

    def require_seat(self, token_hash: str | None) -> int:
        """The seat of ``token_hash``'s person; ``not_seated`` (403) when they have none."""
        seat = self.seat_of(token_hash)
        if seat is None:
            raise RoomError(ErrorCode.NOT_SEATED, problem("not_seated"), status=403)
        return seat

    def check_seat(self, index: int) -> int:
        """``index`` if it names a seat; ``bad_request`` (422) otherwise."""
        if not 0 <= index < len(self.seats):
            raise RoomError(ErrorCode.BAD_REQUEST, problem("no_such_seat"), status=422)
        return index

    def require_players(self) -> None:
        """Refuse with ``not_enough_players`` unless 2 to 7 are seated, as a match needs (docs/rules.md §1)."""
        if not MIN_SEATS <= len(self.seats) <= MAX_SEATS:
            raise RoomError(ErrorCode.NOT_ENOUGH_PLAYERS, problem("not_enough_players", low=MIN_SEATS, high=MAX_SEATS))

    def require_away_seat(self, token_hash: str | None, target: Target, away: frozenset[int]) -> int:
        """The index of the seat ``target`` aims at, for the host (``token_hash``) to hand to someone else.

        It must hold a person (``bad_request``, 422, for a bot) who is in
        ``away``, the seats gone past the grace period or stepped away
        (``player_present`` otherwise). Raises ``not_host`` (403) for anyone but the host, and
        ``seat_changed`` as :meth:`target_seat` does.
        """
        self.require_host(token_hash)
        index = self.target_seat(target)
        seat = self.seats[index]
        if seat.is_bot:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("seat_is_bot"), status=422)
        if index not in away:
            raise RoomError(ErrorCode.PLAYER_PRESENT, problem("player_present", name=seat.name))
        return index

    def index_of(self, player: str) -> int | None:
        """The index of the seat whose occupant has the public id ``player``, or ``None``."""
        return next((index for index, seat in enumerate(self.seats) if seat.player == player), None)

    def target_seat(self, target: Target) -> int:
        """The index of the seat ``target`` aims at.

        Raises ``seat_changed`` (409) when ``target.player`` holds no seat
        (they left, were removed or replaced) or, given ``target.seat`` too,
        not that one; ``bad_request`` (422) for an index alone that names no
        seat, or a target naming nothing.
        """
        if target.player is None:
            if target.seat is None:
                raise RoomError(ErrorCode.BAD_REQUEST, problem("name_the_player"), status=422)
            return self.check_seat(target.seat)
        index = self.index_of(target.player)
        if index is None or target.seat not in (None, index):
            raise RoomError(ErrorCode.SEAT_CHANGED, problem("seat_changed"))
        return index

    def joined(self, raw_name: str, host_token: str | None = None) -> tuple[Lobby, str]:
        """A new person called ``raw_name`` sits in the next seat; returns the lobby and their token.

        The first person becomes host. With ``host_token``, the host's own
        token, a host who gave up their seat sits down again under it (and
        keeps hosting); otherwise the person gets a new token. Raises
        ``invalid_name`` (422), ``name_taken`` or ``room_full``; with
        ``host_token``, also ``not_host`` (403) when it is not the host's,
        and ``already_seated`` when the host has a seat.
        """
        if host_token is not None:
            host = hash_token(host_token)
            self.require_host(host)
            if self.seat_of(host) is not None:
                raise RoomError(ErrorCode.ALREADY_SEATED, problem("already_seated"))
        try:
            name = clean_name(raw_name)
        except InvalidName as error:
            raise RoomError(ErrorCode.INVALID_NAME, problem(error.reason, **error.facts), status=422) from None
        taken = next((seat.name for seat in self.seats if same_name(name, seat.name)), None)
        if taken is not None:
            raise RoomError(ErrorCode.NAME_TAKEN, problem("name_taken", name=taken))
        self._require_room(watch=True)
        token = host_token or new_token()
        token_hash = hash_token(token)
        seat = Seat(name, token_hash, player=new_player_id())
        return replace(self, seats=(*self.seats, seat), host=self.host or token_hash), token

    def without(self, index: int) -> Lobby:
        """Seat ``index`` freed, the later seats moving up."""
        return replace(self, seats=self.seats[:index] + self.seats[index + 1:])

    def with_bot(self, strength: str, seen: int | None = None) -> Lobby:
        """A bot of ``strength`` in the next seat, named with the first free number ("Normal bot 2").

        ``seen`` is how many seats the asker saw taken, if they said: when
        that is no longer so (a second click of the same button, someone
        joined meanwhile) raises ``seat_changed`` and adds nothing.
        """
        if seen is not None and seen != len(self.seats):
            raise RoomError(ErrorCode.SEAT_CHANGED, problem("seats_changed"))
        self._require_room()
        taken = {seat.name.casefold() for seat in self.seats}
        number = next(n for n in range(1, MAX_SEATS + 2) if f"{strength} bot {n}".casefold() not in taken)
        bot = Seat(stored_bot_name(strength, number), None, bot=strength, player=new_player_id())
        return replace(self, seats=(*self.seats, bot))

    def with_seat_to_bot(self, index: int, strength: str) -> Lobby:
        """Seat ``index``'s person replaced by a bot of ``strength`` under the same name, for good.

        The bot is a new occupant: the seat gets a new player id. Raises
        ``bad_request`` (422) when a bot already plays the seat.
        """
        if self.seats[index].is_bot:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("seat_is_bot"), status=422)
        return self._with_seat(index, Seat(self.seats[index].name, None, bot=strength, player=new_player_id()))

    def with_seat_moved(self, index: int, *, new_player: bool) -> tuple[Lobby, str]:
        """Seat ``index``'s person known by a new token from now on; returns the lobby and the new token.

        The old token stops working (and hosting, if it hosted, goes with the
        seat). ``new_player``: someone new takes the seat over, under its name,
        with a new player id; otherwise the same player moves to another device
        and keeps theirs. Raises ``bad_request`` (422) for a bot's seat.
        """
        seat = self.seats[index]
        if seat.is_bot:
            raise RoomError(ErrorCode.BAD_REQUEST, problem("seat_is_bot"), status=422)
        token = new_token()
        token_hash = hash_token(token)
        player = new_player_id() if new_player else seat.player
        lobby = self._with_seat(index, replace(seat, token_hash=token_hash, player=player))
        return replace(lobby, host=token_hash if self.host == seat.token_hash else self.host), token

    def _with_seat(self, index: int, seat: Seat) -> Lobby:
        return replace(self, seats=(*self.seats[:index], seat, *self.seats[index + 1:]))

    def _require_room(self, *, watch: bool = False) -> None:
        if len(self.seats) >= MAX_SEATS:
            raise RoomError(ErrorCode.ROOM_FULL, problem("room_full_watch" if watch else "room_full", count=MAX_SEATS))
