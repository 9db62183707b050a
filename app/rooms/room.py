"""A room: seats, the host, the match being played, and its live connections.

Every action runs under the room's lock, is checked against the engine, is
written to storage, and only then becomes the room's new state, with a new
version that is sent to every connection as that viewer may see it. The room
is the only writer of its state; the modules beside it decide (seats,
schedule) or keep track (presence), and the room applies.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import datetime
from typing import Literal

from app.common.identity import hash_token
from app.game.match import Match
from app.game.rules import Rules
from app.notify.notices import Notifier
from app.rooms import schedule
from app.rooms.autoplay import think
from app.rooms.chat_room import ChatRoom
from app.rooms.connection import Connection
from app.rooms.current_match import CurrentMatch, RoomPhase
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.fanout import Renderings, send_state
from app.rooms.lobby import Lobby, Seat, Target
from app.rooms.pace import Pace
from app.rooms.persistence import RoomStore, now
from app.rooms.presence import Presence
from app.rooms.schedule import Action, Due, Timing, away_now, clock_left, next_due, seat_due, table_facts
from app.rooms.seat_links import Link, LinkKind, SeatLinks, link_seat
from app.rooms.slow_room import SlowRoom
from app.rooms.stepping import check_step
from app.rooms.timer import TimedAction, Timer
from app.rooms.versions import first_version
from app.rooms.views import Table, Viewer

log = logging.getLogger(__name__)

CLOSE_RESTART = 1012
"""Close code for connections of a room going away with its server: "service restart, reconnect"."""


class Room(SlowRoom, ChatRoom):
    """A table people join by its code, and the match played at it.

    Actions are coroutines that raise :class:`RoomError` and change nothing
    when refused. ``version`` grows with every change, from ``epoch``'s first (:mod:`.versions`), whatever
    the clock says. The host is known by token hash and keeps hosting after giving up their seat.
    """

    def __init__(self, *, code: str, rules: Rules, store: RoomStore, timing: Timing | None = None,
                 rng: random.Random | None = None, created_at: datetime | None = None,
                 clock: Callable[[], float] = time.monotonic, epoch: int = 0, notifier: Notifier | None = None,
                 hour_seconds: float = 3600.0, wall: Callable[[], datetime] = now) -> None:
        self.code = code
        self.lobby = Lobby(rules)
        self.current = CurrentMatch(store, code)
        self.version = first_version(epoch)
        self.created_at = created_at or now()
        self.presence = Presence()
        self.lock = asyncio.Lock()
        self._start_slow(store, timing or Timing(), notifier, hour_seconds, wall)
        self.closed = False
        self.stored = False  # whether storage has the room yet: until then its code must be new there
        self._store = store
        self._rng = rng or random.SystemRandom()
        self._clock = clock
        self.last_active = clock()
        self._turn = schedule.TurnClock(clock())
        self._away: frozenset[int] = frozenset()
        self._timer = Timer(f"room {code}", then=self._reschedule, retry_seconds=schedule.RETRY_SECONDS)
        self._renderings: Renderings | None = None
        self._links = SeatLinks(self._timing.seat_link)
        self._start_chat()

    # ------------------------------------------------------------------ queries

    @property
    def phase(self) -> RoomPhase:
        """The room's phase (:class:`~app.rooms.phases.RoomPhase`)."""
        return self.current.phase

    @property
    def seats(self) -> tuple[Seat, ...]:
        """Who sits where."""
        return self.lobby.seats

    @property
    def match(self) -> Match | None:
        """The engine's state of the match being played or last played (``None`` before the first)."""
        return self.current.match

    @property
    def connections(self) -> set[Connection]:
        """The room's connections (live ones and those closing)."""
        return self.presence.connections

    def table(self) -> Table:
        """The room's facts at its current version, the turn clock's seconds left counted now."""
        return self._rendered(now=True).table

    def _rendered(self, now: bool = False) -> Renderings:
        """The current version's facts and renderings: built once a version, again ``now`` while a clock runs."""
        known = self._renderings  # its turn clock's seconds left were counted when it was built
        if known is None or known.table.version != self.version or (now and known.table.turn_remaining is not None):
            known = self._renderings = Renderings(Table(
                code=self.code, version=self.version, rules=self.lobby.rules, seats=self.seats, host=self.lobby.host,
                match=self.match, match_id=self.current.match_id, last_summary=self.current.last_summary,
                connected=self.presence.connected_seats(self.seats), away=self._away,
                spectators=self.presence.spectators(self.seats), stepped=self.presence.stepped_seats(self.seats),
                turn_seconds=self.lobby.turn_seconds, turn_remaining=clock_left(
                    self.match, self.seats, self._turn, self.lobby.turn_seconds, self._clock()),
                pace=self.lobby.pace, slow=self.slow.shown(self.seats, self._wall()), webhook=self.slow.webhook), known)
        return known

    def viewer_for(self, token_hash: str | None) -> Viewer:
        """The person with ``token_hash`` (``None``: a spectator) as a viewer of the room now (``view()``: all seen)."""
        return self._rendered(now=True).viewer(self.lobby.seat_of(token_hash), self.lobby.is_host(token_hash))

    def knows(self, token_hash: str | None) -> bool:
        """Whether ``token_hash`` is a seated person's here or the host's (a token the room takes)."""
        return self.lobby.knows(token_hash)

    def seat_of(self, token_hash: str | None) -> int | None:
        """The seat of the person with ``token_hash`` (``None``: no seat here)."""
        return self.lobby.seat_of(token_hash)

    # ------------------------------------------------------------------ seats and settings

    async def join(self, name: str, host_token: str | None = None) -> tuple[int, str]:
        """Seat a new person called ``name``, or with ``host_token`` the seatless host again; ``(seat, token)``.
        Refused (``RoomError``) as :meth:`Lobby.joined` says, or while a match is in progress."""
        async with self.lock:
            lobby, token = self.lobby.joined(name, host_token)
            self.current.require_not_playing("match_watch")
            await self._save(lobby)
            self.presence.gone_from([lobby.seats[-1].token_hash], self._clock())
            self._changed()
            return len(lobby.seats) - 1, token

    async def leave(self, token_hash: str | None) -> None:
        """The person gives up their seat (not during a match). A host stays host."""
        async with self.lock:
            await self._remove(self.lobby.require_seat(token_hash))

    async def remove_seat(self, token_hash: str | None, target: Target) -> None:
        """The host frees the seat ``target`` aims at (a person or a bot) outside a match (``Lobby.target_seat``)."""
        async with self.lock:
            self.lobby.require_host(token_hash)
            await self._remove(self.lobby.target_seat(target))

    async def _remove(self, seat: int) -> None:
        self.current.require_not_playing("seats_fixed")
        await self.current.settle()  # the finished match is forgotten below: it must be stored first
        removed = self.seats[seat]
        await self._save(self.lobby.without(seat))
        self.herald.dropped(removed.token_hash)
        if self.phase == RoomPhase.FINISHED:
            self.current.clear()  # the finished match numbers its players by the old seats
        self.presence.forget(removed.token_hash)
        self._changed()

    async def add_bot(self, token_hash: str | None, strength: str, seen: int | None = None) -> int:
        """The host seats a bot of ``strength`` if ``seen`` allows (:meth:`Lobby.with_bot`); returns its seat."""
        lobby = await self._change(token_hash, "seats_fixed", lambda old: old.with_bot(strength, seen))
        return len(lobby.seats) - 1

    async def hand_to_bot(self, token_hash: str | None, target: Target, strength: str = "normal") -> None:
        """The host hands an away person's seat, the one ``target`` aims at, to a bot of ``strength`` for good.
        The person loses the seat and may watch. Refused as :meth:`Lobby.require_away_seat` says."""
        async with self.lock:
            index = self.lobby.require_away_seat(token_hash, target, self._away)
            gone = self.seats[index].token_hash
            await self._save(self.lobby.with_seat_to_bot(index, strength))
            self.herald.dropped(gone)
            self._changed()

    def seat_link(self, token_hash: str | None, kind: LinkKind, target: Target | None = None) -> Link:
        """A one-time link that moves a seat to another browser, for the asker alone (see :mod:`.seat_links`).

        ``device``: the asker's own seat; ``seat``: the host gives the away player's seat ``target`` aims at
        to someone new. Refused as :func:`~app.rooms.seat_links.link_seat` says. The room does not change
        (so no lock: nothing here waits, and a change being stored meanwhile comes after it)."""
        index = link_seat(self.lobby, token_hash, kind, target, self._away)
        return self._links.issue(kind, self.code, index, self.seats[index], self._clock())

    async def take_seat(self, secret: str) -> tuple[int, str, str]:
        """Open the link of ``secret`` in a new browser: its seat is theirs; returns ``(seat, player, token)``.

        The seat keeps its cards, its turn and its name; its old token stops working and that person's
        connections watch from now on (told with ``seat_moved``). Refused as :meth:`SeatLinks.open` says."""
        async with self.lock:
            moment = self._clock()
            move = self._links.open(secret, self.lobby, moment, self._compute_away())
            await self._save(move.lobby)
            self._links.forget(move.old_player)
            self.herald.dropped(move.old_token_hash)
            self.presence.moved(move.old_token_hash, hash_token(move.token), moment, move.notice)
            self._changed()
            return move.seat, move.player, move.token

    async def set_rules(self, token_hash: str | None, rules: Rules, pace: Pace | Literal[False] | None = False) -> None:
        """The host changes the rules before a match starts, and the pace (``False``: unchanged; ``None``: live)."""
        await self._change(token_hash, "rules_fixed",
                           lambda old: replace(old, rules=rules, pace=old.pace if pace is False else pace))

    async def set_clock(self, token_hash: str | None, seconds: int | None) -> None:
        """The host sets the turn clock (seconds per turn) or turns it off (``None``)."""
        await self._change(token_hash, "clock_fixed",
                           lambda old: replace(old, turn_seconds=seconds))

    async def _change(self, token_hash: str | None, refusal: str, change: Callable[[Lobby], Lobby]) -> Lobby:
        """The host changes the lobby outside a match (else ``refusal``); returns the new lobby."""
        async with self.lock:
            self.lobby.require_host(token_hash)
            self.current.require_not_playing(refusal)
            await self._save(change(self.lobby))
            self._changed()
            return self.lobby

    # ------------------------------------------------------------------ the match

    async def start(self, token_hash: str | None) -> None:
        """The host starts a match (or a new one after the last) with everyone seated (2–7)."""
        async with self.lock:
            self.lobby.require_host(token_hash)
            self.current.require_not_playing("match_running")
            self.lobby.require_players()
            await self.current.start([seat.name for seat in self.seats], self.lobby.rules, self._rng)
            self.presence.end_steps()
            self._set_slow(replace(self.slow, last_acted=self._wall(), missed=frozenset()))
            self._changed()

    async def play(self, token_hash: str | None, card: str, moment: tuple[int | None, int | None] | None = None,
                   match_id: str | None = None) -> None:
        """The person in ``token_hash``'s seat plays ``card`` (a card code), checked by the engine.

        ``match_id`` and ``moment`` name the match and moment the card was chosen for
        (:meth:`CurrentMatch.play`): ``stale_play`` if the table has moved on since."""
        async with self.lock:
            seat = self.lobby.require_seat(token_hash)
            await self.current.play(seat, card, moment, match_id)
            self._set_slow(self.slow.acted(self.seats[seat].player, self._wall(), slow=self.lobby.pace is not None))
            self._changed()

    async def step_away(self, token_hash: str | None, away: bool = True) -> None:
        """The person hands their seat to the stand-in bot, or takes it back (``away=False``); :mod:`.stepping`."""
        async with self.lock:
            person = check_step(self.lobby, self.match, self.presence, token_hash, away)
            await self._save(self.lobby, stepped=self.presence.after_step(person, away))
            self.presence.step(person, away)
            if not away:  # back: a vacation ends too
                self._set_slow(self.slow.with_vacation(self.seats[self.lobby.require_seat(person)].player, None))
            self._changed()

    async def deal_next(self) -> bool:
        """Deal the next deal if one is due (the timer calls it after the pause that follows a deal).
        Returns ``False`` when storage failed and nothing changed (to be tried again)."""
        async with self.lock:
            before = self.match
            done = await self.current.deal_next(self._rng)
            if self.match is not before:
                self._changed()
            return done

    async def _auto_play(self) -> bool:
        """Play for the seat to play if a bot, an absence, the clock or a slow room's deadline says so now.

        The bot thinks off the event loop (:func:`~app.rooms.autoplay.think`: a worker thread, or a worker
        process for the ``expert``) on the state it was shown; if the state changed meanwhile its card is
        dropped. Returns ``False`` when the play could not be stored (the timer tries again)."""
        match = self.match
        due = self._turn_due()
        if match is None or match.turn is None or due is None or due.delay > 0:
            self._refresh_away()
            return True
        seat = match.turn
        card = await think(match, seat, due.strength, self._rng.getrandbits(64), self.timing.hard_budget)
        async with self.lock:
            if self.match is not match:
                return True
            try:
                await self.current.play(seat, card.code, decided_by=self.presence.decider(self.seats[seat], due.reason))
                self._set_slow(self.slow.played_for(self.seats[seat].player, due.reason))
                self._changed()
            except RoomError as error:
                log.warning("room %s: the %s bot's card for seat %d was refused: %s", self.code, due.reason,
                            seat, error.message)
                return error.code != ErrorCode.STORAGE_UNAVAILABLE
        return True

    def _turn_due(self) -> Due | None:
        """When and how the seat to play will be played for (``None``: not at all)."""
        if self.lobby.pace is not None:
            return self._slow_due(self._turn.started)
        return seat_due(self.match, self.seats, self.presence, self._turn.started, self.lobby.turn_seconds,
                        self._clock(), self.timing)

    async def _hand_over_host(self) -> bool:
        """Make the first connected seated person host, if the host is still gone the grace period."""
        async with self.lock:
            gone = self.presence.host_absent(self.lobby.host, self.seats, self._clock())
            if gone is None or gone < self.timing.away_grace:
                return True
            try:
                await self._save(replace(self.lobby, host=self.presence.heir(self.seats)))
            except RoomError:
                return False
            self._changed()
            return True

    async def _retry_finish(self) -> bool:
        async with self.lock:
            return await self.current.store_finish()

    # ------------------------------------------------------------------ helpers

    async def _save(self, lobby: Lobby, stepped: frozenset[str] | None = None) -> None:
        """Store the room with ``lobby``, the people of ``stepped`` (token hashes; default: who has now) stepped
        away, then make ``lobby`` the room's (refused, nothing changed, if storage fails)."""
        await self._store.save_room(code=self.code, lobby=lobby, created_at=self.created_at, new=not self.stored,
                                    stepped=self.presence.steps() if stepped is None else stepped)
        self.lobby, self.stored = lobby, True

    def _compute_away(self) -> frozenset[int]:
        return away_now(self.presence, self.seats, self._clock(), self.timing, playing=self.phase == RoomPhase.PLAYING)

    def _refresh_away(self) -> None:
        if self._compute_away() != self._away:
            self._changed()

    def _changed(self) -> None:
        """A new state: note the turn (a slow room's deadline too), bump the version, show it, re-arm the timers."""
        self._turn.note(self.match, self._clock())
        self._note_slow()
        self._away = self._compute_away()
        self.version += 1
        self.last_active = self._clock()
        send_state(self._rendered(), self.presence.live())
        self._reschedule()

    # ------------------------------------------------------------------ connections

    async def attach(self, conn: Connection) -> None:
        """Add a live connection; everyone (the newcomer included) gets the new state, then the newcomer the chat."""
        async with self.lock:
            self.presence.attach(conn)
            self._changed()
            self.chat.welcome(conn, self.current.match_id)

    async def detach(self, conn: Connection, gone_since: float | None = None) -> None:
        """Remove a connection that closed; the others see the new presence. ``gone_since`` is when its person
        was last heard from, if before now (a page that stopped beating), in the room's clock."""
        async with self.lock:
            if self.presence.detach(conn, self._clock() if gone_since is None else gone_since):
                self._changed()

    def send_state(self, conn: Connection) -> None:
        """Queue the whole current state for one connection only (its ``sync``), the turn clock read now."""
        send_state(self._rendered(now=True), [conn], whole=True)

    # ------------------------------------------------------------------ life cycle and timer

    def restored(self, stepped: Iterable[str] = ()) -> None:
        """Resume after the room was rebuilt from storage: everyone gets the grace period again, and the people of
        ``stepped`` (token hashes) are stepped away again if the match is still being played."""
        self.stored = True
        self.presence.stepped_again(stepped if self.phase == RoomPhase.PLAYING else ())
        self.presence.gone_from([seat.token_hash for seat in self.seats] + [self.lobby.host], self._clock())
        self._changed()

    def close(self) -> None:
        """Stop the room's timer and let every connection finish (the room is going away)."""
        self.closed = True
        self._timer.stop()
        self.herald.stop()
        for conn in list(self.connections):
            conn.close_code = CLOSE_RESTART
            conn.finish()

    def _reschedule(self) -> None:
        """Arm the room's timer for what is due next."""
        moment = self._clock()
        facts = table_facts(self.presence, self.seats, self.lobby.host, self._away, moment,
                            finish_pending=self.current.finish_pending, playing=self.phase == RoomPhase.PLAYING,
                            needs_deal=self.match is not None and self.match.needs_deal,
                            since_turn=moment - self._turn.started, turn=self._turn_due())
        due = next_due(facts, self.timing)
        actions: dict[Action, TimedAction] = {
            Action.RETRY_FINISH: self._retry_finish, Action.DEAL: self.deal_next,
            Action.AUTO_PLAY: self._auto_play, Action.HAND_OVER_HOST: self._hand_over_host}
        self._timer.arm(*((None, None) if due is None else (due[0], actions[due[1]])))
