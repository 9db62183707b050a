"""A Cucumber cluster on one machine: several ``cucumber serve`` processes sharing a PostgreSQL
database and a Redis key prefix of their own, behind nginx routing by room code.

The cluster tests, the browser tests and ``cucumber bench load --cluster`` use
it. Each cluster creates its own database (``cucumber_cluster_<random>``, a
:class:`FreshDatabase`, which the load benchmark also gives a single process)
on the given PostgreSQL server and drops it when closed, uses Redis keys under a
prefix of its own (deleted when closed) and runs nginx as a child process with
its configuration in a temporary folder, rendered from the one template in
``deploy/nginx/cucumber.conf.template`` that ``deploy/compose.yaml`` uses too.
Every port is a free one, so runs cannot collide.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
TEMPLATE = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "cucumber.conf.template"
"""The routing part of the nginx configuration, shared with deploy/compose.yaml."""
STARTUP_SECONDS = 60.0
SOCKET_ROUTES = ("cucumber_rooms", "cucumber_random")

_TEMPLATE_VARIABLE = re.compile(r"\$\{(CUCUMBER_[A-Z_]+)\}")

FAST_PLAY_SETTINGS = {
    "CUCUMBER_DEAL_PAUSE_SECONDS": "0",
    "CUCUMBER_BOT_DELAY_SECONDS": "0",
    "CUCUMBER_RATE_LIMITS": "false",  # every client comes from 127.0.0.1, through the proxy
    "CUCUMBER_AWAY_GRACE_SECONDS": "600",  # a failover must not hand a seat to a bot
    "CUCUMBER_ROOM_IDLE_SECONDS": "3600",
    "CUCUMBER_UNUSED_ROOM_SECONDS": "3600",
    "CUCUMBER_LOG_LEVEL": "warning",
}
"""Settings for tables of programs that play at once: no pauses, no limits per address."""


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def http_json(url: str, *, method: str = "GET", body: Any = None, timeout: float = 5) -> tuple[int, Any]:
    """``(status, decoded JSON body or None)`` of one request; raises ``OSError`` when nothing answers."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        with error:
            status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


# ---------------------------------------------------------------------- what the machine has


def nginx_binary() -> str | None:
    """The path of nginx (``$PATH``, then Debian's ``/usr/sbin``), or ``None``."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


def cluster_missing() -> str | None:
    """Why this build cannot run a cluster (no cluster settings), or ``None``."""
    from app.config.settings import Settings

    if "redis_url" not in Settings.model_fields:
        return "this build of the server has no cluster mode (no CUCUMBER_REDIS_URL setting)"
    return None


# ---------------------------------------------------------------------- a database of its own


@dataclass
class FreshDatabase:
    """A PostgreSQL database of its own, ``name``, on the server at ``server_url`` (a SQLAlchemy URL).

    :meth:`create` makes it (empty: the server migrates it, or ``cucumber db upgrade`` does) and returns
    its URL; :meth:`drop` drops it, cutting any connection still open. Both raise SQLAlchemy's errors
    when the server cannot be reached.
    """

    server_url: str = DEFAULT_POSTGRES_URL
    name: str = field(default_factory=lambda: f"cucumber_cluster_{secrets.token_hex(6)}")
    url: str = ""
    """The database's URL once created, ``""`` before and after."""

    def create(self) -> str:
        """Create the database; returns its URL (password included, for the processes' environment)."""
        from sqlalchemy import make_url

        self._admin('CREATE DATABASE "{}"')
        self.url = make_url(self.server_url).set(database=self.name).render_as_string(hide_password=False)
        return self.url

    def drop(self) -> None:
        """Drop the database if this object created it (idempotent)."""
        if self.url:
            self._admin('DROP DATABASE IF EXISTS "{}" WITH (FORCE)')
            self.url = ""

    def _admin(self, statement: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.pool import NullPool

        admin = create_engine(self.server_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as connection:
                connection.exec_driver_sql(statement.format(self.name))
        finally:
            admin.dispose()


# ---------------------------------------------------------------------- nginx


def render_template(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``${CUCUMBER_NAME}`` replaced by ``values[name]``, as the nginx image's
    envsubst does; nginx's own ``$variables`` stay. Raises ``KeyError`` for a name without a value."""
    return _TEMPLATE_VARIABLE.sub(lambda found: values[found.group(1)], text)


def foreground_conf(folder: Path, http: str, *, connections: int = 8192) -> str:
    """The main configuration of an nginx run in the foreground, as a child process of one worker with its
    files in ``folder`` (made here, with the folders of its temporary files), no access log, and ``http``
    (lines, indented) in its ``http`` block; ``connections`` is the worker's limit."""
    folder.mkdir(parents=True, exist_ok=True)
    temporary = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    for temp in temporary:
        (folder / temp).mkdir(exist_ok=True)
    paths = "".join(f"    {temp}_temp_path {folder}/{temp};\n" for temp in temporary)
    return (f"daemon off;\nmaster_process off;\nworker_processes 1;\npid {folder}/nginx.pid;\n"
            f"error_log {folder}/error.log warn;\nevents {{ worker_connections {connections}; }}\n"
            f"http {{\n    access_log off;\n{paths}{http}}}\n")


class Proxy:
    """nginx as a child process (not a daemon), its configuration and files in ``folder``.

    ``upstreams`` are the processes' ``host:port``; ``socket_route`` is where
    WebSockets go (see the template): ``cucumber_rooms`` or ``cucumber_random``.
    """

    def __init__(self, folder: Path, upstreams: list[str], *, socket_route: str = "cucumber_rooms") -> None:
        if socket_route not in SOCKET_ROUTES:
            raise ValueError(f"socket_route must be one of {SOCKET_ROUTES}, not {socket_route!r}")
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx)")
        self.binary, self.folder, self.port = binary, folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "cucumber.conf").write_text(render_template(TEMPLATE.read_text(), {
            "CUCUMBER_PROXY_PORT": f"127.0.0.1:{self.port}", "CUCUMBER_SOCKET_ROUTE": socket_route}))
        # max_fails=1 (nginx's default): a refused connection takes a process out for fail_timeout, and
        # the request goes to the next one at once.
        (folder / "cucumber-servers.conf").write_text(
            "".join(f"server {upstream} max_fails=1 fail_timeout=2s;\n" for upstream in upstreams))
        (folder / "nginx.conf").write_text(foreground_conf(folder, """\
    # Which process answered: the tests check the routing with it (not in the shared template, so
    # that a production proxy does not tell the world its addresses).
    add_header X-Cucumber-Upstream $upstream_addr always;
    include cucumber.conf;
"""))

    def start(self) -> None:
        """Start nginx and wait until it answers; raises ``RuntimeError`` with its log if it does not."""
        log = self.folder / "error.log"
        with open(self.folder / "stderr.log", "ab") as out:
            self.process = subprocess.Popen(
                [self.binary, "-p", f"{self.folder}/", "-c", str(self.folder / "nginx.conf"), "-e", str(log)],
                stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            with contextlib.suppress(OSError):
                if http_json(f"{self.url}/nginx-health", timeout=1)[0] == 200:
                    return
            time.sleep(0.05)
        self.stop()
        errors = "".join(path.read_text() for path in (log, self.folder / "stderr.log") if path.exists())
        raise RuntimeError(f"nginx did not start:\n{errors[-3000:]}")

    def stop(self) -> None:
        """Fast shutdown (``SIGTERM``), then ``SIGKILL`` if it lingers."""
        _end(self.process)


def _end(process: subprocess.Popen[bytes] | None, wait: float = 15) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


# ---------------------------------------------------------------------- server processes


class AppProcess:
    """One ``cucumber serve`` of the cluster on its own port; it keeps its port and name across restarts.

    With a ``core``, the process runs on that core only (a benchmark's pinning).
    """

    def __init__(self, name: str, env: dict[str, str], log: Path, *, core: int | None = None) -> None:
        self.name, self.port, self.log, self.core = name, free_port(), log, core
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**env, "CUCUMBER_PROCESS_NAME": name}
        self.process: subprocess.Popen[bytes] | None = None
        self.signalled_at = 0.0
        """When :meth:`kill` or :meth:`terminate` last sent its signal (``time.monotonic()``)."""
        self.lives: list[tuple[int, float, float | None]] = []
        """``(pid, started, ended)`` of each run, in ``time.time()`` seconds (``ended`` ``None`` while it runs)."""

    @property
    def pid(self) -> int | None:
        """The process id while it runs."""
        return self.process.pid if self.alive else None  # type: ignore[union-attr]

    @property
    def alive(self) -> bool:
        """Whether the process runs."""
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process (without waiting for it: see :meth:`wait_ready`); raises ``RuntimeError``
        while it runs."""
        if self.alive:
            raise RuntimeError(f"{self.name} runs already")
        # In the child, before exec, so that every thread it starts runs on the core too.
        pin = None if self.core is None else functools.partial(os.sched_setaffinity, 0, {self.core})
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env, stdout=out, stderr=subprocess.STDOUT,
                preexec_fn=pin)  # noqa: PLW1509 (one system call in the child, nothing that takes a lock)
        self.lives.append((self.process.pid, time.time(), None))

    def wait_ready(self, timeout: float = STARTUP_SECONDS) -> None:
        """Wait until the process takes rooms: ``/readyz`` answers 200 (``/healthz`` on a build
        without ``/readyz``). Raises ``RuntimeError`` with the end of its log if it exits or takes
        longer than ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive:
                raise RuntimeError(f"{self.name} exited:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                status, _ = http_json(f"{self.url}/readyz", timeout=2)
                if status == 404:
                    status, _ = http_json(f"{self.url}/healthz", timeout=2)
                if status == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} was not ready after {timeout:.0f} s:\n{self.log_tail()}")

    def health(self) -> dict[str, Any] | None:
        """The ``/healthz`` answer, or ``None`` when the process does not answer."""
        try:
            status, body = http_json(f"{self.url}/healthz", timeout=2)
        except OSError:
            return None
        return body if status == 200 and isinstance(body, dict) else None

    def kill(self) -> None:
        """``kill -9``: no shutdown, no handover."""
        assert self.process is not None
        self.signalled_at = time.monotonic()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._ended()

    def terminate(self, timeout: float = 60) -> float:
        """``SIGTERM`` (a clean shutdown that hands the rooms over) and wait for the exit; returns the
        seconds it took. Raises ``subprocess.TimeoutExpired`` after ``timeout`` seconds (the process is
        then killed)."""
        assert self.process is not None
        started = self.signalled_at = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            self._ended()
            raise
        self._ended()
        return time.monotonic() - started

    def stop(self) -> None:
        """End the process if it runs (``SIGTERM``, ``SIGKILL`` if it lingers)."""
        if self.alive:
            _end(self.process)
            self._ended()

    def log_tail(self, size: int = 3000) -> str:
        """The end of the process's log (all its runs)."""
        return self.log.read_text(errors="replace")[-size:] if self.log.exists() else ""

    def _ended(self) -> None:
        if self.lives and self.lives[-1][2] is None:
            pid, started, _ = self.lives[-1]
            self.lives[-1] = (pid, started, time.time())


@dataclass
class Cluster:
    """Several server processes on a database and a Redis prefix of their own, behind nginx.

    ``with Cluster(folder) as cluster:`` creates the database (migrated once,
    before the processes start), starts every process and the proxy, and on
    leaving stops them, deletes the Redis keys and drops the database.
    ``settings`` are environment variables for the processes on top of
    :data:`FAST_PLAY_SETTINGS` and the cluster's own. Without ``with_proxy`` no
    nginx is started (clients then go to each process's own ``url``); with a
    ``core``, every process runs on that core only.
    """

    folder: Path
    processes: int = 3
    postgres_url: str = DEFAULT_POSTGRES_URL
    redis_url: str = DEFAULT_REDIS_URL
    socket_route: str = "cucumber_rooms"
    settings: dict[str, str] = field(default_factory=dict)
    with_proxy: bool = True
    core: int | None = None
    database: str = field(default_factory=lambda: f"cucumber_cluster_{secrets.token_hex(6)}")
    redis_prefix: str = field(default_factory=lambda: f"cucumber-test-{secrets.token_hex(6)}")
    apps: list[AppProcess] = field(default_factory=list)
    proxy: Proxy | None = None
    database_url: str = ""
    _fresh: FreshDatabase | None = field(default=None, init=False, repr=False)

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        """The proxy's base URL, ``http://127.0.0.1:PORT``."""
        assert self.proxy is not None
        return self.proxy.url

    def start(self) -> None:
        """Create and migrate the database, start the processes, wait until each is ready, start nginx
        (unless ``with_proxy`` is false)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._fresh = FreshDatabase(self.postgres_url, self.database)
        self.database_url = self._fresh.create()
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("CUCUMBER_") and key != "DATABASE_URL"}
        env.update({**FAST_PLAY_SETTINGS, "DATABASE_URL": self.database_url, "PYTHONUNBUFFERED": "1",
                    "CUCUMBER_REDIS_URL": self.redis_url, "CUCUMBER_REDIS_PREFIX": self.redis_prefix,
                    **self.settings})
        # Migrate once, so that the processes do not race to do it.
        upgrade = subprocess.run([sys.executable, "-m", "app", "db", "upgrade"], env=env, capture_output=True,
                                 text=True, timeout=120, check=False)
        if upgrade.returncode != 0:
            raise RuntimeError(f"cucumber db upgrade failed:\n{upgrade.stdout}{upgrade.stderr}")
        self.apps = [AppProcess(f"app{index}", env, self.folder / f"app{index}.log", core=self.core)
                     for index in range(self.processes)]
        for app in self.apps:
            app.start()
        for app in self.apps:
            app.wait_ready()
        if not self.with_proxy:
            return
        self.proxy = Proxy(self.folder / "nginx", [f"127.0.0.1:{app.port}" for app in self.apps],
                           socket_route=self.socket_route)
        self.proxy.start()

    def close(self) -> None:
        """Stop nginx and every process, delete the cluster's Redis keys, drop its database."""
        if self.proxy is not None:
            self.proxy.stop()
        for app in self.apps:
            app.stop()
        with contextlib.suppress(Exception):
            self._forget_redis_keys()
        if self._fresh is not None:
            self._fresh.drop()
        self.database_url = ""

    def restart(self, app: AppProcess) -> None:
        """Start ``app`` again on its port and wait until it is ready."""
        app.start()
        app.wait_ready()

    def app_named(self, owner: str) -> AppProcess | None:
        """The process whose name starts the owner id ``owner`` (``app1-…``), or ``None``."""
        for app in self.apps:
            if owner == app.name or owner.startswith((f"{app.name}-", f"{app.name}:", f"{app.name}.")):
                return app
        return None

    def logs(self) -> str:
        """The end of every process's log and nginx's, for a failure message."""
        parts = [f"--- {app.name}\n{app.log_tail()}" for app in self.apps]
        if self.proxy is not None:
            error_log = self.proxy.folder / "error.log"
            if error_log.exists():
                parts.append(f"--- nginx\n{error_log.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)

    def _forget_redis_keys(self) -> None:
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
        try:
            keys = list(client.scan_iter(match=f"{self.redis_prefix}*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
