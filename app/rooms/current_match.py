"""The match a room is playing: the engine's state, its id in storage, and the writes that go with each step.

Each step is checked by the engine, written to storage, and only then
applied: a refused or unstorable step changes nothing. The room calls these
under its lock and announces the result.
"""

from __future__ import annotations

import random

from app.common.identity import new_match_id
from app.game.errors import GameError
from app.game.events import CardPlayed
from app.game.match import Match, deal_cards, new_match, play
from app.game.record import PLAYER
from app.game.rules import Rules
from app.game.summary import DealSummary, summarize_deal
from app.rooms.errors import ErrorCode, RoomError
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.rooms.phases import RoomPhase, room_phase
from app.rooms.schedule import moment_of
from app.wording.errors import EngineProblem, problem

__all__ = ["CurrentMatch", "RoomPhase", "shuffler"]
"""``RoomPhase`` too: what :attr:`CurrentMatch.phase` gives, for the room."""


def shuffler(rng: random.Random) -> random.Random:
    """The generator a deal is shuffled with, from a room's ``rng``: ``rng`` itself where it is a seeded
    generator (tests and replays give one), and for the system's generator a fast one seeded for this
    deal alone from it.

    A shuffle takes a number for every card of the pack: from the system's generator, that is a system
    call each. Seeded with 256 bits the system chose, and used for one deal only, the fast generator
    gives nothing away that could tell another deal.
    """
    if isinstance(rng, random.SystemRandom):
        return random.Random(rng.getrandbits(256))
    return rng


class CurrentMatch:
    """A room's match, if any: ``match`` (``None`` before the first), ``match_id``, ``last_summary``.

    ``finish_pending`` is true while a finished match is not yet stored as
    finished (its plays are); :meth:`store_finish` tries again.
    """

    def __init__(self, store: RoomStore, room_code: str) -> None:
        self.match: Match | None = None
        self.match_id: str | None = None
        self.last_summary: DealSummary | None = None
        self.finish_pending = False
        self._store = store
        self._room_code = room_code
        self._next_deal: tuple[Match, Match] | None = None

    @property
    def phase(self) -> RoomPhase:
        """The room's phase: :func:`~app.rooms.phases.room_phase` of its match."""
        return room_phase(self.match)

    def require_not_playing(self, reason: str) -> None:
        """Refuse with ``match_started`` while a match is being played, worded by refusal ``reason``
        (:mod:`app.wording.errors`)."""
        if self.phase == RoomPhase.PLAYING:
            raise RoomError(ErrorCode.MATCH_STARTED, problem(reason))

    def clear(self) -> None:
        """Forget a finished match (its seats changed): the room is back in its lobby."""
        self.match, self.last_summary = None, None

    async def start(self, players: list[str], rules: Rules, rng: random.Random) -> None:
        """Start a new match between ``players`` (names in seat order) and deal its first deal, shuffled as
        :func:`shuffler` says from ``rng``.

        The last match's end is stored first if it is not yet (:meth:`settle`): starting a match
        abandons any other of the room still in progress in storage.
        """
        await self.settle()
        match, _ = deal_cards(new_match(players, rules), shuffler(rng))
        match_id = new_match_id()
        await self._store.start_match(match_id=match_id, room_code=self._room_code, match=match)
        self.match, self.match_id, self.last_summary = match, match_id, None

    async def play(self, seat: int, card: str, moment: tuple[int | None, int | None] | None = None,
                   match_id: str | None = None, decided_by: str = PLAYER) -> None:
        """``seat`` plays ``card`` (a card code); refused with the engine's code (``invalid_card`` 422, else 409).

        ``match_id`` and ``moment`` (the deal from 1, and the cards already
        played in it), when given, name the match and moment the card was
        chosen for: if the table has moved on since (a second tab, a click
        sent while offline, a new match), ``stale_play``. Each of the deal and the
        cards played may be ``None``: only what is given is compared. ``decided_by`` is
        stored with the play: who chose it (docs/rules.md §4).
        """
        if self.match is None or self.match_id is None:
            raise RoomError(ErrorCode.MATCH_NOT_STARTED, problem("match_not_started"))
        now = moment_of(self.match)
        moved_on = moment is not None and any(given not in (None, at) for given, at in zip(moment, now, strict=True))
        if moved_on or match_id not in (None, self.match_id):
            raise RoomError(ErrorCode.STALE_PLAY, problem("stale_play"))
        try:
            match, events = play(self.match, card, seat)
        except GameError as error:
            status = 422 if error.code == ErrorCode.INVALID_CARD else 409
            raise RoomError(ErrorCode(error.code), EngineProblem(error), status=status) from None
        played = events[0]
        assert isinstance(played, CardPlayed)  # a play's first event is always the card played
        await self._store.record_play(match_id=self.match_id, before=self.match, card=played.card.code,
                                      decided_by=decided_by)
        self.match = match
        self.last_summary = summarize_deal(events) or self.last_summary
        if match.finished:
            self.finish_pending = True
            await self.store_finish()

    async def deal_next(self, rng: random.Random) -> bool:
        """Deal the next deal if one is due, shuffled as :func:`shuffler` says from ``rng``; ``False`` when
        storage failed and nothing changed.

        A retry stores the same deal: the first attempt may have reached the database.
        """
        if self.match is None or self.match_id is None or not self.match.needs_deal:
            return True
        if self._next_deal is None or self._next_deal[0] is not self.match:
            self._next_deal = (self.match, deal_cards(self.match, shuffler(rng))[0])
        match = self._next_deal[1]
        try:
            await self._store.record_deal(match_id=self.match_id, match=match)
        except StorageUnavailable:
            return False
        self.match = match
        return True

    async def settle(self) -> None:
        """Make sure a finished match is stored as finished before the room moves on from it (a new
        match, other seats); raises :class:`StorageUnavailable`, changing nothing, when it cannot be."""
        if not await self.store_finish():
            raise StorageUnavailable()

    def restored(self, match: Match, match_id: str) -> None:
        """Take up ``match``, rebuilt from storage as in progress: one whose stored plays end it is finished
        but not yet stored as finished, so its end is pending (:meth:`store_finish`) like a finish whose
        write failed, never to be dropped by a new match."""
        self.match, self.match_id = match, match_id
        self.finish_pending = match.finished

    async def store_finish(self) -> bool:
        """Store the finished match as finished; ``False`` when it must be tried again."""
        if self.finish_pending and self.match is not None and self.match_id is not None:
            try:
                await self._store.finish_match(match_id=self.match_id, match=self.match)
            except StorageUnavailable:
                return False
            self.finish_pending = False
        return True
