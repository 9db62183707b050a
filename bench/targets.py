"""What ``cucumber bench load`` measures: the server processes of a run, where each table's traffic
goes, and the CPU of the database and Redis serving them when they run on this machine.

The processes themselves are started by ``bench/load.py`` (one) or ``bench/cluster.py`` (a cluster).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

LOCAL_HOSTS = (None, "", "127.0.0.1", "localhost", "::1")
"""Host names of this machine in a server's URL (none: a Unix socket, on this machine too)."""


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process, all its threads (``/proc/<pid>/stat``); raises ``OSError``
    when it is gone."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def is_local(url: str | None) -> bool:
    """Whether the server at ``url`` (a SQLAlchemy or Redis URL) runs on this machine, so that its
    processes' CPU can be read."""
    return url is not None and urlsplit(url).hostname in LOCAL_HOSTS


@dataclass(frozen=True)
class Member:
    """One server process of a run: its name (``cucumber``, ``bare``, ``app0`` …), id, port and core."""

    name: str
    pid: int
    port: int
    core: int | None


@dataclass(frozen=True)
class Target:
    """The server processes a run measures, and where each table's traffic goes.

    Table ``i`` is opened (``POST /api/rooms``) on process ``i mod n``, which then owns the room;
    its players join, and every socket of it connects, there too, or with ``relayed`` on the next
    process (``i + 1 mod n``), which relays them to the owner. ``database_url`` and ``redis_url``
    name the services the processes share (``None``: none, or a SQLite file).
    """

    members: tuple[Member, ...]
    relayed: bool = False
    database_url: str | None = None
    redis_url: str | None = None

    def opening_port(self, index: int) -> int:
        """The port on which table ``index`` is opened (its owner's)."""
        return self.members[index % len(self.members)].port

    def table_port(self, index: int) -> int:
        """The port to which table ``index``'s joins and sockets go."""
        return self.members[(index + (1 if self.relayed else 0)) % len(self.members)].port


class Services:
    """The database and Redis the run's processes use, for the figures: CPU and who owns each room.

    CPU is read only for servers on this machine (:func:`is_local`): the PostgreSQL backends
    connected to the run's database (not the server's background writers), and the whole Redis
    server, whoever else uses it. Both are 0 seconds, and owners empty, when there is none (SQLite).
    """

    def __init__(self, database_url: str | None, redis_url: str | None) -> None:
        self._engine: Engine | None = None
        self._connection: Connection | None = None
        self._redis_pid: int | None = None
        self._database_local = is_local(database_url)
        if database_url is not None and database_url.startswith("postgresql"):
            from sqlalchemy import create_engine
            from sqlalchemy.pool import NullPool

            self._engine = create_engine(database_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
            self._connection = self._engine.connect()  # AUTOCOMMIT: each look at pg_stat_activity is fresh
        if redis_url is not None and is_local(redis_url):
            import redis

            client = redis.Redis.from_url(redis_url, socket_timeout=5)
            try:
                self._redis_pid = int(client.info("server")["process_id"])
            finally:
                client.close()

    @property
    def counts_database(self) -> bool:
        """Whether the CPU of a database server (PostgreSQL on this machine) is counted."""
        return self._connection is not None and self._database_local

    @property
    def counts_redis(self) -> bool:
        """Whether the CPU of a Redis server (on this machine) is counted."""
        return self._redis_pid is not None

    def cpu(self) -> tuple[dict[int, float], float]:
        """``({backend pid: CPU seconds}, Redis CPU seconds)`` now (see the class)."""
        backends: dict[int, float] = {}
        if self._connection is not None and self._database_local:
            pids = self._connection.exec_driver_sql(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            for (pid,) in pids:
                with contextlib.suppress(OSError):
                    backends[pid] = cpu_seconds(pid)
        redis_seconds = 0.0
        if self._redis_pid is not None:
            with contextlib.suppress(OSError):
                redis_seconds = cpu_seconds(self._redis_pid)
        return backends, redis_seconds

    def owners(self) -> dict[str, str]:
        """Each stored room's current owner (the process id of its current epoch), by room code."""
        if self._connection is None:
            return {}
        rows = self._connection.exec_driver_sql(
            "SELECT o.room_code, o.owner FROM room_owners o JOIN rooms r ON r.code = o.room_code AND r.epoch = o.epoch")
        return {code: owner for code, owner in rows}  # noqa: C416 (rows are not pairs to dict())

    def rooms_moved(self) -> int | None:
        """How many rooms have been taken again since they were opened (an epoch above 1); ``None`` on SQLite."""
        if self._connection is None:
            return None
        return int(self._connection.exec_driver_sql("SELECT count(*) FROM rooms WHERE epoch > 1").scalar_one())

    def close(self) -> None:
        """Close the connection to the database (idempotent)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def used(before: tuple[dict[int, float], float], after: tuple[dict[int, float], float]) -> tuple[float, float]:
    """``(database, Redis)`` CPU seconds between two :meth:`Services.cpu` readings: for each backend
    alive at the end, what it used since the first reading (all of it, if it connected since)."""
    database = sum(seconds - before[0].get(pid, 0.0) for pid, seconds in after[0].items())
    return max(0.0, database), max(0.0, after[1] - before[1])
