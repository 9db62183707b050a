"""When a slow room tells its players it is their turn, and the writer that keeps its slow state stored.

The room hands the herald the facts of each new state (:class:`HeraldFacts`);
:func:`~app.rooms.pace.notices_due` decides which notices are settled, the
herald marks them settled in the stored state first (never two pushes for one
turn, even across a restart), and only then sends them through the
:class:`~app.notify.notices.Notifier` in tasks of their own, so that a slow
push service never holds the room. A notice due later arms the herald's own
timer, which asks the room for fresh facts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.notify.notices import Notifier, TurnNotice
from app.rooms.lobby import Seat
from app.rooms.pace import NoticeFacts, QuietHours, notices_due
from app.rooms.persistence import RoomStore, StorageUnavailable
from app.rooms.presence import Presence
from app.rooms.schedule import RETRY_SECONDS
from app.rooms.slow import SlowTable, TurnKey

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HeraldFacts:
    """A slow room's facts for its notices at one moment.

    ``slow``: the room's :class:`~app.rooms.slow.SlowTable` (its ``turn`` the
    turn waited for); ``name`` and ``token_hash``: the name and token hash of
    the person to play (``None``: a bot's seat); ``connected``: that person has a
    connection open; ``played_for``: the stand-in plays their turn (vacation,
    stepped away); ``now``: aware UTC.
    """

    slow: SlowTable
    name: str
    token_hash: str | None
    connected: bool
    played_for: bool
    now: datetime

    @property
    def quiet(self) -> QuietHours | None:
        """The quiet hours of the person to play."""
        turn = self.slow.turn
        return None if turn is None else self.slow.quiet.get(turn.player)


def herald_facts(slow: SlowTable, seats: tuple[Seat, ...], presence: Presence, now: datetime) -> HeraldFacts | None:
    """The :class:`HeraldFacts` of a room with ``slow`` and ``seats`` at ``now``; ``None`` when no turn waits."""
    turn = slow.turn
    if turn is None or turn.key[2] >= len(seats):
        return None
    seat = seats[turn.key[2]]
    token = None if seat.is_bot else seat.token_hash
    return HeraldFacts(slow, seat.name, token, token is not None and token in presence.present(),
                       presence.stepped_away(token) or slow.on_vacation(seat.player, now), now)


class Herald:
    """One slow room's notices: ``notifier`` sends them (``None``: nobody is told), ``look`` gives the
    room's :class:`HeraldFacts` now (``None``: no turn waits), ``stored`` the room's slow state as JSON.

    ``told`` is what was settled for the turn waited for, stored beside the
    room's slow state under ``"told"``: the turn's key and the kinds settled
    (``"turn"``, ``"reminder"``, ``"webhook"``).
    """

    def __init__(self, code: str, store: RoomStore, notifier: Notifier | None, *,
                 look: Callable[[], HeraldFacts | None], stored: Callable[[], dict[str, Any]]) -> None:
        self.code = code
        self.notifier = notifier
        self.told: tuple[TurnKey | None, frozenset[str]] = (None, frozenset())
        self.wake_at: datetime | None = None
        """When this room next needs its herald (a notice), so that a room asleep is woken then."""
        self._store = store
        self._look = look
        self._stored = stored
        self._dirty = False
        self._writer: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.stopped = False

    # ------------------------------------------------------------------ stored state

    def state(self) -> dict[str, Any]:
        """The room's slow state as stored: its own, and what was told for the turn."""
        key, kinds = self.told
        return {**self._stored(), "told": {"key": None if key is None else list(key), "kinds": sorted(kinds)}}

    def restore(self, stored: dict[str, Any] | None) -> None:
        """Take up what was told, as :meth:`state` stored it."""
        told = (stored or {}).get("told") or {}
        key = told.get("key")
        self.told = (tuple(key) if isinstance(key, list) else None, frozenset(told.get("kinds") or ()))

    def changed(self) -> None:
        """The slow state changed: store it (the newest whenever written; tried again while storage fails)."""
        self._dirty = True
        if (self._writer is None or self._writer.done()) and not self.stopped:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self._dirty:
            self._dirty = False
            try:
                await self._store.save_slow(code=self.code, slow=self.state(), wake_at=None)
            except StorageUnavailable:
                self._dirty = True
                if self.stopped:  # the room has gone (to another process, perhaps): it writes its own
                    return
                await asyncio.sleep(RETRY_SECONDS)

    async def written(self) -> bool:
        """Wait until the slow state as it is now has been stored (or a later one); ``False`` if the room
        stopped first."""
        while not self.stopped:
            writer = self._writer
            if writer is None or writer.done():
                return not self._dirty
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(writer)  # a change made meanwhile starts another writer: that one too
        return False

    # ------------------------------------------------------------------ notices

    def update(self, facts: HeraldFacts | None) -> None:
        """Settle what is due at ``facts`` (the room's new state), send it, and arm for what comes later."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped:
            return
        turn = None if facts is None else facts.slow.turn
        if facts is None or turn is None:
            self.wake_at = None
            return
        key, kinds = self.told
        if key != turn.key:
            key, kinds = turn.key, frozenset()
        settled, later = notices_due(NoticeFacts(
            started=turn.started, reminder=turn.reminder, deadline=turn.deadline, told=kinds,
            connected=facts.connected, played_for=facts.played_for or facts.token_hash is None,
            quiet=facts.quiet), facts.now)
        webhook = facts.slow.webhook
        post = webhook is not None and "webhook" not in kinds and facts.token_hash is not None \
            and not facts.played_for
        if settled or post or self.told[0] != key:
            self.told = (key, kinds | settled.keys() | ({"webhook"} if post else set()))
            self.changed()
        notice = TurnNotice(room_code=self.code, player=facts.name, deadline=turn.deadline, reminder=False)
        for kind, send in settled.items():
            if send and facts.token_hash is not None:
                self._spawn(self._push(facts.token_hash, notice if kind == "turn" else
                                       TurnNotice(self.code, facts.name, turn.deadline, reminder=True), key))
        if post and webhook is not None:
            self._spawn(self._post(webhook, notice))
        self.wake_at = later
        if later is not None:
            delay = max(0.0, (later - facts.now).total_seconds())
            self._timer = asyncio.get_running_loop().call_later(delay, self._again)

    def _again(self) -> None:
        self._timer = None
        self.update(self._look())

    def _still_due(self, key: TurnKey) -> Callable[[], bool]:
        def still_due() -> bool:
            facts = self._look()
            return (not self.stopped and facts is not None and facts.slow.turn is not None
                    and facts.slow.turn.key == key and not facts.connected)
        return still_due

    async def _push(self, token_hash: str, notice: TurnNotice, key: TurnKey) -> None:
        if self.notifier is None or not await self.written():
            return
        await self.notifier.push_turn(token_hash=token_hash, notice=notice, still_due=self._still_due(key))

    async def _post(self, webhook: tuple[str, str], notice: TurnNotice) -> None:
        if self.notifier is None or not await self.written():
            return
        await self.notifier.post_webhook(webhook[0], notice, webhook[1])

    def dropped(self, token_hash: str | None) -> None:
        """The seat of ``token_hash`` was removed or moved to another browser: its subscriptions go."""
        if token_hash is not None and self.notifier is not None:
            self._spawn(self.notifier.drop_seat(room_code=self.code, token_hash=token_hash))

    def _spawn(self, call: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._quietly(call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _quietly(self, call: Coroutine[Any, Any, Any]) -> None:
        try:
            await call
        except Exception:  # a notice that fails must not take the room down; its reason is the notifier's to log
            log.exception("room %s: a notice could not be sent", self.code)

    def stop(self) -> None:
        """No more notices from this room in this process (it closes or sleeps); what is being sent goes on."""
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
