"""A room: seats, the host, the match being played, and its live connections.

Every action runs under the room's lock, is checked against the engine,
is written to storage, and only then becomes the room's new state, with a
new version that is sent to every connection as that viewer may see it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.game import record as records
from app.game.errors import GameError
from app.game.match import Match, deal_cards, new_match, play
from app.game.rules import Rules
from app.game.standings import placings
from app.game.summary import DealSummary, summarize_deal
from app.rooms.connection import Connection
from app.rooms.names import InvalidName, clean_name, same_name
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.storage import hash_token, new_match_id

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0
MIN_SEATS = 2
MAX_SEATS = 7
BOT_STRENGTHS = ("easy", "normal", "hard")


class RoomError(Exception):
    """An action the room refuses; ``code`` is stable, ``message`` is for people.

    ``status`` is the HTTP status an HTTP route should answer with.
    """

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def new_token() -> str:
    """A new secret player token: 192 random bits, URL-safe text."""
    return secrets.token_urlsafe(24)


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass
class Seat:
    """One seat at the table: a human (``token_hash``) or a bot (``bot`` strength)."""

    name: str
    token_hash: str | None
    bot: str | None = None

    @property
    def is_bot(self) -> bool:
        """Whether a bot sits here."""
        return self.bot is not None


class Room:
    """A table people join by its code, and the match played at it.

    ``phase`` is ``"lobby"`` (no match yet), ``"playing"`` or ``"finished"``.
    Actions are coroutines that raise :class:`RoomError` and change nothing
    when refused. ``version`` grows by one with every change.
    """

    def __init__(self, *, code: str, rules: Rules, store: RoomStore, deal_pause: float = 0.0,
                 rng: random.Random | None = None, created_at: datetime | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.code = code
        self.rules = rules
        self.seats: list[Seat] = []
        self.host: str | None = None
        self.match: Match | None = None
        self.match_id: str | None = None
        self.last_summary: DealSummary | None = None
        self.version = 0
        self.created_at = created_at or now()
        self.connections: set[Connection] = set()
        self.lock = asyncio.Lock()
        self._store = store
        self._deal_pause = deal_pause
        self._rng = rng or random.SystemRandom()
        self._clock = clock
        self.last_active = clock()
        self._timer: asyncio.Task[None] | None = None
        self._finish_pending = False
        self.closed = False

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> str:
        """``"lobby"``, ``"playing"`` or ``"finished"``."""
        if self.match is None:
            return "lobby"
        return "finished" if self.match.finished else "playing"

    def seat_of(self, token_hash: str | None) -> int | None:
        """The seat of the player with this token hash, or ``None``."""
        if token_hash is None:
            return None
        for index, seat in enumerate(self.seats):
            if seat.token_hash == token_hash:
                return index
        return None

    def is_host(self, token_hash: str | None) -> bool:
        """Whether the token hash is the host's."""
        return token_hash is not None and token_hash == self.host

    def connected_seats(self) -> set[int]:
        """Seats with at least one live connection."""
        seats = {self.seat_of(conn.token_hash) for conn in self.connections if not conn.dropped}
        seats.discard(None)
        return seats  # type: ignore[return-value]

    def spectator_count(self) -> int:
        """Live connections of people who are not seated."""
        return sum(1 for conn in self.connections if not conn.dropped and self.seat_of(conn.token_hash) is None)

    def is_idle(self, idle_seconds: float) -> bool:
        """Whether nobody is connected and nothing happened for ``idle_seconds``."""
        return not self.connections and self._clock() - self.last_active >= idle_seconds

    # ------------------------------------------------------------------ lobby actions

    async def join(self, name: object) -> tuple[int, str]:
        """Seat a new player; returns ``(seat, token)``.

        Refused (``RoomError``) when the name is invalid or taken, the room is
        full or a match is in progress.
        """
        async with self.lock:
            clean = self._check_new_name(name)
            if self.phase == "playing":
                raise RoomError("match_started", "the match has started; you can watch it")
            if len(self.seats) >= MAX_SEATS:
                raise RoomError("room_full", f"all {MAX_SEATS} seats are taken; you can watch")
            token = new_token()
            seats = [*self.seats, Seat(clean, hash_token(token))]
            host = self.host or seats[-1].token_hash
            await self._save_room(seats, host, self.rules)
            self.seats, self.host = seats, host
            self._changed()
            return len(self.seats) - 1, token

    def _check_new_name(self, name: object) -> str:
        try:
            clean = clean_name(name)
        except InvalidName as error:
            raise RoomError(error.code, str(error), status=422) from None
        taken = next((seat.name for seat in self.seats if same_name(clean, seat.name)), None)
        if taken is not None:
            raise RoomError("name_taken", f"someone here is already called {taken}; choose another name")
        return clean

    async def leave(self, token_hash: str | None) -> None:
        """The player gives up their seat (not during a match)."""
        async with self.lock:
            seat = self._require_seat(token_hash)
            await self._remove(seat)

    async def remove_seat(self, token_hash: str | None, seat: object) -> None:
        """The host frees ``seat`` (a player or a bot), outside a match."""
        async with self.lock:
            self._require_host(token_hash)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
                raise RoomError("bad_request", "no such seat", status=422)
            if self.seats[seat].token_hash == self.host:
                raise RoomError("bad_request", "the host cannot remove themselves", status=422)
            await self._remove(seat)

    async def _remove(self, seat: int) -> None:
        if self.phase == "playing":
            raise RoomError("match_started", "seats cannot change during a match")
        seats = self.seats[:seat] + self.seats[seat + 1:]
        host = self.host
        if host == self.seats[seat].token_hash:
            host = next((s.token_hash for s in seats if not s.is_bot), None)
        await self._save_room(seats, host, self.rules)
        self.seats, self.host = seats, host
        self._changed()

    async def add_bot(self, token_hash: str | None, strength: object) -> int:
        """The host seats a bot of ``strength`` (``easy``/``normal``/``hard``); returns its seat."""
        async with self.lock:
            self._require_host(token_hash)
            if strength not in BOT_STRENGTHS:
                raise RoomError("bad_request", f"a bot is {', '.join(BOT_STRENGTHS)}", status=422)
            if self.phase == "playing":
                raise RoomError("match_started", "seats cannot change during a match")
            if len(self.seats) >= MAX_SEATS:
                raise RoomError("room_full", f"all {MAX_SEATS} seats are taken")
            taken = {seat.name.casefold() for seat in self.seats}
            number = 1
            while f"bot {number}".casefold() in taken or f"{strength} bot {number}".casefold() in taken:
                number += 1
            seats = [*self.seats, Seat(f"{strength.capitalize()} bot {number}", None, bot=strength)]
            await self._save_room(seats, self.host, self.rules)
            self.seats = seats
            self._changed()
            return len(seats) - 1

    async def set_rules(self, token_hash: str | None, rules: Rules) -> None:
        """The host changes the rules before a match starts."""
        async with self.lock:
            self._require_host(token_hash)
            if self.phase == "playing":
                raise RoomError("match_started", "the rules cannot change during a match")
            await self._save_room(self.seats, self.host, rules)
            self.rules = rules
            self._changed()

    async def start(self, token_hash: str | None) -> None:
        """The host starts a match (or a new one after the last) with everyone seated (2–7)."""
        async with self.lock:
            self._require_host(token_hash)
            if self.phase == "playing":
                raise RoomError("match_started", "a match is already being played")
            if not MIN_SEATS <= len(self.seats) <= MAX_SEATS:
                raise RoomError("not_enough_players", f"a match needs {MIN_SEATS} to {MAX_SEATS} players")
            match = new_match([seat.name for seat in self.seats], self.rules)
            match, events = deal_cards(match, self._rng)
            match_id = new_match_id()
            started = now()
            try:
                await self._store.start_match(match_id=match_id, room_code=self.code, rules=self.rules.to_dict(),
                                              players=list(match.players), started_at=started)
                await self._store.record_deal(match_id=match_id, deal=0, dealer=match.deal.dealer,
                                              hands=_hands_of(match))
            except StorageUnavailable as error:
                raise RoomError("storage_unavailable", str(error), status=503) from None
            self.match, self.match_id, self.last_summary = match, match_id, None
            self._changed()

    # ------------------------------------------------------------------ play

    async def play(self, token_hash: str | None, card: object) -> None:
        """The player in ``token_hash``'s seat plays ``card`` (a card code).

        Checked by the engine (turn, hand, legality), written to storage, then
        shown to everyone. Refused with the engine's error code otherwise.
        """
        async with self.lock:
            seat = self._require_seat(token_hash)
            await self._play(seat, card)

    async def _play(self, seat: int, card: object) -> None:
        if self.match is None:
            raise RoomError("match_not_started", "the match has not started")
        if not isinstance(card, str):
            raise RoomError("invalid_card", "a card must be a card code such as 9C", status=422)
        try:
            match, events = play(self.match, card, seat)
        except GameError as error:
            raise RoomError(error.code, error.message, status=409 if error.code != "invalid_card" else 422) from None
        deal = self.match.deal
        try:
            await self._store.record_play(match_id=self.match_id, deal=self.match.deals_completed,
                                          play=len(deal.plays), card=match_card(events), played_at=now())
        except StorageUnavailable as error:
            raise RoomError("storage_unavailable", str(error), status=503) from None
        self.match = match
        summary = summarize_deal(events)
        if summary is not None:
            self.last_summary = summary
        if match.finished:
            self._finish_pending = True
            await self._try_finish()
        self._changed()

    async def _try_finish(self) -> None:
        """Store the finished match; on failure keep trying later (the plays are stored already)."""
        if not self._finish_pending or self.match is None:
            return
        try:
            await self._store.finish_match(match_id=self.match_id, record=records.to_record(self.match),
                                           placings=placings(self.match), winners=list(self.match.winners),
                                           ended_at=now())
        except StorageUnavailable:
            log.warning("room %s: could not store the end of match %s yet", self.code, self.match_id)
            return
        self._finish_pending = False

    async def deal_next(self) -> bool:
        """Deal the next deal if one is due; returns whether it did.

        Called by the room's timer after the pause that follows a deal. On a
        storage failure nothing changes and ``False`` is returned (the timer
        tries again).
        """
        async with self.lock:
            if self.match is None or not self.match.needs_deal:
                return False
            match, _ = deal_cards(self.match, self._rng)
            try:
                await self._store.record_deal(match_id=self.match_id, deal=match.deals_completed,
                                              dealer=match.deal.dealer, hands=_hands_of(match))
            except StorageUnavailable:
                log.warning("room %s: could not store the next deal yet", self.code)
                return False
            self.match = match
            self._changed()
            return True

    # ------------------------------------------------------------------ helpers

    def _require_seat(self, token_hash: str | None) -> int:
        seat = self.seat_of(token_hash)
        if seat is None:
            raise RoomError("not_seated", "only seated players can do that; take a seat first", status=403)
        return seat

    def _require_host(self, token_hash: str | None) -> None:
        if not self.is_host(token_hash):
            raise RoomError("not_host", "only the host can do that", status=403)

    async def _save_room(self, seats: list[Seat], host: str | None, rules: Rules) -> None:
        host_seat = next((index for index, seat in enumerate(seats) if seat.token_hash == host), None)
        try:
            await self._store.save_room(code=self.code, rules=rules.to_dict(), host_seat=host_seat,
                                        seats=seats, created_at=self.created_at)
        except StorageUnavailable as error:
            raise RoomError("storage_unavailable", str(error), status=503) from None

    def _changed(self) -> None:
        """A new state: bump the version, show it to every connection, re-arm the timer."""
        self.version += 1
        self.last_active = self._clock()
        self._broadcast()
        self._reschedule()

    # ------------------------------------------------------------------ connections

    async def attach(self, conn: Connection) -> None:
        """Add a live connection; everyone (the newcomer included) gets the new state."""
        async with self.lock:
            self.connections.add(conn)
            self._changed()

    async def detach(self, conn: Connection) -> None:
        """Remove a connection that closed; the others see the new presence."""
        async with self.lock:
            if conn in self.connections:
                self.connections.discard(conn)
                self._changed()

    def send_state(self, conn: Connection) -> None:
        """Queue the current state for one connection only (e.g. after a refused action)."""
        self._offer(conn, {})

    def _broadcast(self) -> None:
        rendered: dict[tuple[int | None, str], Any] = {}
        for conn in list(self.connections):
            if conn.dropped:
                continue
            self._offer(conn, rendered)

    def _offer(self, conn: Connection, rendered: dict[tuple[int | None, str], Any]) -> None:
        from app.rooms.views import room_view

        seat = self.seat_of(conn.token_hash)
        key = (seat, conn.kind)
        if key not in rendered:
            rendered[key] = conn.render(room_view(self, seat))
        conn.deliver(rendered[key])

    def restored(self) -> None:
        """Resume after the room was rebuilt from storage: arm the timer for what is due."""
        self._reschedule()

    def close(self) -> None:
        """Stop the room's timer and let every connection finish (the room is going away)."""
        self.closed = True
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        for conn in list(self.connections):
            conn.finish()

    # ------------------------------------------------------------------ timer

    def _reschedule(self) -> None:
        """Arm the one timer of the room for what is due next (next deal, retries)."""
        current = asyncio.current_task()
        if self._timer is not None and self._timer is not current and not self._timer.done():
            self._timer.cancel()
        self._timer = None
        due = self._next_due()
        if due is not None and not self.closed:
            delay, action = due
            self._timer = asyncio.get_running_loop().create_task(self._run_timer(delay, action))

    def _next_due(self) -> tuple[float, Callable[[], Any]] | None:
        if self._finish_pending:
            return RETRY_SECONDS, self._retry_finish
        if self.match is not None and self.match.needs_deal:
            return self._deal_pause, self.deal_next
        return None

    async def _run_timer(self, delay: float, action: Callable[[], Any]) -> None:
        while not self.closed:
            await asyncio.sleep(delay)
            try:
                if await action():
                    return
            except Exception:  # a failing timer must not take the room down
                log.exception("room %s: timed action failed", self.code)
            delay = RETRY_SECONDS

    async def _retry_finish(self) -> bool:
        async with self.lock:
            await self._try_finish()
            return not self._finish_pending


def match_card(events: list[Any]) -> str:
    """The code of the card played, from the events of one play."""
    return events[0].card.code


def _hands_of(match: Match) -> list[list[str]]:
    return [[card.code for card in match.deal.dealt_hand(seat)] for seat in range(match.seat_count)]


__all__ = ["Room", "RoomError", "Seat", "hash_token", "new_token"]
