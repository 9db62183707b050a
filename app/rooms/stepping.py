"""Stepping away from a seat by choice, and coming back: who may, and when.

A seated player who has to go hands their seat to the stand-in bot at once
(``step_away``) instead of the table waiting out the away grace period, and
takes it back (``come_back``) while the match lasts. The room keeps who
stepped away in its :class:`~app.rooms.presence.Presence` and stores it with
its seats (so a restart or a handover keeps it); this module only decides
whether a request may be carried out.
"""

from __future__ import annotations

from app.game.match import Match
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.lobby import Lobby
from app.rooms.presence import Presence
from app.wording.errors import problem


def check_step(lobby: Lobby, match: Match | None, presence: Presence, token_hash: str | None, away: bool) -> str:
    """The token hash of the seated person who steps away (``away``) or comes back, if they may now.

    Raises :class:`RoomError`, and nothing changes: ``not_seated`` (403) for
    someone without a seat (a spectator, a host who gave up their seat);
    ``match_not_started`` before a match, ``match_over`` once it is over;
    ``player_eliminated`` for a player already out of the match (there is
    nothing left to play for them, docs/rules.md §3 "Out means out");
    ``already_away`` for a second ``step_away``; ``not_away`` for a
    ``come_back`` from a player who did not step away.
    """
    seat = lobby.require_seat(token_hash)
    assert token_hash is not None, "a seat is held by a token"
    if match is None:
        raise RoomError(ErrorCode.MATCH_NOT_STARTED, problem("match_not_started"))
    if match.finished:
        raise RoomError(ErrorCode.MATCH_OVER, problem("match_over"))
    stepped = presence.stepped_away(token_hash)
    if away and stepped:
        raise RoomError(ErrorCode.ALREADY_AWAY, problem("already_away"))
    if away and seat < match.seat_count and not match.is_active(seat):
        raise RoomError(ErrorCode.PLAYER_ELIMINATED, problem("player_eliminated"))
    if not away and not stepped:
        raise RoomError(ErrorCode.NOT_AWAY, problem("not_away"))
    return token_hash
