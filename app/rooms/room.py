"""A room: seats, the host, the match being played, and its live connections.

Every action runs under the room's lock, is checked against the engine,
is written to storage, and only then becomes the room's new state, with a
new version that is sent to every connection as that viewer may see it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.bots.strength import BotStrength
from app.game import record as records
from app.game.errors import GameError
from app.game.match import Match, deal_cards, new_match, play
from app.game.rules import Rules
from app.game.standings import placings
from app.game.summary import DealSummary, summarize_deal
from app.rooms.autoplay import Due, Timing, TurnFacts, bot_card, turn_due
from app.rooms.connection import Connection
from app.names import InvalidName, clean_name, form_number, same_name
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.identity import hash_token, new_match_id, new_token

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0
MIN_SEATS = 2
MAX_SEATS = 7
BOT_STRENGTHS = tuple(BotStrength)
CLOCK_RANGE = (5, 600)


class RoomError(Exception):
    """An action the room refuses; ``code`` is stable, ``message`` is for people.

    ``status`` is the HTTP status an HTTP route should answer with.
    """

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass
class Seat:
    """One seat at the table: a person (``token_hash``) or a bot (``bot`` strength)."""

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
    when refused. ``version`` grows by one with every change. The host is
    known by token and keeps hosting after giving up their seat.
    """

    def __init__(self, *, code: str, rules: Rules, store: RoomStore, timing: Timing | None = None,
                 rng: random.Random | None = None, created_at: datetime | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.code = code
        self.rules = rules
        self.seats: list[Seat] = []
        self.host: str | None = None
        self.turn_seconds: int | None = None
        self.match: Match | None = None
        self.match_id: str | None = None
        self.last_summary: DealSummary | None = None
        # Versions start from the time in microseconds, so they keep growing across restarts.
        self.version = time.time_ns() // 1000
        self.created_at = created_at or now()
        self.connections: set[Connection] = set()
        self.lock = asyncio.Lock()
        self.timing = timing or Timing()
        self.closed = False
        self._store = store
        self._rng = rng or random.SystemRandom()
        self._clock = clock
        self.last_active = clock()
        self._absent_since: dict[str, float] = {}
        self._turn: tuple[int, int] | None = None
        self._turn_started = clock()
        self._away: frozenset[int] = frozenset()
        self._timer: asyncio.Task[None] | None = None
        self._finish_pending = False
        self._next_deal: tuple[Match, Match] | None = None

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> str:
        """``"lobby"``, ``"playing"`` or ``"finished"``."""
        if self.match is None:
            return "lobby"
        return "finished" if self.match.finished else "playing"

    def seat_of(self, token_hash: str | None) -> int | None:
        """The seat of the person with this token hash, or ``None``."""
        if token_hash is None:
            return None
        for index, seat in enumerate(self.seats):
            if seat.token_hash == token_hash:
                return index
        return None

    def knows(self, token_hash: str | None) -> bool:
        """Whether the token hash belongs to someone seated here or to the host."""
        return token_hash is not None and (token_hash == self.host or self.seat_of(token_hash) is not None)

    def is_host(self, token_hash: str | None) -> bool:
        """Whether the token hash is the host's."""
        return token_hash is not None and token_hash == self.host

    def connected_seats(self) -> set[int]:
        """Seats with at least one live connection."""
        seats = {self.seat_of(conn.token_hash) for conn in self.connections if not conn.dropped}
        seats.discard(None)
        return seats  # type: ignore[return-value]

    def away_seats(self) -> frozenset[int]:
        """Seats whose person has been gone past the grace period; a bot plays for them."""
        return self._away

    def spectator_count(self) -> int:
        """Live connections of people who are not seated."""
        return sum(1 for conn in self.connections if not conn.dropped and self.seat_of(conn.token_hash) is None)

    def turn_remaining(self) -> float | None:
        """Seconds left on the turn clock for the seat to play (``None``: no clock running)."""
        if self.turn_seconds is None or self.phase != "playing" or self.match.turn is None:
            return None
        seat = self.seats[self.match.turn]
        if seat.is_bot:
            return None
        return max(0.0, self.turn_seconds - (self._clock() - self._turn_started))

    def is_idle(self, idle_seconds: float) -> bool:
        """Whether nobody is connected and nothing happened for ``idle_seconds``."""
        return not self.connections and self._clock() - self.last_active >= idle_seconds

    # ------------------------------------------------------------------ seats

    async def join(self, name: object) -> tuple[int, str]:
        """Seat a new person; returns ``(seat, token)``. The first person becomes host.

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
            token_hash = hash_token(token)
            seats = [*self.seats, Seat(clean, token_hash)]
            host = self.host or token_hash
            await self._save_room(seats=seats, host=host)
            self.seats, self.host = seats, host
            self._absent_since[token_hash] = self._clock()
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
        """The person gives up their seat (not during a match). A host stays host."""
        async with self.lock:
            await self._remove(self._require_seat(token_hash))

    async def remove_seat(self, token_hash: str | None, seat: object) -> None:
        """The host frees ``seat`` (a person or a bot), outside a match."""
        async with self.lock:
            self._require_host(token_hash)
            await self._remove(self._check_seat_index(seat))

    def _check_seat_index(self, seat: object) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_request", "no such seat", status=422)
        return seat

    async def _remove(self, seat: int) -> None:
        if self.phase == "playing":
            raise RoomError("match_started", "seats cannot change during a match")
        await self._save_room(seats=self.seats[:seat] + self.seats[seat + 1:])
        if self.phase == "finished":
            # The finished match numbers its players by the old seats: back to the lobby.
            self.match, self.last_summary = None, None
        removed = self.seats.pop(seat)
        if removed.token_hash is not None:
            self._absent_since.pop(removed.token_hash, None)
        self._changed()

    async def add_bot(self, token_hash: str | None, strength: object) -> int:
        """The host seats a bot of ``strength`` (``easy``/``normal``/``hard``); returns its seat."""
        async with self.lock:
            self._require_host(token_hash)
            strength = self._check_strength(strength)
            if self.phase == "playing":
                raise RoomError("match_started", "seats cannot change during a match")
            if len(self.seats) >= MAX_SEATS:
                raise RoomError("room_full", f"all {MAX_SEATS} seats are taken")
            taken = {seat.name.casefold() for seat in self.seats}
            number = 1
            while f"{strength} bot {number}".casefold() in taken:
                number += 1
            seats = [*self.seats, Seat(f"{strength.capitalize()} bot {number}", None, bot=strength)]
            await self._save_room(seats=seats)
            self.seats = seats
            self._changed()
            return len(seats) - 1

    async def hand_to_bot(self, token_hash: str | None, seat: object, strength: object = "normal") -> None:
        """The host hands ``seat`` to a bot for good (e.g. a player who left mid-match).

        Only for a person who is away (gone past the grace period): the
        person loses the seat and may watch. In the lobby, freeing the seat
        (:meth:`remove_seat`) is the usual choice.
        """
        async with self.lock:
            self._require_host(token_hash)
            index = self._check_seat_index(seat)
            strength = self._check_strength(strength)
            if self.seats[index].is_bot:
                raise RoomError("bad_request", "a bot already plays this seat", status=422)
            if index not in self._away:
                raise RoomError("player_present", f"{self.seats[index].name} is here or only just left; "
                                "a seat goes to a bot only once its player has been away a while")
            seats = list(self.seats)
            seats[index] = Seat(seats[index].name, None, bot=strength)
            await self._save_room(seats=seats)
            self.seats = seats
            self._changed()

    @staticmethod
    def _check_strength(strength: object) -> str:
        if strength not in BOT_STRENGTHS:
            raise RoomError("bad_request", f"a bot is {', '.join(BOT_STRENGTHS)}", status=422)
        return str(strength)

    # ------------------------------------------------------------------ settings

    async def set_rules(self, token_hash: str | None, rules: Rules) -> None:
        """The host changes the rules before a match starts."""
        async with self.lock:
            self._require_host(token_hash)
            if self.phase == "playing":
                raise RoomError("match_started", "the rules cannot change during a match")
            await self._save_room(rules=rules)
            self.rules = rules
            self._changed()

    async def set_clock(self, token_hash: str | None, seconds: object) -> None:
        """The host sets the turn clock (seconds per turn, 5–600) or turns it off (``None``/0)."""
        async with self.lock:
            self._require_host(token_hash)
            seconds = form_number(seconds)
            if seconds in (None, 0, "", "off"):
                value = None
            elif isinstance(seconds, int) and not isinstance(seconds, bool):
                value = seconds
            else:
                raise RoomError("bad_request", "the turn clock is a number of seconds", status=422)
            if value is not None and not CLOCK_RANGE[0] <= value <= CLOCK_RANGE[1]:
                raise RoomError("bad_request", f"the turn clock is {CLOCK_RANGE[0]} to {CLOCK_RANGE[1]} seconds",
                                status=422)
            if self.phase == "playing":
                raise RoomError("match_started", "the turn clock cannot change during a match")
            await self._save_room(turn_seconds=value)
            self.turn_seconds = value
            self._changed()

    # ------------------------------------------------------------------ the match

    async def start(self, token_hash: str | None) -> None:
        """The host starts a match (or a new one after the last) with everyone seated (2–7)."""
        async with self.lock:
            self._require_host(token_hash)
            if self.phase == "playing":
                raise RoomError("match_started", "a match is already being played")
            if not MIN_SEATS <= len(self.seats) <= MAX_SEATS:
                raise RoomError("not_enough_players", f"a match needs {MIN_SEATS} to {MAX_SEATS} players")
            match, _ = deal_cards(new_match([seat.name for seat in self.seats], self.rules), self._rng)
            match_id = new_match_id()
            try:
                await self._store.start_match(match_id=match_id, room_code=self.code, rules=self.rules.to_dict(),
                                              players=list(match.players), started_at=now())
                await self._store.record_deal(match_id=match_id, deal=0, dealer=match.deal.dealer,
                                              hands=_hands_of(match))
            except StorageUnavailable as error:
                raise RoomError("storage_unavailable", str(error), status=503) from None
            self.match, self.match_id, self.last_summary = match, match_id, None
            self._changed()

    async def play(self, token_hash: str | None, card: object, *, deal: object = None,
                   played: object = None) -> None:
        """The person in ``token_hash``'s seat plays ``card`` (a card code).

        Checked by the engine (turn, hand, legality), written to storage, then
        shown to everyone. Refused with the engine's error code otherwise.
        ``deal`` (from 1) and ``played`` (cards already played in that deal),
        when given, say which moment of the match the card was chosen for: a
        card chosen for a moment that has passed (a second tab, a click sent
        while offline) is refused with ``stale_play``.
        """
        async with self.lock:
            seat = self._require_seat(token_hash)
            if (deal, played) != (None, None) and self.match is not None and (deal, played) != self._moment():
                raise RoomError("stale_play", "the table has moved on since you chose that card; nothing was played")
            await self._play(seat, card)

    def _moment(self) -> tuple[int, int]:
        """The deal being played (from 1) and how many cards have been played in it."""
        deal = self.match.deal
        playing = deal is not None and deal.turn is not None
        return self.match.deals_completed + playing, len(deal.plays) if playing else 0

    async def _play(self, seat: int, card: object) -> None:
        if self.match is None:
            raise RoomError("match_not_started", "the match has not started")
        if not isinstance(card, str):
            raise RoomError("invalid_card", "a card must be a card code such as 9C", status=422)
        try:
            match, events = play(self.match, card, seat)
        except GameError as error:
            raise RoomError(error.code, error.message, status=422 if error.code == "invalid_card" else 409) from None
        try:
            await self._store.record_play(match_id=self.match_id, deal=self.match.deals_completed,
                                          play=len(self.match.deal.plays), card=events[0].card.code,
                                          played_at=now())
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
        """Store the finished match; on failure keep trying (its plays are stored already)."""
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
        """Deal the next deal if one is due; returns whether nothing is left to do.

        Called by the room's timer after the pause that follows a deal. On a
        storage failure nothing changes and ``False`` is returned (the timer
        tries again).
        """
        async with self.lock:
            if self.match is None or not self.match.needs_deal:
                return True
            # A retry stores the same deal: the first attempt may have reached the database.
            if self._next_deal is None or self._next_deal[0] is not self.match:
                self._next_deal = (self.match, deal_cards(self.match, self._rng)[0])
            match = self._next_deal[1]
            try:
                await self._store.record_deal(match_id=self.match_id, deal=match.deals_completed,
                                              dealer=match.deal.dealer, hands=_hands_of(match))
            except StorageUnavailable:
                log.warning("room %s: could not store the next deal yet", self.code)
                return False
            self.match = match
            self._changed()
            return True

    async def _auto_play(self) -> bool:
        """Play for the seat to play if a bot, an absence or the clock says so now.

        The bot thinks in a worker thread on the state it was shown; if the
        state changed meanwhile its card is dropped. Returns ``False`` when
        the play could not be stored (the timer tries again).
        """
        match = self.match
        due = self._turn_due()
        if match is None or due is None or due.delay > 0:
            self._refresh_away()
            return True
        seat = match.turn
        budget = self.timing.hard_budget
        card = await asyncio.to_thread(bot_card, match, seat, due.strength, self._rng.getrandbits(64), budget)
        async with self.lock:
            if self.match is not match:
                return True
            try:
                await self._play(seat, card.code)
            except RoomError as error:
                log.warning("room %s: the %s bot's card for seat %d was refused: %s", self.code, due.reason,
                            seat, error.message)
                return error.code != "storage_unavailable"
        return True

    def _turn_due(self) -> Due | None:
        """When and how the seat to play will be played for (``None``: not at all).

        A person's turn is only played for while someone is there to wait for
        it: when everyone has gone, the table waits for them to come back
        (after a restart, say) instead of finishing the match without them.
        """
        if self.match is None or self.match.finished or self.match.turn is None:
            return None
        seat = self.seats[self.match.turn]
        if not seat.is_bot and not any(not conn.dropped for conn in self.connections):
            return None
        elapsed = self._clock()
        absent = None
        if not seat.is_bot and self.match.turn not in self.connected_seats():
            absent = elapsed - self._absent_since.get(seat.token_hash, elapsed)
        facts = TurnFacts(bot=seat.bot, absent_for=absent, turn_for=elapsed - self._turn_started,
                          clock=self.turn_seconds)
        return turn_due(facts, self.timing)

    # ------------------------------------------------------------------ helpers

    def _require_seat(self, token_hash: str | None) -> int:
        seat = self.seat_of(token_hash)
        if seat is None:
            raise RoomError("not_seated", "only seated players can do that; take a seat first", status=403)
        return seat

    def _require_host(self, token_hash: str | None) -> None:
        if not self.is_host(token_hash):
            raise RoomError("not_host", "only the host can do that", status=403)

    async def _save_room(self, *, seats: list[Seat] | None = None, host: str | None = None,
                         rules: Rules | None = None, turn_seconds: Any = ...) -> None:
        """Store the room as it will be after a change (the arguments given replace the current ones)."""
        try:
            await self._store.save_room(
                code=self.code, rules=(rules or self.rules).to_dict(), host_token_hash=host or self.host,
                seats=self.seats if seats is None else seats, created_at=self.created_at,
                turn_seconds=self.turn_seconds if turn_seconds is ... else turn_seconds)
        except StorageUnavailable as error:
            raise RoomError("storage_unavailable", str(error), status=503) from None

    def _changed(self) -> None:
        """A new state: note the turn, bump the version, show it to everyone, re-arm the timer."""
        turn = None
        if self.match is not None and self.match.turn is not None:
            turn = (self.match.deals_completed, len(self.match.deal.plays))
        if turn != self._turn:
            self._turn, self._turn_started = turn, self._clock()
        self._away = self._compute_away()
        self.version += 1
        self.last_active = self._clock()
        self._broadcast()
        self._reschedule()

    def _compute_away(self) -> frozenset[int]:
        if self.phase != "playing":
            return frozenset()
        connected = self.connected_seats()
        moment = self._clock()
        return frozenset(
            index for index, seat in enumerate(self.seats)
            if not seat.is_bot and index not in connected
            and moment - self._absent_since.get(seat.token_hash, moment) >= self.timing.away_grace)

    def _refresh_away(self) -> None:
        if self._compute_away() != self._away:
            self._changed()

    # ------------------------------------------------------------------ connections

    async def attach(self, conn: Connection) -> None:
        """Add a live connection; everyone (the newcomer included) gets the new state."""
        async with self.lock:
            self.connections.add(conn)
            if conn.token_hash is not None:
                self._absent_since.pop(conn.token_hash, None)
            self._changed()

    async def detach(self, conn: Connection) -> None:
        """Remove a connection that closed; the others see the new presence."""
        async with self.lock:
            if conn not in self.connections:
                return
            self.connections.discard(conn)
            token = conn.token_hash
            if token is not None and not any(other.token_hash == token for other in self.connections):
                self._absent_since[token] = self._clock()
            self._changed()

    def send_state(self, conn: Connection) -> None:
        """Queue the current state for one connection only (its ``sync``)."""
        self._offer(conn, {})

    def _broadcast(self) -> None:
        rendered: dict[tuple[int | None, bool, str], Any] = {}
        for conn in list(self.connections):
            if not conn.dropped:
                self._offer(conn, rendered)

    def _offer(self, conn: Connection, rendered: dict[tuple[int | None, bool, str], Any]) -> None:
        """Render the state for ``conn`` (once per kind of viewer) and queue it.

        A connection whose rendering fails is dropped alone; the others still get the state.
        """
        from app.rooms.views import room_view

        seat = self.seat_of(conn.token_hash)
        host = self.is_host(conn.token_hash)
        key = (seat, host, conn.kind)
        try:
            if key not in rendered:
                rendered[key] = conn.render(room_view(self, seat, host=host))
            conn.deliver(rendered[key])
        except Exception:
            log.exception("room %s: could not render the state for a %s connection", self.code, conn.kind)
            conn.abort()

    # ------------------------------------------------------------------ life cycle and timer

    def restored(self) -> None:
        """Resume after the room was rebuilt from storage: everyone gets the grace period again."""
        moment = self._clock()
        for token_hash in {seat.token_hash for seat in self.seats} | {self.host}:
            if token_hash is not None:
                self._absent_since[token_hash] = moment
        self._changed()

    def close(self) -> None:
        """Stop the room's timer and let every connection finish (the room is going away)."""
        self.closed = True
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        for conn in list(self.connections):
            conn.finish()

    def _reschedule(self) -> None:
        """Arm the room's one timer for what is due next."""
        current = asyncio.current_task()
        if self._timer is not None and self._timer is not current and not self._timer.done():
            self._timer.cancel()
        self._timer = None
        due = self._next_due()
        if due is not None and not self.closed:
            delay, action = due
            self._timer = asyncio.get_running_loop().create_task(self._run_timer(delay, action))

    def _next_due(self) -> tuple[float, Callable[[], Awaitable[bool]]] | None:
        """The next timed action: a retry, the next deal, a card played for someone, an away
        mark, or hosting passed on from a host who left."""
        if self._finish_pending:
            return RETRY_SECONDS, self._retry_finish
        candidates: list[tuple[float, Callable[[], Awaitable[bool]]]] = []
        if self.phase == "playing" and self.match.needs_deal:
            # The pause runs from the end of the deal, whatever happens meanwhile.
            waited = self._clock() - self._turn_started
            candidates.append((max(0.0, self.timing.deal_pause - waited), self.deal_next))
        elif self.phase == "playing":
            due = self._turn_due()
            wait = min(due.delay if due is not None else float("inf"), self._next_away_mark())
            candidates.append((wait, self._auto_play))
        candidates.append((self._host_handover_wait(), self._hand_over_host))
        delay, action = min(candidates, key=lambda candidate: candidate[0])
        return None if delay == float("inf") else (delay, action)

    def _next_away_mark(self) -> float:
        """Seconds until someone absent passes the grace period and is shown as away."""
        connected = self.connected_seats()
        moment = self._clock()
        waits = [self.timing.away_grace - (moment - self._absent_since[seat.token_hash])
                 for index, seat in enumerate(self.seats)
                 if seat.token_hash in self._absent_since and index not in connected and index not in self._away]
        return max(0.0, min(waits)) if waits else float("inf")

    def _host_handover_wait(self) -> float:
        """Seconds until a host who has been gone for the grace period hands over to someone present.

        Infinite while the host is connected, or nobody seated is there to take over.
        """
        if self.host is None or any(conn.token_hash == self.host for conn in self.connections):
            return float("inf")
        connected = self.connected_seats()
        if not any(index in connected for index, seat in enumerate(self.seats) if not seat.is_bot):
            return float("inf")
        gone = self._clock() - self._absent_since.get(self.host, self._clock())
        return max(0.0, self.timing.away_grace - gone)

    async def _hand_over_host(self) -> bool:
        """Make the first connected seated person host, if the host is still gone (see above)."""
        async with self.lock:
            if self._host_handover_wait() > 0:
                return True
            connected = self.connected_seats()
            heir = next(seat.token_hash for index, seat in enumerate(self.seats)
                        if not seat.is_bot and index in connected)
            try:
                await self._save_room(host=heir)
            except RoomError:
                return False
            self.host = heir
            self._changed()
            return True

    async def _run_timer(self, delay: float, action: Callable[[], Awaitable[bool]]) -> None:
        while not self.closed:
            await asyncio.sleep(delay)
            try:
                if await action():
                    if self._timer is asyncio.current_task():
                        self._reschedule()
                    return
            except Exception:  # a failing timer must not take the room down
                log.exception("room %s: timed action failed", self.code)
            delay = RETRY_SECONDS

    async def _retry_finish(self) -> bool:
        async with self.lock:
            await self._try_finish()
            return not self._finish_pending


def _hands_of(match: Match) -> list[list[str]]:
    return [[card.code for card in match.deal.dealt_hand(seat)] for seat in range(match.seat_count)]
