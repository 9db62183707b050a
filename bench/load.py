"""Many tables playing at once against real ``cucumber serve`` processes, and against a bare yardstick.

One process on SQLite or on PostgreSQL, or a cluster of processes on PostgreSQL and Redis whose
tables' traffic goes to each room's owner or, through the relay, to another process. Prints one
JSON line per server and phase (setup, human pace, flat out), then one line of ratios.
docs/performance.md says what each figure means.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import itertools
import json
import math
import os
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from app.client import Client, Frame
from bench.cluster import DEFAULT_POSTGRES_URL, DEFAULT_REDIS_URL, Cluster, FreshDatabase
from bench.targets import Member, Services, Target, cpu_seconds, used

UNSEEN_AFTER_SECONDS = 30.0
"""A play whose new version has not reached every socket of its table by then counts as unseen."""
STARTUP_SECONDS = 60.0
SETTLE_SECONDS = 180.0
"""How long opening sockets, or starting the matches, may take before the tables that lag are left out."""
HTTP_CONCURRENCY = 16
CONNECT_CONCURRENCY = 100
CONNECT_ATTEMPTS = 3
JITTER = 0.3
"""Human pace: each gap between a table's plays is the pace ±30 %."""
CHAT_SECONDS = 4.0
"""With ``--chat``: seconds (±30 %) between the lines of a chatting table during the human-pace phase."""
CHAT_SHARE = 10
"""With ``--chat``: one table in this many chats."""
_CHAT_FRAME = ('<div id="chat-log"', '<div id="chat-status"', '{"type":"chat')
"""How the table page's chat frames begin (the bare server's page socket sends JSON): not a new version, not
an error."""
QUIET_CPU = 0.15
"""Before a phase: the servers' CPU (a fraction of one core, all of them together) under which they count as
at rest (:func:`wait_quiet`). Open sockets cost a little even then (keep-alive pings, the collector's timer)."""
QUIET_SECONDS = 2.0
"""Before a phase: how long the servers must stay at rest (twice the period over which the server measures
its own load, ``app.storage.load.LOAD_PERIOD_SECONDS``), so that nothing left of the setup or of the phase
before (its writes, its frames, a commit window opened for its burst) is measured with the phase."""
QUIET_LIMIT_SECONDS = 20.0
"""Before a phase: the longest wait for the servers to come to rest; the phase starts then anyway."""
QUIET_SAMPLE_SECONDS = 0.25
PR_SET_PDEATHSIG = 1
PROBE_SECONDS = 0.05
"""How often the disk probe makes a write durable during a phase (:class:`DiskProbe`)."""

_JSON_VERSION = re.compile(r'"version":(\d+)')
_PAGE_VERSION = re.compile(r'data-version="(\d+)"')
_ERROR_CODE = re.compile(r'"code":"([a-z_]+)"')

DATABASES = ("sqlite", "postgres")
ROUTES = ("owner", "relayed")
"""A cluster's routes: each table's requests and sockets go to the room's owner, or to another process."""


@dataclass
class Config:
    """A run's options, as ``cucumber bench load`` takes them (seconds; 0 skips a phase)."""

    tables: int = 1000
    players: int = 4
    pace: float = 3.0
    duration: float = 30.0
    flat_tables: int = 60
    flat_duration: float = 15.0
    page: bool = False
    chat: bool = False
    languages: tuple[str, ...] = ("en",)
    skip_bare: bool = False
    only_bare: bool = False
    port: int = 0
    preset: str = "quick"
    seed: int = 1
    env: dict[str, str] = field(default_factory=dict)
    database: str = "sqlite"
    """``sqlite`` (a file on a disk) or ``postgres`` (a database created for the run on ``postgres_url``)."""
    cluster: str | None = None
    """``None``: one process. ``owner`` or ``relayed``: ``processes`` processes on PostgreSQL and Redis,
    each table's traffic going to the room's owner, or to a process that relays it to the owner."""
    processes: int = 2
    postgres_url: str = DEFAULT_POSTGRES_URL
    redis_url: str = DEFAULT_REDIS_URL
    analyses: int = 0
    """Finished matches stored, waiting for the coach's analysis, before our server starts (one process
    only): its analysis worker then has work while the phases are measured (:func:`store_finished_matches`)."""

    @property
    def mode(self) -> str:
        """What the run measures: ``sqlite``, ``postgres``, ``cluster-owner`` or ``cluster-relayed``."""
        return self.database if self.cluster is None else f"cluster-{self.cluster}"

    @property
    def sockets_per_table(self) -> int:
        """Each player's JSON socket and a spectator's, twice with ``page`` (the table page's sockets)."""
        return (self.players + 1) * (2 if self.page else 1)


def server_settings(config: Config) -> dict[str, str]:
    """The settings lifted for the run, as the server's environment variables.

    Add a new limit here when the server grows one; ``--env KEY=VALUE``
    overrides any of them for one run.
    """
    return {
        "CUCUMBER_MAX_ROOMS": str(max(config.tables, config.flat_tables) + 100),
        "CUCUMBER_MAX_CONNECTIONS_PER_ROOM": str(max(100, 2 * config.sockets_per_table)),
        "CUCUMBER_BOT_DELAY_SECONDS": "0",
        "CUCUMBER_DEAL_PAUSE_SECONDS": "0",
        "CUCUMBER_AWAY_GRACE_SECONDS": "86400",
        "CUCUMBER_ROOM_IDLE_SECONDS": "86400",
        "CUCUMBER_SEND_QUEUE_SIZE": "256",
        "CUCUMBER_UNUSED_ROOM_SECONDS": "86400",
        "CUCUMBER_RATE_LIMITS": "false",  # per address (all tables come from one) and per connection
        # The default, stated with --analyses: one worker, at nice 19 on the server's core, analyses them.
        **({"CUCUMBER_ANALYSIS_WORKERS": "1"} if config.analyses else {}),
        **config.env,
    }


def parse_env(items: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict; keys are ``CUCUMBER_*`` or ``DATABASE_URL``. Raises ``ValueError``."""
    env = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not (key.startswith("CUCUMBER_") or key == "DATABASE_URL"):
            raise ValueError(f"--env takes CUCUMBER_NAME=VALUE (or DATABASE_URL=…), not {item!r}")
        env[key] = value
    return env


# ---------------------------------------------------------------------- processes


def raise_open_files() -> int:
    """Raise this process's open-file limit to the hard limit (children inherit it); returns it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def choose_cores() -> tuple[int | None, int | None]:
    """``(server core, generator core)``: the first two cores we may use, or ``None`` on one core."""
    cores = sorted(os.sched_getaffinity(0))
    return (cores[0], cores[1]) if len(cores) >= 2 else (None, None)


def queue_seconds(pid: int) -> float:
    """Seconds the process's live threads have waited, ready to run, for a core (``/proc/<pid>/task/*/schedstat``).

    It grows when other processes hold the cores: then the figures measure the machine's other load too.
    """
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as file:
            total += int(file.read().split()[1])
    return total / 1e9


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MB (``VmRSS`` of ``/proc/<pid>/status``)."""
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def machine_cpu_seconds() -> float:
    """CPU seconds all cores spent busy (not idle, not waiting for disk) since boot, from ``/proc/stat``."""
    with open("/proc/stat") as file:
        ticks = [int(value) for value in file.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    """User plus system CPU seconds of this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def filesystem_of(path: Path) -> str:
    """The type of the file system holding ``path`` (``ext4``, ``tmpfs``, …), from ``/proc/self/mounts``."""
    best, kind = "", "unknown"
    with contextlib.suppress(OSError), open("/proc/self/mounts") as file:
        for line in file:
            parts = line.split()
            mount = parts[1].replace("\\040", " ")
            inside = str(path).startswith(mount.rstrip("/") + "/") or str(path) == mount
            if inside and len(mount) >= len(best):
                    best, kind = mount, parts[2]
    return kind


def database_folder() -> Path:
    """A new folder on a disk for the run's SQLite file: under /var/tmp, else the current folder.

    A database in memory (tmpfs) would hide the cost of writing each play to disk.
    """
    for base in (Path("/var/tmp"), Path.cwd()):
        if base.is_dir() and os.access(base, os.W_OK) and filesystem_of(base.resolve()) not in ("tmpfs", "ramfs"):
            return Path(tempfile.mkdtemp(prefix="cucumber-bench-", dir=base))
    raise RuntimeError("no folder on a disk to hold the database (/var/tmp and the current folder are in memory)")


class DiskProbe:
    """How long the disk under ``folder`` takes to make a small write durable, measured beside a phase.

    A thread writes 4 KB to a file of its own there and fsyncs it every :data:`PROBE_SECONDS`; the
    server's commits wait for the same disk, so a slow play at the same moment as a slow probe is the
    disk's, not the server's. The file is removed at :meth:`stop`.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / f"fsync-probe-{os.getpid()}"
        self.seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="disk-probe", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            block = b"\0" * 4096
            while not self._stop.wait(PROBE_SECONDS):
                os.write(descriptor, block)
                began = time.perf_counter()
                os.fsync(descriptor)
                self.seconds.append(time.perf_counter() - began)
        finally:
            os.close(descriptor)
            self.path.unlink(missing_ok=True)

    def stop(self) -> dict[str, float | None]:
        """Stop probing; the fsync times seen, in ms (``disk_fsync_p50_ms``, ``…_p99_ms``, ``…_max_ms``)."""
        self._stop.set()
        self._thread.join()
        seconds = sorted(self.seconds)
        return {"disk_fsyncs": len(seconds), "disk_fsync_p50_ms": milliseconds(percentile(seconds, 0.50)),
                "disk_fsync_p99_ms": milliseconds(percentile(seconds, 0.99)),
                "disk_fsync_max_ms": milliseconds(seconds[-1] if seconds else None)}


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """A server in a subprocess, pinned to ``core``, that dies with this process."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int, log: Path,
                 core: int | None) -> None:
        self.name, self.port, self.log = name, port, log

        def prepare() -> None:  # in the child, before exec
            if core is not None:
                os.sched_setaffinity(0, {core})
            with contextlib.suppress(Exception):
                ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

        with open(log, "ab") as out:
            self.process = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            preexec_fn=prepare)  # noqa: PLW1509 (the bench runs no threads yet)
        self.pid = self.process.pid

    async def wait_ready(self) -> None:
        """Wait until ``GET /healthz`` answers; raises ``RuntimeError`` if the process exits or takes too long."""
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError, asyncio.TimeoutError, ValueError):
                status, _ = await http("GET", self.port, "/healthz", timeout=2)
                if status == 200:
                    return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer in {STARTUP_SECONDS:.0f} s")

    def stop(self) -> None:
        """Terminate the process (kill it if it lingers)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


async def http(method: str, port: int, path: str, body: Any = None, timeout: float = 30) -> tuple[int, Any]:
    """One HTTP/1.1 request to 127.0.0.1 on a new connection; returns ``(status, JSON body or None)``."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n")
        writer.write(head.encode() + data)
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    try:
        return status, json.loads(payload) if payload else None
    except ValueError:
        return status, None


# ---------------------------------------------------------------------- tables and sockets


@dataclass
class Stats:
    """What one phase saw: plays sent, their latencies in seconds, and the ones never seen."""

    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    unseen: int = 0
    refused: int = 0
    starts: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    chat_sent: int = 0
    chat_received: int = 0


@dataclass(eq=False)
class Play:
    """A play on its way: the version it makes and the sockets that do not hold it yet."""

    sent_at: float
    version: int
    mover: Socket
    waiting: set[Socket]
    stats: Stats
    last_at: float | None = None


class Socket:
    """One client socket of a table: a player's or a spectator's, JSON protocol or table page.

    A JSON socket is an :class:`app.client.Client` in its lean mode: it reads each state's version
    from its text and decodes the state only when the table needs to know whose turn it is (and the
    score sheet when a state changes it). A page socket reads the version its fragments carry.
    """

    def __init__(self, table: Table, kind: str, seat: int | None) -> None:
        self.table, self.kind, self.seat = table, kind, seat
        self.client: Client | None = None
        """The JSON protocol's client (``None`` for a page socket)."""
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.version = -1
        self.closed = False

    def state(self) -> dict[str, Any]:
        """The newest ``state`` object this socket received, its score sheet whole (``{}`` before the first,
        and for a page socket)."""
        state = None if self.client is None else self.client.view.state
        return {} if state is None else state

    def take(self, frame: Frame, at: float) -> None:
        """Take one JSON-protocol frame: a new version, a refusal, or chat."""
        if frame.fresh:
            assert frame.version is not None
            self.version = frame.version
            self.table.arrived(self, frame.version, at)
        elif frame.kind.startswith("chat"):
            self.table.stats.chat_received += 1
        elif frame.kind != "state":
            self.table.refused(self, frame.code or frame.kind)

    def receive_page(self, text: str | bytes, at: float) -> None:
        """Take one page message: a fragment of a new version (or, from the bare server, a JSON state), chat,
        or an error."""
        if isinstance(text, bytes):
            text = text.decode()
        if text.startswith(_CHAT_FRAME):
            self.table.stats.chat_received += 1
            return
        if text.startswith('{"type":"state"'):  # the bare server's page socket sends the JSON protocol's states
            match = _JSON_VERSION.search(text, 0, 80)
        elif text.startswith("{"):
            match = None
        else:
            match = _PAGE_VERSION.search(text)
        if match is None:
            found = _ERROR_CODE.search(text)
            self.table.refused(self, found.group(1) if found else "unreadable")
            return
        version = int(match.group(1))
        if version <= self.version:
            return
        self.version = version
        self.table.arrived(self, version, at)

    async def read(self) -> None:
        """Receive until the socket closes."""
        assert self.ws is not None
        try:
            if self.client is not None:
                take, clock = self.take, time.perf_counter
                async for frame in self.client.frames():
                    take(frame, clock())
            else:
                async for message in self.ws:
                    self.receive_page(message, time.perf_counter())
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.table.lost(self)

    async def send(self, message: dict[str, Any]) -> bool:
        """Send one JSON message; ``False`` if the socket is gone or the server stopped reading it."""
        if self.ws is None or self.closed:
            return False
        try:
            async with asyncio.timeout(UNSEEN_AFTER_SECONDS):
                if self.client is not None:
                    return await self.client.send(message)
                await self.ws.send(json.dumps(message))
        except (ConnectionClosed, TimeoutError):
            return False
        return True


class Table:
    """A room with its players' and spectators' sockets and the plays still on their way; ``port`` is the
    server process they talk to."""

    def __init__(self, index: int, code: str, tokens: list[str], rng: random.Random, port: int) -> None:
        self.index, self.code, self.tokens, self.rng = index, code, tokens, rng
        self.port = port
        """Where the table's joins and sockets go (see :class:`~bench.targets.Target`)."""
        self.players: list[Socket] = []
        self.sockets: list[Socket] = []
        self.pending: list[Play] = []
        self.changed = asyncio.Event()
        self.stats = Stats()
        self.acted: int | None = None
        """The version the table last acted on (a play or a start): act again only on a newer one."""

    def live(self) -> list[Socket]:
        """The sockets still open."""
        return [sock for sock in self.sockets if not sock.closed]

    def latest(self) -> Socket:
        """The player socket holding the newest version."""
        return max(self.players, key=lambda sock: sock.version)

    def settled(self) -> bool:
        """Whether every open socket holds the same version."""
        versions = {sock.version for sock in self.live()}
        return len(versions) == 1 and -1 not in versions

    def started(self) -> bool:
        """Whether every open socket holds the same version and it shows a match being played."""
        return self.settled() and self.latest().state().get("phase") == "playing"

    def broken(self) -> bool:
        """Whether a player's JSON socket is missing or closed: the table cannot play on."""
        return any(sock.closed or sock.ws is None for sock in self.players)

    def arrived(self, sock: Socket, version: int, at: float) -> None:
        """``sock`` now holds ``version``: complete the plays every socket has now seen."""
        for play in list(self.pending):
            if version >= play.version and sock in play.waiting:
                play.waiting.discard(sock)
                play.last_at = at
                if not play.waiting:
                    play.stats.latencies.append(at - play.sent_at)
                    self.pending.remove(play)
        self.changed.set()

    def refused(self, sock: Socket, code: str) -> None:
        """An error message (its ``code``): the socket's newest play (if any) did not happen."""
        self.stats.errors[code] += 1
        mine = [play for play in self.pending if play.mover is sock]
        if mine:
            self.pending.remove(mine[-1])
            mine[-1].stats.refused += 1
        self.acted = None
        self.changed.set()

    def lost(self, sock: Socket) -> None:
        """A socket closed: no play waits for it any more."""
        for play in list(self.pending):
            play.waiting.discard(sock)
            if not play.waiting:
                self.pending.remove(play)
                if play.last_at is None:
                    play.stats.unseen += 1
                else:
                    play.stats.latencies.append(play.last_at - play.sent_at)
        self.changed.set()

    def next_move(self) -> tuple[str, Socket, str | None, int] | None:
        """What to do now: ``("start", host, None, version)``, ``("play", mover, card, version)`` or nothing.

        A player acts on the newest state only once it has reached them, and the
        table acts once per version.
        """
        latest = self.latest()
        if latest.version < 0 or latest.version == self.acted:
            return None
        state = latest.state()
        if state.get("phase") in ("lobby", "finished"):
            return "start", self.players[0], None, latest.version
        turn = state.get("turn")
        if state.get("phase") != "playing" or turn is None:
            return None
        mover = self.players[turn]
        if mover.version < latest.version:
            return None
        legal = mover.state()["you"]["legal"]
        if not legal:
            return None
        return "play", mover, self.rng.choice(legal), mover.version

    async def act(self, move: tuple[str, Socket, str | None, int], stats: Stats) -> bool:
        """Send a start or a play; ``False`` if the socket is gone."""
        kind, sock, card, version = move
        self.acted = version
        if kind == "start":
            stats.starts += 1
            return await sock.send({"type": "start"})
        play = Play(time.perf_counter(), version + 1, sock,
                    {other for other in self.live() if other.version <= version}, stats)
        self.pending.append(play)
        stats.sent += 1
        return await sock.send({"type": "play", "card": card})

    async def wait_change(self, until: float) -> None:
        """Wait for a new message on any socket of the table, at most until ``until`` (perf_counter)."""
        delay = until - time.perf_counter()
        if delay <= 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self.changed.wait()


def player_name(table: int, seat: int) -> str:
    """The name of the player in ``seat`` (from 0) at table ``table``: ``"Player 2 t17"``. Each table's names
    are its own, as at real tables, so that nothing the server keeps for every room by what it shows (the
    sentences it has said with a player's name, say) is found again at another table only because the names
    are alike."""
    return f"Player {seat + 1} t{table}"


async def open_tables(target: Target, config: Config, count: int) -> list[Table]:
    """Open ``count`` rooms over HTTP, each with ``config.players`` players; returns them in order.

    Table ``i`` is opened on ``target.opening_port(i)`` and joined on ``target.table_port(i)``.
    """
    limit = asyncio.Semaphore(HTTP_CONCURRENCY)

    async def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
        for attempt in range(3):
            try:
                status, answer = await http("POST", port, path, body)
            except (TimeoutError, OSError, ValueError, IndexError) as error:
                status, answer = 0, {"error": repr(error)}
            if status == 201:
                return dict(answer)
            await asyncio.sleep(0.5 * (attempt + 1))
        raise RuntimeError(f"POST {path} failed: {status} {answer}")

    async def one(index: int) -> Table:
        port = target.table_port(index)
        async with limit:
            room = await post(target.opening_port(index), "/api/rooms",
                              {"name": player_name(index, 0), "preset": config.preset})
            tokens = [room["token"]]
            for seat in range(1, config.players):
                joined = await post(port, f"/api/rooms/{room['code']}/players", {"name": player_name(index, seat)})
                tokens.append(joined["token"])
        return Table(index, room["code"], tokens, random.Random(f"{config.seed}-{index}"), port)

    return list(await asyncio.gather(*(one(index) for index in range(count))))


async def connect_tables(tables: list[Table], page: bool, languages: tuple[str, ...] = ("en",)) -> int:
    """Open every table's sockets (players, then a spectator; the same again for the page with ``page``),
    each to its table's ``port``.

    The sockets of a table speak ``languages`` in turn (``lang`` in ``hello``, the ``cucumber_lang``
    cookie for the page). Returns how many sockets could not be opened.
    """
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)
    failed = 0

    async def one(sock: Socket, path: str, hello: dict[str, Any] | None, cookie: str | None) -> None:
        nonlocal failed
        url = f"ws://127.0.0.1:{sock.table.port}{path}"
        options: dict[str, Any] = {"origin": Origin(f"http://127.0.0.1:{sock.table.port}"), "open_timeout": 30,
                                   "ping_interval": None, "close_timeout": 1, "proxy": None, "max_size": 2**22}
        if hello is not None:
            sock.client = Client(url, hello.get("token"), lang=hello.get("lang"), lean=True, reconnect=False,
                                 **options)
        async with limit:
            for attempt in range(CONNECT_ATTEMPTS):
                try:
                    if sock.client is not None:
                        await sock.client.connect()
                        sock.ws = sock.client.socket
                    else:
                        sock.ws = await connect(url, additional_headers={"Cookie": cookie} if cookie else None,
                                                **options)
                    break
                except Exception:  # refused, reset or timed out: try again, then count it as failed
                    if sock.ws is not None and sock.ws.transport is not None:
                        sock.ws.transport.abort()
                    sock.ws = None
                    await asyncio.sleep(0.5 * (attempt + 1))
        if sock.ws is None:
            failed += 1
            sock.closed = True
            return
        sock.reader = asyncio.get_running_loop().create_task(sock.read())

    jobs = []
    for table in tables:
        api = f"/api/rooms/{table.code}/ws"
        table.players = [Socket(table, "json", seat) for seat in range(len(table.tokens))]
        spectator = Socket(table, "json", None)
        table.sockets = [*table.players, spectator]
        speaking = iter(languages * (2 * len(table.sockets)))
        jobs += [one(sock, api, {"type": "hello", "token": token, "lang": next(speaking)}, None)
                 for sock, token in zip(table.players, table.tokens, strict=False)]
        jobs.append(one(spectator, api, {"type": "hello", "lang": next(speaking)}, None))
        if page:
            for token in [*table.tokens, None]:
                sock = Socket(table, "page", None)
                table.sockets.append(sock)
                cookie = f"cucumber_lang={next(speaking)}" + (f"; cucumber_{table.code}={token}" if token else "")
                jobs.append(one(sock, f"/r/{table.code}/ws", None, cookie))
    await asyncio.gather(*jobs)
    return failed


async def settle(tables: list[Table], check: Any, seconds: float = SETTLE_SECONDS) -> list[Table]:
    """Wait until ``check(table)`` holds for every table; returns those for which it never did."""
    deadline = time.perf_counter() + seconds
    while True:
        lagging = [table for table in tables if not check(table)]
        if not lagging or time.perf_counter() > deadline:
            return lagging
        await asyncio.sleep(0.1)


# ---------------------------------------------------------------------- phases


async def drive(table: Table, pace: float, start: float, end: float, stats: Stats, plays: int | None = None) -> None:
    """Play at one table until ``end``: ``pace`` seconds (±30 %) between plays, or flat out when 0; with
    ``plays``, stop sooner once the table has made that many plays.

    A finished match is followed by a new one (the host's ``start``).
    """
    next_at = start + (table.rng.uniform(0, pace) if pace else 0)
    played = 0
    while not table.broken() and (plays is None or played < plays):
        moment = time.perf_counter()
        if moment >= end:
            return
        if moment < next_at:
            await asyncio.sleep(min(next_at, end) - moment)
            continue
        table.changed.clear()
        move = table.next_move()
        if move is None:
            await table.wait_change(end)
            continue
        if not await table.act(move, stats):
            return
        if move[0] == "play":
            played += 1
            if pace:
                next_at = time.perf_counter() + pace * table.rng.uniform(1 - JITTER, 1 + JITTER)


async def spread(tables: list[Table], stats: Stats) -> int:
    """Play each table flat out some way into its first deal: a number of cards drawn for each table from 0 to
    one short of the whole deal. Human pace then finds the tables at every point of a deal, full hands and
    nearly empty ones, as real tables are, rather than all at the first lead. Returns the plays made."""
    counts = []
    for table in tables:
        state = table.latest().state()
        counts.append(table.rng.randrange(len(state["seats"]) * state["rules"]["hand_size"]))
    sent, end = stats.sent, time.perf_counter() + SETTLE_SECONDS
    await asyncio.gather(*(drive(table, 0, time.perf_counter(), end, stats, plays=count)
                           for table, count in zip(tables, counts, strict=True)))
    return stats.sent - sent


def cards_into_deal(table: Table) -> int:
    """How many cards have been played in the deal the table's newest state shows."""
    state = table.latest().state()
    return sum(len(seat["played"]) for seat in state["seats"]) + len(state["trick"])


async def chatter(table: Table, start: float, end: float, stats: Stats) -> None:
    """Write in the chat of one table until ``end``: a line every :data:`CHAT_SECONDS` (±30 %), by a player
    or the spectator in turn, every third one a quick reaction."""
    next_at = start + table.rng.uniform(0, CHAT_SECONDS)
    for lines in itertools.count():
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if time.perf_counter() >= end or table.broken():
            return
        said = ({"type": "react", "reaction": "well_played"} if lines % 3 == 2 else
                {"type": "chat", "text": f"table {table.index}, line {lines}: nice trick!"})
        if await table.sockets[lines % len(table.sockets)].send(said):
            stats.chat_sent += 1
        next_at = min(end, next_at + CHAT_SECONDS * table.rng.uniform(1 - JITTER, 1 + JITTER))


def expire(tables: list[Table], moment: float) -> None:
    """Count the plays waiting longer than :data:`UNSEEN_AFTER_SECONDS` as unseen and stop waiting for them."""
    for table in tables:
        for play in [play for play in table.pending if moment - play.sent_at > UNSEEN_AFTER_SECONDS]:
            table.pending.remove(play)
            play.stats.unseen += 1


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of sorted ``values`` (``None`` when empty)."""
    if not values:
        return None
    return values[min(len(values) - 1, max(0, math.ceil(share * len(values)) - 1))]


def milliseconds(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def per_play_ms(seconds: float, plays: int) -> float | None:
    """CPU ``seconds`` per play, in ms (``None`` without plays)."""
    return round(seconds * 1000 / plays, 2) if plays else None


async def run_phase(target: Target, services: Services, tables: list[Table], pace: float, duration: float,
                    chat: bool = False, disk: Path | None = None) -> dict[str, Any]:
    """Play at ``tables`` for ``duration`` seconds, then wait for the plays still on their way.

    With ``chat``, one table in :data:`CHAT_SHARE` also chats meanwhile (:func:`chatter`).

    Returns the phase's figures: plays sent, seen by every socket of their
    table, never seen, refused; plays seen per second of the phase; latency
    percentiles in ms; the CPU time per play seen, in ms, of each server
    process and of all of them, and of the database's backends and Redis
    beside them; CPU of the servers, of this process and of everything else on
    the machine, as fractions of one core over the phase, and how long the
    servers' and this process's threads waited for a core (seconds per
    second); the servers' RSS at the end. With ``disk`` (the folder of the
    server's database), also how long that disk took to make a write
    durable meanwhile (:class:`DiskProbe`).
    """
    probe = DiskProbe(disk) if disk is not None else None
    try:
        with collector_paused():
            figures = await _run_phase(target, services, tables, pace, duration, chat)
    finally:
        fsyncs = probe.stop() if probe is not None else {}
    return {**figures, **fsyncs}


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """This process's garbage collector off while a phase is measured (after one full collection).

    The generator is the instrument: it holds a parsed state for each of thousands of sockets, and with
    the collector on, a full collection of its own stopped it for up to about 0.4 s during a phase,
    during which no frame was read, and the plays waiting for one were counted that much slower, the
    server's fault or not. A phase makes little cyclic garbage, so holding it for the phase costs little.
    """
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def wait_quiet(pids: list[int], *, share: float = QUIET_CPU, seconds: float = QUIET_SECONDS,
                     limit: float = QUIET_LIMIT_SECONDS) -> float:
    """Wait until the processes ``pids`` together have used under ``share`` of a core for ``seconds`` in a
    row (measured every :data:`QUIET_SAMPLE_SECONDS`), or ``limit`` seconds have passed; returns the seconds
    waited. A phase measured straight after the setup's burst (a thousand matches started at once) would
    count the tail of that burst as its own."""
    began = time.perf_counter()
    quiet_since = began
    spent = sum(cpu_seconds(pid) for pid in pids)
    while (moment := time.perf_counter()) - began < limit:
        await asyncio.sleep(QUIET_SAMPLE_SECONDS)
        now, before, spent = time.perf_counter(), spent, sum(cpu_seconds(pid) for pid in pids)
        if spent - before >= share * (now - moment):
            quiet_since = now
        elif now - quiet_since >= seconds:
            break
    return time.perf_counter() - began


async def _run_phase(target: Target, services: Services, tables: list[Table], pace: float, duration: float,
                     chat: bool) -> dict[str, Any]:
    stats = Stats()
    for table in tables:
        table.stats = stats
    pids = [member.pid for member in target.members]
    quiet_wait = await wait_quiet(pids)
    server_cpu, own_cpu, machine_cpu = [cpu_seconds(pid) for pid in pids], own_cpu_seconds(), machine_cpu_seconds()
    server_queue, own_queue = [queue_seconds(pid) for pid in pids], queue_seconds(os.getpid())
    beside = services.cpu()
    start = time.perf_counter()
    end = start + duration
    drivers = [asyncio.create_task(drive(table, pace, start, end, stats)) for table in tables]
    chatting = tables[::CHAT_SHARE] if chat else []
    drivers += [asyncio.create_task(chatter(table, start, end, stats)) for table in chatting]
    while (moment := time.perf_counter()) < end:
        await asyncio.sleep(min(1.0, end - moment))
        expire(tables, time.perf_counter())
    await asyncio.gather(*drivers)
    elapsed = time.perf_counter() - start
    server_cpu = [cpu_seconds(pid) - before for pid, before in zip(pids, server_cpu, strict=True)]
    own_cpu = own_cpu_seconds() - own_cpu
    machine_cpu = machine_cpu_seconds() - machine_cpu
    database_cpu, redis_cpu = used(beside, services.cpu())
    server_queue = [queue_seconds(pid) - before for pid, before in zip(pids, server_queue, strict=True)]
    own_queue = queue_seconds(os.getpid()) - own_queue
    while any(table.pending for table in tables):
        expire(tables, time.perf_counter())
        await asyncio.sleep(0.05)
    latencies = sorted(stats.latencies)
    seen = len(latencies)
    rss = [rss_mb(pid) for pid in pids]
    processes = [{"name": member.name, "pid": member.pid, "cpu": round(cpu / elapsed, 3),
                  "cpu_ms_per_play": per_play_ms(cpu, seen), "cpu_queue": round(queue / elapsed, 3),
                  "rss_mb": round(memory, 1)}
                 for member, cpu, queue, memory in zip(target.members, server_cpu, server_queue, rss, strict=True)]
    others = machine_cpu - sum(server_cpu) - own_cpu - database_cpu - redis_cpu
    return {
        "tables": len(tables),
        "sockets": sum(len(table.live()) for table in tables),
        "duration_s": round(elapsed, 2),
        "quiet_wait_s": round(quiet_wait, 2),
        "plays": stats.sent,
        "plays_seen": seen,
        "plays_unseen": stats.unseen,
        "plays_refused": stats.refused,
        "plays_per_s": round(seen / elapsed, 1),
        "p50_ms": milliseconds(percentile(latencies, 0.50)),
        "p99_ms": milliseconds(percentile(latencies, 0.99)),
        "max_ms": milliseconds(latencies[-1] if latencies else None),
        "matches_started": stats.starts,
        "server_cpu": round(sum(server_cpu) / elapsed, 3),
        "server_cpu_ms_per_play": per_play_ms(sum(server_cpu), seen),
        "processes": processes,
        "database_cpu": round(database_cpu / elapsed, 3) if services.counts_database else None,
        "database_cpu_ms_per_play": per_play_ms(database_cpu, seen) if services.counts_database else None,
        "redis_cpu": round(redis_cpu / elapsed, 3) if services.counts_redis else None,
        "redis_cpu_ms_per_play": per_play_ms(redis_cpu, seen) if services.counts_redis else None,
        "generator_cpu": round(own_cpu / elapsed, 3),
        "other_cpu": round(max(0.0, others) / elapsed, 3),
        "server_cpu_queue": round(sum(server_queue) / elapsed, 3),
        "generator_cpu_queue": round(own_queue / elapsed, 3),
        "server_rss_mb": round(sum(rss), 1),
        "rooms_moved": services.rooms_moved(),
        "chat_tables": len(chatting),
        "chat_lines": stats.chat_sent,
        "chat_frames_received": stats.chat_received,
        "errors": dict(stats.errors),
    }


# ---------------------------------------------------------------------- the coach's work


def store_finished_matches(database_url: str, config: Config) -> list[str]:
    """Store ``config.analyses`` finished matches in the database at ``database_url`` (brought up to date
    first), each waiting for the coach's analysis; returns their ids.

    Each is a match of ``config.players`` normal-strength bots under the rules of ``config.preset``, played
    through the engine with deals and choices from ``random.Random`` seeded with ``config.seed``, and stored
    with the app's own :meth:`~app.storage.Storage.import_record`. Raises ``InvalidRules`` for an unknown
    preset, :class:`~app.storage.StorageError` if the database fails.
    """
    from datetime import UTC, datetime

    from app.bots.arena import play_match
    from app.game import preset, to_record
    from app.storage import Storage

    rules = preset(config.preset)
    lineup = ["normal"] * config.players
    deals, choices = random.Random(f"{config.seed}-deals"), random.Random(f"{config.seed}-bots")
    stored = []
    with Storage(database_url) as storage:
        storage.upgrade()
        for _ in range(config.analyses):
            record = to_record(play_match(lineup, rules, deals, choices))
            match_id, _ = storage.import_record(record, imported_at=datetime.now(UTC))
            stored.append(match_id)
    return stored


def count_analyses(database_url: str, stored: list[str]) -> dict[str, Any]:
    """How far the coach got with the matches ``stored`` (:func:`store_finished_matches`), read from the
    database at ``database_url`` once the server has stopped.

    Returns ``matches_stored``; ``analyses_done`` and ``analyses_failed``; ``analyses_waiting``, those
    never finished (a claim still running is given up when the server stops); and ``busy_to_the_end``,
    whether any were still waiting (then the worker had work throughout the run, as the coach takes the
    match that ended first, and these ended before the run began). Raises
    :class:`~app.storage.StorageError` if the database fails.
    """
    from app.storage import Storage

    with Storage(database_url) as storage:
        states = Counter((storage.match_analysis(match_id) or {}).get("status") for match_id in stored)
    waiting = len(stored) - states["done"] - states["failed"]
    return {"matches_stored": len(stored), "analyses_done": states["done"], "analyses_failed": states["failed"],
            "analyses_waiting": waiting, "busy_to_the_end": waiting > 0}


def coach_workers(pid: int) -> list[dict[str, Any]]:
    """The analysis workers among the child processes of server ``pid``, found by their nice 19: for
    each, its ``pid``, ``nice`` and the ``cores`` it may run on (``/proc/<pid>/task/*/children``)."""
    workers = []
    for child in children(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{child}/stat") as file:
                nice = int(file.read().rpartition(")")[2].split()[16])
            if nice == 19:
                workers.append({"pid": child, "nice": nice, "cores": sorted(os.sched_getaffinity(child))})
    return workers


def children(pid: int) -> list[int]:
    """The ids of the child processes of ``pid`` (of all its threads)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(child) for child in file.read().split()]
    return found


# ---------------------------------------------------------------------- one server


def note(text: str) -> None:
    """A progress note on standard error (the figures go to standard output)."""
    print(f"bench load: {text}", file=sys.stderr, flush=True)


def emit(line: dict[str, Any]) -> None:
    """One JSON line of figures on standard output."""
    print(json.dumps(line), flush=True)


def start_server(kind: str, config: Config, folder: Path, core: int | None,
                 database_url: str | None = None) -> tuple[ServerProcess, dict[str, str]]:
    """Start one ``cucumber serve`` (on ``database_url``, else a SQLite file in ``folder``) or the bare
    server; returns it and its settings."""
    port = config.port or free_port()
    if kind == "cucumber":
        settings = {"DATABASE_URL": database_url or sqlite_url(folder), **server_settings(config)}
        argv = [sys.executable, "-m", "app", "serve", "--port", str(port)]
    else:
        settings = {}
        argv = [sys.executable, "-m", "bench.bare_server", "--port", str(port)]
    server = ServerProcess(kind, argv, {**os.environ, **settings}, port, folder / f"{kind}.log", core)
    return server, settings


def sqlite_url(folder: Path) -> str:
    """The URL of the run's SQLite file in ``folder``."""
    return f"sqlite:///{folder / 'bench.db'}"


@contextlib.asynccontextmanager
async def launch(kind: str, config: Config, folder: Path, core: int | None,
                 analyses: dict[str, Any] | None = None) -> AsyncIterator[tuple[Target, Any]]:
    """Start the servers of a run, all on ``core``, and yield them with their settings (for the setup line).

    ``bare``: the yardstick. ``cucumber``: as ``config.mode`` says, one process on a SQLite file in
    ``folder`` or on a PostgreSQL database created for the run, or ``config.processes`` processes of
    a :class:`~bench.cluster.Cluster` (its own database and Redis prefix, no proxy: each table's
    traffic goes straight to a process, see :class:`~bench.targets.Target`). On leaving, stops them
    and drops the database. Raises ``RuntimeError`` when a server does not start, and SQLAlchemy's or
    Redis's errors when their servers cannot be reached.

    With ``config.analyses`` (one process of ours), the finished matches are stored before the server
    starts (:func:`store_finished_matches`), and how far its coach got with them is put in ``analyses``
    once it has stopped (:func:`count_analyses`), beside what the caller may have put there.
    """
    suffix = secrets.token_hex(6)
    if kind == "cucumber" and config.cluster is not None:
        cluster = Cluster(folder / "cluster", processes=config.processes, postgres_url=config.postgres_url,
                          redis_url=config.redis_url, settings=server_settings(config), with_proxy=False, core=core,
                          database=f"cucumber_bench_{suffix}", redis_prefix=f"cucumber-bench-{suffix}")
        try:
            await asyncio.to_thread(cluster.start)
            members = tuple(Member(app.name, app.pid or 0, app.port, core) for app in cluster.apps)
            yield (Target(members, relayed=config.cluster == "relayed", database_url=cluster.database_url,
                          redis_url=config.redis_url),
                   {"DATABASE_URL": shown(cluster.database_url), "CUCUMBER_REDIS_URL": shown(config.redis_url),
                    "CUCUMBER_REDIS_PREFIX": cluster.redis_prefix, **server_settings(config)})
        finally:
            await asyncio.to_thread(cluster.close)
        return
    fresh = FreshDatabase(config.postgres_url, f"cucumber_bench_{suffix}")
    try:
        if kind == "cucumber" and config.database == "postgres":
            await asyncio.to_thread(fresh.create)
        database_url = config.env.get("DATABASE_URL") or fresh.url or sqlite_url(folder)
        stored: list[str] = []
        if kind == "cucumber" and config.analyses:
            note(f"{kind}: storing {config.analyses} finished matches for the coach to analyse")
            stored = await asyncio.to_thread(store_finished_matches, database_url, config)
        server, settings = start_server(kind, config, folder, core, fresh.url or None)
        if fresh.url and "DATABASE_URL" not in config.env:
            settings["DATABASE_URL"] = shown(fresh.url)
        try:
            await server.wait_ready()
            member = Member(kind, server.pid, server.port, core)
            yield Target((member,), database_url=fresh.url or None), settings
        finally:
            await asyncio.to_thread(server.stop)
            if stored and analyses is not None:
                analyses.update(await asyncio.to_thread(count_analyses, database_url, stored))
    finally:
        await asyncio.to_thread(fresh.drop)


def shown(url: str) -> str:
    """``url`` with its password, if any, hidden: for the setup line."""
    from sqlalchemy import make_url

    return make_url(url).render_as_string(hide_password=True)


def routed_as_asked(target: Target, tables: list[Table], owners: dict[str, str]) -> int | None:
    """How many of ``tables`` talk to the process the route asks for: their room's owner, or with
    ``target.relayed`` another process. ``None`` for one process (there is no other)."""
    if len(target.members) < 2:
        return None
    names = {member.port: member.name for member in target.members}
    routed = 0
    for table in tables:
        mine = owners.get(table.code, "").startswith(f"{names[table.port]}-")
        routed += mine != target.relayed
    return routed


async def set_up(kind: str, config: Config, target: Target, tables: list[Table]) -> tuple[list[Table], dict[str, Any]]:
    """Open the run's tables (added to ``tables`` as they open, so that they can be closed whatever happens),
    connect their sockets and start their matches; returns the tables that can play and the setup's figures."""
    pids = [member.pid for member in target.members]
    count = max(config.tables if config.duration > 0 else 0,
                config.flat_tables if config.flat_duration > 0 else 0)
    described = ", ".join(f"{member.name} pid {member.pid} port {member.port}" for member in target.members)
    note(f"{kind}: {described}; opening {count} tables")
    began = time.perf_counter()
    tables += await open_tables(target, config, count)
    opened = time.perf_counter()
    rss_before = sum(rss_mb(pid) for pid in pids)
    note(f"{kind}: connecting {count * config.sockets_per_table} sockets")
    failed = await connect_tables(tables, config.page, config.languages)
    unsettled = await settle(tables, Table.settled)
    connected = time.perf_counter()
    rss_after = sum(rss_mb(pid) for pid in pids)
    sockets = sum(len(table.live()) for table in tables)
    note(f"{kind}: starting the matches")
    setup = Stats()
    for table in tables:
        table.stats = setup
        move = table.next_move()
        if move is not None:
            await table.act(move, setup)
    playing = [table for table in tables if not table.broken()]
    unstarted = set(await settle(playing, Table.started))
    usable = [table for table in playing if table not in unstarted]
    note(f"{kind}: playing each table some way into its first deal")
    spread_plays = await spread(usable, setup)
    unspread = set(await settle(usable, lambda table: table.settled() and not table.pending))
    usable = [table for table in usable if table not in unspread]
    into_deal = Counter(cards_into_deal(table) for table in usable)
    return usable, {
        "tables": count, "players": config.players, "page": config.page, "chat": config.chat,
        "languages": list(config.languages),
        "preset": config.preset,
        "sockets": sockets, "sockets_failed": failed, "tables_unsettled": len(unsettled),
        "tables_left_out": count - len(usable),
        "spread_plays": spread_plays,
        # The bare server's state shows no card played: only ours says where each table is in its deal.
        "tables_by_cards_into_deal": dict(sorted(into_deal.items())) if kind == "cucumber" else None,
        "open_tables_s": round(opened - began, 2), "connect_s": round(connected - opened, 2),
        "rss_before_sockets_mb": round(rss_before, 1), "rss_after_sockets_mb": round(rss_after, 1),
        "rss_per_socket_kb": round((rss_after - rss_before) * 1024 / sockets, 1) if sockets else None,
        "errors": dict(setup.errors),
    }


async def bench_server(kind: str, config: Config, folder: Path, cores: tuple[int | None, int | None],
                       open_files: int) -> dict[str, dict[str, Any]]:
    """Start the servers of ``kind`` (:func:`launch`), set up the tables, run the phases, print a line for
    each; returns the phase lines."""
    tables: list[Table] = []
    lines: dict[str, dict[str, Any]] = {}
    mode = config.mode if kind == "cucumber" else "bare"
    disk = folder if mode == "sqlite" else None  # the disk the plays wait for (the bare server has none)
    analyses: dict[str, Any] = {}
    async with launch(kind, config, folder, cores[0], analyses) as (target, settings):
        services = await asyncio.to_thread(Services, target.database_url, target.redis_url)
        try:
            usable, figures = await set_up(kind, config, target, tables)
            members = target.members
            lines["setup"] = {
                "server": kind, "phase": "setup", "mode": mode, "pid": members[0].pid, "port": members[0].port,
                "processes": [{"name": member.name, "pid": member.pid, "port": member.port} for member in members],
                "settings": settings or "uvicorn defaults",
                "database_fs": filesystem_of(folder) if mode == "sqlite" else None,
                "server_core": cores[0], "generator_core": cores[1], "open_files": open_files,
                "tables_routed_as_asked": routed_as_asked(target, tables, await asyncio.to_thread(services.owners)),
                **figures,
            }
            emit(lines["setup"])
            if config.duration > 0:
                note(f"{kind}: human pace, {config.tables} tables for {config.duration:g} s")
                figures = await run_phase(target, services, usable[:config.tables], config.pace, config.duration,
                                          config.chat, disk)
                lines["pace"] = {"server": kind, "phase": "pace", "mode": mode, "pace_s": config.pace, **figures}
                emit(lines["pace"])
            if config.flat_duration > 0:
                note(f"{kind}: flat out, {config.flat_tables} tables for {config.flat_duration:g} s")
                figures = await run_phase(target, services, usable[:config.flat_tables], 0, config.flat_duration,
                                          disk=disk)
                lines["flat"] = {"server": kind, "phase": "flat", "mode": mode, **figures}
                emit(lines["flat"])
            if kind == "cucumber" and config.analyses:  # before the server stops, while its workers run
                analyses["coach_workers"] = coach_workers(members[0].pid)
        finally:
            services.close()
            await close_sockets(tables)
    if analyses:
        lines["analyses"] = {"server": kind, "phase": "analyses", "mode": mode, **analyses}
        emit(lines["analyses"])
    return lines


async def close_sockets(tables: list[Table]) -> None:
    """Drop every client socket at once (the server is gone or going) and end their readers."""
    readers = []
    for table in tables:
        for sock in table.sockets:
            if sock.ws is not None and sock.ws.transport is not None:
                sock.ws.transport.abort()
            if sock.reader is not None:
                sock.reader.cancel()
                readers.append(sock.reader)
    await asyncio.gather(*readers, return_exceptions=True)


def ratio(ours: Any, bare: Any) -> float | None:
    if not isinstance(ours, (int, float)) or not isinstance(bare, (int, float)) or not bare:
        return None
    return round(ours / bare, 2)


def ratios(cucumber: dict[str, dict[str, Any]], bare: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The final line: cucumber's figures divided by the bare server's."""
    line: dict[str, Any] = {"server": "cucumber/bare", "phase": "ratios"}
    if "pace" in cucumber and "pace" in bare:
        for key in ("p50_ms", "p99_ms", "server_cpu", "server_cpu_ms_per_play"):
            line[f"pace_{key}"] = ratio(cucumber["pace"][key], bare["pace"][key])
    if "flat" in cucumber and "flat" in bare:
        for key in ("plays_per_s", "p99_ms", "server_cpu", "server_cpu_ms_per_play"):
            line[f"flat_{key}"] = ratio(cucumber["flat"][key], bare["flat"][key])
    line["rss_per_socket_kb"] = ratio(cucumber["setup"]["rss_per_socket_kb"], bare["setup"]["rss_per_socket_kb"])
    return line


async def run(config: Config, folder: Path, cores: tuple[int | None, int | None], open_files: int) -> None:
    """Benchmark the servers the config asks for, one after the other, and print the ratios."""
    results = {}
    for kind in ("cucumber", "bare"):
        if (kind == "cucumber" and config.only_bare) or (kind == "bare" and config.skip_bare):
            continue
        results[kind] = await bench_server(kind, config, folder, cores, open_files)
    if len(results) == 2:
        emit(ratios(results["cucumber"], results["bare"]))


def main(*, tables: int = 1000, players: int = 4, pace: float = 3.0, duration: float = 30.0,
         flat_tables: int = 60, flat_duration: float = 15.0, page: bool = False, skip_bare: bool = False,
         only_bare: bool = False, port: int = 0, preset: str = "quick", seed: int = 1,
         env: list[str] | tuple[str, ...] = (), languages: str = "en", chat: bool = False,
         database: str | None = None, cluster: str | None = None, processes: int = 2,
         postgres_url: str | None = None, redis_url: str | None = None, analyses: int = 0) -> int:
    """Run the load benchmark and print its JSON lines; returns the exit status (2: bad options, 1: a
    server, the database or Redis failed).

    ``database``: ``sqlite`` (the default for one process) or ``postgres`` (a database created on
    ``postgres_url`` for the run, and dropped); ``cluster``: ``owner`` or ``relayed`` for
    ``processes`` processes on PostgreSQL and Redis (``redis_url``) instead of one. The URLs default
    to the servers on this machine (:data:`~bench.cluster.DEFAULT_POSTGRES_URL`, ``…_REDIS_URL``).
    ``analyses``: finished matches stored for the coach before our server starts (one process only; see
    :func:`store_finished_matches`), and a line of how many it analysed during the run.
    """
    from redis.exceptions import RedisError
    from sqlalchemy.exc import SQLAlchemyError

    from app.game import PRESETS
    from app.storage import StorageError

    try:
        if cluster is not None and cluster not in ROUTES:
            raise ValueError(f"--cluster is one of {', '.join(ROUTES)}, not {cluster!r}")
        if cluster is not None and database == "sqlite":
            raise ValueError("a cluster runs on PostgreSQL, not SQLite (leave --database out)")
        database = database or ("postgres" if cluster is not None else "sqlite")
        if database not in DATABASES:
            raise ValueError(f"--database is one of {', '.join(DATABASES)}, not {database!r}")
        if analyses < 0 or (analyses and cluster is not None):
            raise ValueError("--analyses is a number not below 0, for one process (leave --cluster out)")
        if analyses and preset not in PRESETS:
            raise ValueError(f"--preset is one of {', '.join(PRESETS)}, not {preset!r}")
        if cluster is not None and (processes < 2 or port):
            raise ValueError("a cluster has at least 2 --processes, each on a free port (no --port)")
        config = Config(tables=tables, players=players, pace=pace, duration=duration, flat_tables=flat_tables,
                        flat_duration=flat_duration, page=page, chat=chat, skip_bare=skip_bare,
                        only_bare=only_bare,
                        port=port, preset=preset, seed=seed, env=parse_env(env),
                        languages=tuple(code.strip() for code in languages.split(",") if code.strip()) or ("en",),
                        database=database, cluster=cluster, processes=processes, analyses=analyses,
                        postgres_url=postgres_url or DEFAULT_POSTGRES_URL, redis_url=redis_url or DEFAULT_REDIS_URL)
        if tables < 1 or flat_tables < 1 or not 2 <= players <= 7 or pace < 0 or duration < 0 or flat_duration < 0:
            raise ValueError("--tables and --flat-tables are at least 1, --players 2 to 7, times not negative")
        if skip_bare and only_bare:
            raise ValueError("--skip-bare and --only-bare exclude each other")
    except ValueError as error:
        print(f"cucumber bench load: {error}", file=sys.stderr)
        return 2
    open_files = raise_open_files()
    cores = choose_cores()
    if cores[1] is not None:
        os.sched_setaffinity(0, {cores[1]})
    folder = database_folder()
    try:
        asyncio.run(run(config, folder, cores, open_files))
    except (RuntimeError, SQLAlchemyError, RedisError, StorageError) as error:
        print(f"cucumber bench load: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
