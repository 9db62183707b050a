"""What storage takes and gives back: frozen values, never ORM rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.bots.strength import BotStrength
from app.common.identity import TOKEN_HASH_PATTERN, is_player_id


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """An occupied seat of a room.

    - ``seat``: the seat index, from 0.
    - ``name``: the player's name (at most 100 characters).
    - ``token_hash``: :func:`hash_token` of the player's secret token, or
      ``None`` (a bot has no token). Never the token itself.
    - ``bot``: ``None`` for a person, else a :class:`BotStrength` value
      (``"easy"``, ``"normal"`` or ``"hard"``).
    - ``player``: the occupant's public player id
      (:func:`~app.common.identity.new_player_id`), unique in the room; keyword only.
    - ``stepped_away``: the person handed the seat to the stand-in bot by
      choice in the match being played (docs/protocol.md, "Stepping away");
      keyword only, ``False`` by default.

    Raises ``ValueError`` for a negative seat, an unknown bot strength, a
    token hash that is not 64 lower-case hex digits, a player id that is
    not one (:func:`~app.common.identity.is_player_id`), or a seat without a
    person (a bot, or no token hash) stepped away.
    """

    seat: int
    name: str
    token_hash: str | None = None
    bot: str | None = None
    player: str = field(kw_only=True)
    stepped_away: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0:
            raise ValueError(f"seat must be a seat index from 0, not {self.seat!r}")
        if self.bot is not None and self.bot not in tuple(BotStrength):
            raise ValueError(f"bot must be None or one of {', '.join(BotStrength)}, not {self.bot!r}")
        if self.token_hash is not None and not TOKEN_HASH_PATTERN.fullmatch(self.token_hash):
            raise ValueError("token_hash must be the hex SHA-256 of the token (64 lower-case hex digits)")
        if not isinstance(self.player, str) or not is_player_id(self.player):
            raise ValueError(f"player must be a player id, not {self.player!r}")
        if not isinstance(self.stepped_away, bool):
            raise ValueError(f"stepped_away must be True or False, not {self.stepped_away!r}")
        if self.stepped_away and (self.bot is not None or self.token_hash is None):
            raise ValueError("only a person's seat (a token hash, no bot) can be stepped away from")

    @property
    def is_bot(self) -> bool:
        """Whether a bot sits here."""
        return self.bot is not None


@dataclass(frozen=True, slots=True)
class ActiveMatch:
    """The match in progress at a room, as stored.

    ``record`` is a ``cucumber-match/1`` record (docs/rules.md §4) of every deal
    and play stored so far; the last deal may be unfinished.
    """

    match_id: str
    started_at: datetime
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RoomSnapshot:
    """A room to restore when the server starts.

    ``rules`` as saved (a dict of rules options), ``host_token_hash`` the
    host's token hash (``None`` when nobody hosts), ``turn_seconds`` the turn
    clock (``None`` when off), ``finished`` the room's newest match when that
    one is finished (``None`` otherwise), ``created_at`` aware UTC, ``seats`` the occupied seats by
    index, ``match`` the match in progress or ``None``, ``epoch`` its owner's fencing number.
    """

    code: str
    rules: dict[str, Any]
    host_token_hash: str | None
    turn_seconds: int | None
    created_at: datetime
    seats: tuple[SeatRecord, ...]
    match: ActiveMatch | None
    finished: ActiveMatch | None = None
    epoch: int = 0
    turn_hours: int | None = None
    """A slow room's hours a turn (``None``: a live room)."""
    slow: dict[str, Any] | None = None
    """What a slow room keeps besides its lobby (``app.rooms.slow.SlowTable.to_json``), ``None``: nothing."""
    wake_at: datetime | None = None
    """When the room, asleep in the database, is next due."""
    """The room's epoch as read: after it was taken (``Storage.take_room``), the taker's."""


@dataclass(frozen=True, slots=True)
class Fence:
    """What every write of a room carries: the room's code and the epoch its owner took it under.

    ``owner`` is the process id of that owner (``Settings.process_id``), logged with the epoch when a
    new room is stored. A write whose epoch is no longer the room's is refused with
    :class:`~app.storage.errors.OwnershipLost`.
    """

    room: str
    epoch: int
    owner: str


@dataclass(frozen=True, slots=True)
class ServerLease:
    """The lease of the one server process that runs a database's rooms without a cluster.

    ``holder``: its process id; ``host`` and ``pid``: where it runs; ``expires_at``: aware UTC.
    """

    holder: str
    host: str
    pid: int
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A finished match as listed: who played, how it ended, under which rules.

    - ``match_id``; ``room_code`` where it was played (``None`` if imported
      or the room is unknown).
    - ``started_at``, ``ended_at``: aware UTC (for an imported match both
      are the time of import).
    - ``players``: names in seat order; ``placings[s]``: seat s's place from
      1 (shared places repeat); ``winners``: seats sharing the win.
    - ``preset``: the preset name of the rules, ``None`` for custom rules;
      ``rules``: every option.
    - ``deals``: number of deals played; ``imported``: whether it came from
      a record file rather than a room here.
    """

    match_id: str
    room_code: str | None
    started_at: datetime
    ended_at: datetime
    players: tuple[str, ...]
    placings: tuple[int, ...]
    winners: tuple[int, ...]
    preset: str | None
    rules: dict[str, Any]
    deals: int
    imported: bool


@dataclass(frozen=True, slots=True)
class MatchPage:
    """One page of the finished matches, newest first.

    ``items`` on this page; ``total`` finished matches in all; ``page`` from
    1; ``per_page``; ``pages`` in all (at least 1, even with no match).
    """

    items: tuple[FinishedMatch, ...]
    total: int
    page: int
    per_page: int
    pages: int

    @property
    def has_previous(self) -> bool:
        """Whether there is a page before this one."""
        return self.page > 1

    @property
    def has_next(self) -> bool:
        """Whether there is a page after this one."""
        return self.page < self.pages


@dataclass(frozen=True, slots=True)
class PushSubscriptionRecord:
    """A seat's Web Push subscription as stored: the push service's ``endpoint`` URL, the browser's keys
    ``p256dh`` and ``auth`` (unpadded base64url), the ``language`` of its pushes and when it was last
    ``renewed_at`` (aware UTC)."""

    endpoint: str
    p256dh: str
    auth: str
    language: str
    renewed_at: datetime
