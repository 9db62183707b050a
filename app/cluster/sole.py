"""The lease a process alone on its database holds, so that a second process never forks its rooms.

A process that starts while another live process holds the lease refuses to start. A holder on
this host whose process is gone (``kill -9``, a crash) is replaced at once; one elsewhere, once its
lease has expired.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from app.common.waits import pause, wait_ended
from app.storage import ServerLease, Storage, StorageError

log = logging.getLogger(__name__)


class LeaseHeld(Exception):
    """Another live process holds the database's lease; the message says which, and what to do."""


def process_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` runs on this host (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def dead_here(lease: ServerLease, host: str) -> bool:
    """Whether ``lease``'s holder ran on ``host`` (this host) and is gone: no process has its id, or
    this process has it (the holder was an earlier process with the same id, as in a container
    started again)."""
    return lease.host == host and (lease.pid == os.getpid() or not process_alive(lease.pid))


class DatabaseLease:
    """The lease of ``storage``'s database for process ``holder``, ``seconds`` long, renewed every ``renew``.

    ``held`` says whether the last take or renewal succeeded; ``lost`` that another process took it.
    """

    def __init__(self, storage: Storage, holder: str, *, seconds: float, renew: float) -> None:
        self.storage = storage
        self.holder = holder
        self.seconds = seconds
        self.renew = renew
        self.host = socket.gethostname()
        self.held = False
        self.lost = False
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        """Set by :meth:`release`: the renewals end at their next turn (a cancellation of them may be lost)."""

    def _until(self) -> tuple[datetime, datetime]:
        moment = datetime.now(UTC)
        return moment, moment + timedelta(seconds=self.seconds)

    async def take(self) -> None:
        """Take the lease. Raises :class:`LeaseHeld` when a live process holds it, :class:`StorageError`
        when the database fails."""
        lease = await asyncio.to_thread(self.storage.server_lease)
        moment, until = self._until()
        replacing = None
        if lease is not None and lease.holder != self.holder and lease.expires_at > moment:
            if not dead_here(lease, self.host):
                raise LeaseHeld(
                    f"another server process ({lease.holder}, process {lease.pid} on {lease.host}) runs the rooms "
                    f"of the database {self.storage.url}, and its lease lasts until {lease.expires_at:%H:%M:%S} UTC. "
                    "One process at a time may use a database on its own: stop that one first, or run both in "
                    "cluster mode (CUCUMBER_REDIS_URL, with DATABASE_URL on PostgreSQL).")
            replacing = lease.holder
            log.info("the database's last server (%s, process %d) is gone; taking over", lease.holder, lease.pid)
        taken = await asyncio.to_thread(self.storage.take_server_lease, holder=self.holder, host=self.host,
                                        pid=os.getpid(), now=moment, until=until, replacing=replacing)
        if not taken:
            raise LeaseHeld(f"another server process took the database {self.storage.url} at the same moment")
        self.held = True

    def keep(self, on_lost: Callable[[], None]) -> None:
        """Renew the lease every ``renew`` seconds from now on; ``on_lost`` is called once if another
        process has taken it. A renewal the database fails leaves the rooms be (nobody can take them
        while it is down) but counts the lease as not held until one succeeds."""
        self._task = asyncio.get_running_loop().create_task(self._renew_forever(on_lost))

    async def _renew_forever(self, on_lost: Callable[[], None]) -> None:
        while not self.lost and not await pause(self._stopping, self.renew):
            try:
                renewed = await asyncio.to_thread(self.storage.renew_server_lease, holder=self.holder,
                                                  until=self._until()[1])
            except StorageError as error:
                log.warning("could not renew the database lease: %s", error)
                self.held = False
                continue
            self.held = renewed
            if not renewed:
                log.error("another server process has taken the database: this one gives its rooms up")
                self.lost = True
                on_lost()

    async def release(self, seconds: float) -> None:
        """Stop renewing and give the lease up, each within ``seconds`` (a renewal or a release still waiting
        for the database after that is left behind, with a warning, and the lease runs out by itself). Never
        raises."""
        self._stopping.set()
        if self._task is not None:
            self._task.cancel()
            await wait_ended(self._task, seconds, "the database lease's renewals")
        if self.held:
            self.held = False
            await wait_ended(asyncio.ensure_future(self._give_up()), seconds, "releasing the database lease")

    async def _give_up(self) -> None:
        try:
            await asyncio.to_thread(self.storage.release_server_lease, holder=self.holder)
        except StorageError as error:
            log.warning("could not release the database lease: %s", error)
