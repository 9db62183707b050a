"""Tables of JSON-protocol players that play through failovers, and what they saw.

Each table has four players and a spectator, each an :class:`app.client.Client`
on a socket of its own. A socket that closes (1012 when its room moves, or lost
with a killed process) connects again after a short random pause and says
``hello`` with its token, as docs/protocol.md asks; a player whose play was not answered plays it again
on the new socket, naming the moment (``match``, ``deal``, ``played``) so that
a play already carried out is refused as ``stale_play`` instead of made twice.

Everything the sockets receive is kept and checked afterwards: versions only
grow, one version is one state, and every state seen is a state of the
match's stored record (:func:`record_problems`).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.client import RECONNECT_CODES, AsyncRooms, Backoff, Client, Connected, Disconnected, Frame
from app.cluster.relay import RETRY_PAUSE_SECONDS, ROUTE_ATTEMPTS
from app.config.settings import Settings
from app.game.match import deal_hands, new_match, play
from app.game.record import check_record
from app.game.rules import Rules
from app.game.views import view_for

NAMES = ["Ana", "Ben", "Cy", "Dag"]
RESENT_AFTER_ERRORS = {"storage_unavailable", "server_error"}
"""Errors after which a player sends its play again: nothing changed, try again (docs/protocol.md)."""
EXPECTED_ERRORS = {"stale_play", "match_started", *RESENT_AFTER_ERRORS}
"""Errors a resent play or start may meet; any other error is a problem."""
BACKOFF = Backoff(first=0.2, cap=2.0)
"""The pause before a new socket: random, below 0.2 s after one close, doubling with each close in a row
before a state came, up to 2 s."""

HANDSHAKE_SECONDS = ROUTE_ATTEMPTS * (max(2.0, Settings.model_fields["lease_seconds"].default)
                                     + RETRY_PAUSE_SECONDS) + 10.0
"""How long a socket waits for the answer to its handshake: longer than a process may take to give one
(it asks the room's owner up to ``ROUTE_ATTEMPTS`` times, each for up to the lease, then accepts and closes
with 1013). A client that gives up sooner abandons, under load, handshakes about to be answered and starts
again from nothing, adding to the load it waits on."""

Fingerprint = tuple[Any, ...]
CLOCK = time.monotonic()
"""Where the times in problems and failover figures count from (seconds of ``time.monotonic()``)."""


def cards_played(state: dict[str, Any]) -> int:
    """Cards played so far in the deal being played: ``seats[].played`` plus the trick."""
    return sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])


def fingerprint(state: dict[str, Any]) -> Fingerprint:
    """The game in a ``state`` object: deal, cards played, trick, scores, lives, turn and own hand."""
    you = state["you"]
    return (state["deal"], tuple(tuple(seat["played"]) for seat in state["seats"]),
            tuple((card["seat"], card["card"]) for card in state["trick"]),
            tuple(seat["score"] for seat in state["seats"]), tuple(seat["lives"] for seat in state["seats"]),
            state["turn"], tuple(you["hand"]) if you and you["seat"] is not None else None)


def record_fingerprints(record: dict[str, Any], seat: int | None) -> list[Fingerprint]:
    """The fingerprint of every moment of a recorded match, in order, as ``seat`` sees it (``None``: a
    spectator), made by replaying the record through the engine's own views."""
    match = new_match(record["players"], Rules.from_dict(record["rules"]))
    moments = []

    def add() -> None:
        view = view_for(match, seat)
        moments.append((
            view.deal_number, tuple(tuple(card.code for card in one.played) for one in view.seats),
            tuple((card.seat, card.card.code) for card in view.trick), tuple(one.score for one in view.seats),
            tuple(one.lives for one in view.seats), view.turn,
            None if view.you is None else tuple(card.code for card in view.you.hand)))

    for deal in record["deals"]:
        match, _ = deal_hands(match, deal["hands"], dealer=deal["dealer"])
        add()
        for card in deal["plays"]:
            match, _ = play(match, card)
            add()
    return moments


@dataclass
class Failover:
    """One process stopped: how, when, and the tables whose rooms it owned."""

    how: str
    process: str
    at: float
    tables: list[Table]
    seconds: dict[str, float] = field(default_factory=dict)
    """Per room code: from the stop to the table's next accepted play (first state of a new moment)."""


class Player:
    """One place at a table, over :class:`app.client.Client`: a seated player's (``seat``, ``token``) or the
    spectator's (``None``)."""

    def __init__(self, table: Table, seat: int | None, token: str | None) -> None:
        self.table, self.seat, self.token = table, seat, token
        self.rng = random.Random(f"{table.seed}-{seat}")
        self.seen: list[tuple[str, Fingerprint]] = []
        """``(match id, fingerprint)`` of every state of a match this socket received, in order."""
        self.pending: tuple[tuple[Any, ...], str] | None = None
        """The last play sent: its moment and card, sent again if a new socket finds the same moment."""
        self.state: dict[str, Any] | None = None
        self.client = Client(table.socket_url, token, lang="en", reconnect=True, backoff=BACKOFF, rng=self.rng,
                             open_timeout=HANDSHAKE_SECONDS, close_timeout=1, ping_interval=5, ping_timeout=10,
                             max_size=2**20)
        """Reconnects after any close (one the protocol says not to reconnect after is a problem), with a
        pause that grows with the sockets in a row that closed before a state came."""

    @property
    def connections(self) -> int:
        """Sockets opened so far."""
        return self.client.connections

    async def run(self) -> None:
        """Keep a socket open until the table is done, reconnecting after any close."""
        following = asyncio.ensure_future(self._follow())
        finished = asyncio.ensure_future(self.table.done.wait())
        await asyncio.wait({following, finished}, return_when=asyncio.FIRST_COMPLETED)
        finished.cancel()
        await self.client.close()
        await following

    async def _follow(self) -> None:
        on_socket: dict[str, Any] = {"version": -1, "sent": set()}
        async for event in self.client:
            if isinstance(event, Connected):
                on_socket = {"version": -1, "sent": set()}
            elif isinstance(event, Disconnected):
                if self.table.done.is_set():
                    return
                code = event.code if event.code is not None else event.error
                self.table.closes[code] += 1
                if isinstance(code, int) and code not in RECONNECT_CODES and code != 1000:
                    self.table.problem(f"seat {self.seat}: socket closed with {code}, which says not to reconnect")
            elif event.kind == "state":
                await self._state(on_socket, event)
            elif event.kind == "error":
                assert event.body is not None
                await self._error(on_socket, event.body)

    async def _state(self, on_socket: dict[str, Any], frame: Frame) -> None:
        table = self.table
        version = frame.version
        assert version is not None
        if not frame.fresh:  # the client keeps the newest state: an older one breaks a promise
            if version <= on_socket["version"]:
                table.problem(f"seat {self.seat}: version {version} after {on_socket['version']} on one socket")
            else:
                table.problem(f"seat {self.seat}: version {version} on a new socket after {self.client.version}")
            return
        state = frame.state
        assert state is not None
        on_socket["version"] = version
        self.state = state
        table.saw(version, state)
        if state["match_id"] is not None and state["phase"] in ("playing", "finished"):
            self.seen.append((state["match_id"], fingerprint(state)))
        if self.seat is None:
            return
        if self.seat == 0 and state["phase"] in ("lobby", "finished") and table.may_start():
            moment = ("start", state["match_id"])
            if moment not in on_socket["sent"]:
                on_socket["sent"].add(moment)
                table.last_sent = time.monotonic()
                await self.client.send({"type": "start"})
        await self._play(on_socket, state)

    async def _play(self, on_socket: dict[str, Any], state: dict[str, Any]) -> None:
        you = state["you"]
        if state["phase"] != "playing" or state["turn"] != self.seat or not you or not you["legal"]:
            return
        moment = (state["match_id"], state["deal"], cards_played(state))
        if moment in on_socket["sent"]:
            return
        on_socket["sent"].add(moment)
        if self.pending is not None and self.pending[0] == moment and self.pending[1] in you["legal"]:
            card = self.pending[1]
            self.table.resent += 1
        else:
            card = self.rng.choice(you["legal"])
            self.pending = (moment, card)
        if self.table.think:
            await asyncio.sleep(self.table.think)
        match_id, deal, played = moment
        self.table.last_sent = time.monotonic()
        await self.client.send({"type": "play", "card": card, "match": match_id, "deal": deal, "played": played})

    async def _error(self, on_socket: dict[str, Any], message: dict[str, Any]) -> None:
        code = message["code"]
        self.table.errors[code] += 1
        if code not in EXPECTED_ERRORS:
            self.table.problem(f"seat {self.seat}: error {code}: {message.get('message')}")
        if code in RESENT_AFTER_ERRORS and self.state is not None:
            on_socket["sent"].clear()  # nothing changed: the same moment may be played (or started) again
            await asyncio.sleep(0.2)
            await self._state_again(on_socket)

    async def _state_again(self, on_socket: dict[str, Any]) -> None:
        state = self.state
        assert state is not None
        if self.seat == 0 and state["phase"] in ("lobby", "finished") and self.table.may_start():
            on_socket["sent"].add(("start", state["match_id"]))
            self.table.last_sent = time.monotonic()
            await self.client.send({"type": "start"})
        await self._play(on_socket, state)


class Table:
    """One room: four players and a spectator, what they saw, and the moments the table moved on."""

    def __init__(self, base_url: str, code: str, tokens: list[str], *, seed: int, think: float) -> None:
        self.code, self.seed, self.think = code, seed, think
        self.socket_url = base_url.replace("http://", "ws://") + f"/api/rooms/{code}/ws"
        self.players = [Player(self, seat, token) for seat, token in enumerate(tokens)] + [Player(self, None, None)]
        self.done = asyncio.Event()
        self.stopping = False
        """Set once the failovers are over: no new match starts, and the table is done at the end of this one."""
        self.versions: dict[int, str] = {}
        self.problems: list[str] = []
        self.errors: Counter[str] = Counter()
        self.closes: Counter[Any] = Counter()
        self.resent = 0
        self.moments: set[tuple[Any, ...]] = set()
        self.opened_at = 0.0
        """When the table's sockets began to connect (``time.monotonic()``), set by whoever starts them."""
        self.last_sent = 0.0
        """When a player of the table last sent a play or a start (``time.monotonic()``)."""
        self.moved_at: list[tuple[float, float, tuple[Any, ...]]] = []
        """``(time.monotonic(), last_sent, moment)`` of each moment of play the first time any socket saw it:
        when, and when the play (or start) that made it was sent at the latest (one seat moves at a time)."""
        self.matches: set[str] = set()
        self.first_seen: dict[str, float] = {}
        """When each match was first seen (seconds from :data:`CLOCK`)."""
        self.last_seen: dict[str, tuple[int, str, int, int]] = {}
        """The last state seen of each match: version, phase, deal, cards played."""
        self.finished: dict[str, dict[str, Any]] = {}

    def may_start(self) -> bool:
        """Whether the host starts a (new) match: until the failovers are over, and the first match always."""
        return not self.stopping or not self.matches

    def problem(self, text: str) -> None:
        """Keep a broken promise of the server, to be reported at the end."""
        if len(self.problems) < 20:
            self.problems.append(f"{self.code} at {time.monotonic() - CLOCK:.1f} s: {text}")

    def saw(self, version: int, state: dict[str, Any]) -> None:
        """Take a state any socket received: one version must be one state for everyone."""
        public = json.dumps({key: value for key, value in state.items() if key != "you"}, sort_keys=True)
        earlier = self.versions.setdefault(version, public)
        if earlier != public:
            before, now = json.loads(earlier), json.loads(public)
            keys = sorted(key for key in now if now[key] != before.get(key))
            self.problem(f"two different states for version {version} (they differ in {', '.join(keys)})")
        if self.done.is_set():
            return  # a match the host started just before the table stopped is not played out
        if state["match_id"] is not None:
            if state["match_id"] not in self.matches:
                self.first_seen[state["match_id"]] = time.monotonic() - CLOCK
            self.matches.add(state["match_id"])
            self.last_seen[state["match_id"]] = (version, state["phase"], state["deal"], cards_played(state))
            moment = (state["match_id"], state["deal"], cards_played(state), state["phase"])
            if moment not in self.moments:
                self.moments.add(moment)
                self.moved_at.append((time.monotonic(), self.last_sent, moment))
            if state["phase"] == "finished":
                self.finished[state["match_id"]] = state
                if self.stopping:
                    self.done.set()

    def stop(self) -> None:
        """No new match: the table is done once the match in play is over (its first match, if it has not
        started one yet)."""
        self.stopping = True
        latest = max(self.versions, default=None)
        if latest is not None and json.loads(self.versions[latest])["phase"] == "finished":
            self.done.set()

    def moved_since(self, at: float) -> float | None:
        """Seconds from ``at`` to the first new moment of play made by a play (or start) sent after
        ``at``, or ``None`` (none yet). A state of a play sent before ``at`` that arrives later was on
        its way already, and does not count."""
        return next((when - at for when, sent, _ in self.moved_at if sent >= at), None)

    def sockets_open(self) -> int:
        """How many of the table's sockets are open now."""
        return sum(player.client.socket is not None for player in self.players)


async def open_tables(base_url: str, count: int, *, rules: dict[str, Any], seed: int, think: float) -> list[Table]:
    """Open ``count`` rooms through ``base_url`` (preset ``quick`` with ``rules`` over it) and seat four
    players in each; raises :class:`app.client.Refused` when a request is refused."""
    async with httpx.AsyncClient(base_url=base_url, timeout=20) as client:
        rooms = AsyncRooms(client)

        async def one(index: int) -> Table:
            seats = await rooms.table(NAMES, preset="quick", rules=rules)
            return Table(base_url, seats[0].code, [seat.token for seat in seats], seed=seed * 1000 + index,
                         think=think)

        limit = asyncio.Semaphore(8)

        async def limited(index: int) -> Table:
            async with limit:
                return await one(index)

        return list(await asyncio.gather(*(limited(index) for index in range(count))))


async def fetch_records(base_url: str, tables: list[Table]) -> dict[str, Any]:
    """Every finished match's record, by match id, from ``GET /api/matches/{id}/record``; a match
    whose record is missing maps to the status and body of the answer."""
    records: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=20) as client:
        for table in tables:
            for match_id in sorted(table.matches):
                answer = await client.get(f"/api/matches/{match_id}/record")
                records[match_id] = answer.json() if answer.status_code == 200 else (answer.status_code, answer.text)
    return records


def record_problems(table: Table, records: dict[str, Any]) -> list[str]:
    """What is wrong between the table's matches and their stored records (empty when nothing is).

    Every match the table saw must be finished and stored; its record must
    verify (``check_record``) as finished, with the winners and scores of the
    final state the table saw; and every state each socket saw of it must be
    a moment of the record, as that socket's viewer sees it (its own hand
    included), in the order of the record.
    """
    problems = []
    for match_id in sorted(table.matches):
        record = records.get(match_id)
        if not isinstance(record, dict):
            problems.append(f"{table.code}: match {match_id} (first seen at {table.first_seen[match_id]:.1f} s, last "
                            f"as (version, phase, deal, played) {table.last_seen[match_id]}) has no record: {record}")
            continue
        outcome = check_record(record)
        if not outcome.get("ok") or not outcome["finished"]:
            problems.append(f"{table.code}: the record of {match_id} does not verify as finished: {outcome}")
            continue
        final = table.finished.get(match_id)
        if final is None:
            problems.append(f"{table.code}: nobody saw match {match_id} finish")
        elif (final["winners"] != outcome["winners"]
              or [seat["score"] for seat in final["seats"]] != outcome["scores"]):
            problems.append(f"{table.code}: {match_id} ended with winners {final['winners']}, but its record "
                            f"says {outcome['winners']}")
        for player in table.players:
            moments = {moment: index for index, moment in enumerate(record_fingerprints(record, player.seat))}
            last = -1
            for seen_match, seen in player.seen:
                if seen_match != match_id:
                    continue
                index = moments.get(seen)
                if index is None:
                    problems.append(f"{table.code}: seat {player.seat} saw a state that is not in the record of "
                                    f"{match_id}: {seen}")
                    break
                if index < last:
                    problems.append(f"{table.code}: seat {player.seat} saw {match_id} go back to an earlier moment")
                    break
                last = index
    return problems
