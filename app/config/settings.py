"""Server settings, read once from the environment (and a ``.env`` file).

Every variable is ``CUCUMBER_<NAME>`` except ``DATABASE_URL``; tests build
their own :class:`Settings` and pass it to the app.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from limits import parse_many
from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.storage.batch import MAX_WINDOW_SECONDS

DEFAULT_PUSH_ENDPOINTS = ("https://fcm.googleapis.com/,https://updates.push.services.mozilla.com/,"
                          "https://web.push.apple.com/,https://*.notify.windows.com/")
"""The push services of Chrome and Edge's Chromium (Google), Firefox (Mozilla), Safari (Apple) and Windows."""
DEFAULT_WEBHOOK_HOSTS = "discord.com,discordapp.com,hooks.slack.com"
RESERVED_SUFFIXES = (".test", ".invalid", ".localhost", ".example", ".local")
"""Names no push service takes as a VAPID subject's (RFC 2606, RFC 6761)."""


def subject_fault(subject: str) -> str | None:
    """Why ``subject`` cannot be a VAPID subject Apple's push service takes, or ``None`` when it can: it must be
    ``mailto:`` an address or an ``https:`` URL, at a domain name that is not localhost, not an IP address,
    not ``example.`` anything and not under ``.test``, ``.invalid``, ``.localhost``, ``.example`` or
    ``.local``."""
    if subject.startswith("mailto:"):
        local, at, domain = subject.removeprefix("mailto:").rpartition("@")
        if not at or not local or not domain:
            return "a mailto: subject needs an address, such as mailto:you@your.domain"
    elif subject.startswith("https:"):
        try:
            domain = urlsplit(subject).hostname or ""
        except ValueError:
            domain = ""
        if not domain:
            return "an https: subject needs a host, such as https://cards.your.domain"
    else:
        return "the subject must start with mailto: or https:"
    domain = domain.strip("[]").lower().rstrip(".")
    try:
        ipaddress.ip_address(domain)
    except ValueError:
        pass
    else:
        return f"{domain} is an IP address; a push service wants a domain name"
    if domain in ("localhost", "test", "invalid", "local") or "." not in domain or \
            domain.endswith(RESERVED_SUFFIXES) or f".{domain}".find(".example.") >= 0:
        return f"{domain} is a name for tests, examples or this machine; a push service wants a real domain name"
    return None


class Settings(BaseSettings):
    """Configuration of one server process.

    Times are in seconds, sizes in bytes. ``database_url`` is a SQLAlchemy
    URL: ``sqlite:///path/to/file.db`` (the default, created on first run)
    or ``postgresql+psycopg://user:password@host:5432/dbname``.
    """

    model_config = SettingsConfigDict(env_prefix="CUCUMBER_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    database_url: str = Field(
        default="sqlite:///cucumber.db",
        validation_alias=AliasChoices("DATABASE_URL", "CUCUMBER_DATABASE_URL"),
    )
    public_url: str | None = None
    """Base URL people use to reach the server (e.g. ``https://cards.example.org``);
    used for room links and the WebSocket Origin check behind a proxy."""
    allowed_origins: list[str] = []
    """Extra Origins allowed to open WebSockets and post forms, besides the server's own."""
    trusted_proxies: str = "127.0.0.1"
    """Reverse proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed:
    comma-separated addresses or networks (``172.17.0.1``, ``10.0.0.0/8``), or ``*`` for
    any sender (only when nothing but the proxy can reach the server). Like uvicorn's
    ``forwarded_allow_ips``; from anyone else those headers are ignored."""
    room_idle_seconds: float = Field(default=3600.0, gt=0)
    """A room with nobody connected and no change for this long is removed from memory."""
    unused_room_seconds: float = Field(default=600.0, gt=0)
    """A room that never started a match, with nobody connected and no change for this
    long, is deleted (not restored after a restart)."""
    max_message_bytes: int = Field(default=4096, ge=256)
    max_rooms: int = Field(default=1000, ge=1)
    """Rooms one process holds at most; opening another is refused until some close."""
    max_connections_per_room: int = Field(default=100, ge=2)
    """Live connections (players' tabs and spectators) one room accepts at most."""
    send_queue_size: int = Field(default=64, ge=1)
    """Messages waiting for one connection; a connection whose queue is full is dropped."""
    bot_delay_seconds: float = Field(default=0.8, ge=0)
    away_grace_seconds: float = Field(default=60.0, ge=0)
    """A seated player with no connection for this long is played by a bot until they return."""
    seat_link_seconds: float = Field(default=600.0, gt=0)
    """How long a link that moves a seat to another browser works (once). Links live in the
    server's memory: a restart ends those not used yet."""
    heartbeat_seconds: float = Field(default=10.0, gt=0)
    """How often an open table page says it is still looked at (more often when the away grace is short)."""
    slow_hour_seconds: float = Field(default=3600.0, gt=0)
    """How many seconds one hour of a slow table lasts: it scales the turns' deadlines, the reminders, vacations
    and a slow room's lifetime (for tests and demonstrations). Quiet hours keep real clock times."""
    deal_pause_seconds: float = Field(default=4.0, ge=0)
    """Pause after a deal, so everyone can read its summary, before the next deal."""
    hard_bot_budget_seconds: float = Field(default=0.15, gt=0)
    analysis_workers: int = Field(default=1, ge=0, le=64)
    """Worker processes (at the lowest CPU priority) in which the coach analyses every finished match
    (docs/coach.md); 0 turns the analysis off. An in-memory SQLite database gets none."""
    commit_window_seconds: float = Field(default=0.008, ge=0, le=MAX_WINDOW_SECONDS)
    """How long a play (or another write a room waits for) that finds the database writer idle waits for
    others to share its transaction and its fsync, the commit window (``app.storage.batch``); 0 commits
    each at once. Tables at human pace then share commits: less CPU a play, for a little more time between
    a play and its sight (docs/performance.md)."""
    commit_window_load: float = Field(default=0.7, ge=0)
    """The server's CPU time a second (a fraction of one core, every thread's) from which the commit window
    opens; it closes again below 0.1 less (``app.storage.load``). Below it, with CPU to spare, each play
    commits at once, sooner seen; 0 opens the window at any load."""
    ws_compression: bool = False
    """Compress WebSocket frames (permessage-deflate). Off: it saves bandwidth on the table page's HTML
    regions but costs every open socket its own compression state (tens of KB of memory) and CPU per
    frame; a proxy can compress instead."""
    vapid_subject: str | None = None
    """Who push services may write to about this server's pushes (VAPID, RFC 8292): ``mailto:you@your.domain``
    or an ``https:`` URL. Set, or with an https ``public_url`` (then its origin is the subject), Web Push is on
    (docs/slow-tables.md); a localhost, IP-address, ``example.``, ``.test`` or ``.invalid`` subject refuses
    the start, as Apple's push service refuses it."""
    push_endpoints: str = DEFAULT_PUSH_ENDPOINTS
    """The URL prefixes a browser's push endpoint must start with, comma-separated; a host may start with
    ``*.``. An entry naming http or a loopback host is sent to as listed; any other URL must be https to a
    name that resolves only to public addresses. Setting it replaces the defaults (the push services of
    Google, Mozilla, Apple and Microsoft)."""
    webhook_hosts: str = DEFAULT_WEBHOOK_HOSTS
    """The hosts (or URL prefixes, as in ``push_endpoints``) a table's chat webhook may be on, comma-separated."""
    log_level: str = "info"
    rate_limits: bool = True
    """Per-client-address limits on; ``false`` turns every ``limit_*`` off."""
    limit_rooms_created: str = "20/minute;200/day"
    """Tables one address may open (home page form and API). The ``limits`` notation,
    ``;`` between allowances that must all hold; empty for no limit. The defaults
    leave room for a group of friends behind one home router (one address)."""
    limit_joins: str = "60/minute"
    """Seats one address may take (room page form and API)."""
    limit_sockets: str = "120/minute"
    """WebSockets one address may open (table pages and the JSON protocol)."""
    limit_posts: str = "120/minute"
    """Requests other than GET, HEAD and OPTIONS one address may send, on top of the above."""
    limit_chat: str = "8/10 seconds;40/minute"
    """Chat messages and quick reactions one sender may write (a player by player id, a spectator by
    their anonymous id, whatever their address and however many tabs they have open)."""
    limit_socket_plays: str = "60/10 seconds"
    """Plays one connection may send: that many at once, refilled over the period. One
    allowance in the ``limits`` notation, empty for no limit; so are the four below."""
    limit_socket_host: str = "30/minute"
    """The host's actions (start, rules, clock, bots, seats) and leaving a seat, per connection."""
    limit_socket_syncs: str = "30/minute"
    """``sync`` messages one connection may send."""
    limit_socket_heartbeats: str = "20/10 seconds"
    """Heartbeats one connection may send (a page beats every 1 to 10 seconds)."""
    limit_socket_other: str = "20/minute"
    """Every other message one connection may send: unknown types, malformed or refused
    frames, a second ``hello``."""
    socket_close_after: float = Field(default=3.0, ge=0)
    """A connection that sends more than this many times its allowance of a kind in a burst is closed
    (1008); 0 never closes one (its messages over the allowance are still refused)."""
    metrics_allow: str = "127.0.0.1,::1"
    """Client addresses or networks that may read ``/metrics`` (comma-separated, ``*`` for
    anyone, empty for none); others get 404."""
    redis_url: str | None = None
    """Redis (``redis://host:6379/0``) shared by the processes of a cluster: room leases, and messages
    between processes. Set, with ``database_url`` on PostgreSQL, it switches cluster mode on; unset,
    the process runs alone and holds its database's lease."""
    redis_prefix: str = Field(default="cucumber", pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    """Prefix of every Redis key and channel of the cluster (``cucumber:room:ABCDE:owner``), so that
    several clusters (or test runs) can share one Redis."""
    lease_seconds: float = Field(default=5.0, ge=0.5)
    """How long a room's lease (a cluster) or the database's lease (alone) lasts unless renewed: a
    process that stops renewing loses its rooms to another process after this long."""
    lease_renew_seconds: float = Field(default=1.5, gt=0)
    """How often a process renews its leases; less than a third of ``lease_seconds``."""
    process_name: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]{1,40}$")
    """The first part of this process's id in logs, ``/healthz`` and the room owners' log (default:
    the host name); the process id and a random part follow."""
    stop_seconds: float = Field(default=20.0, gt=0)
    """How long a stop (SIGTERM, Ctrl-C) may take in all, from the signal to the exit. A request still sending
    its body when the stop begins is answered at once (503 ``server_stopping``, ``app.api.stopping``); half of
    it is for the other connections open to close (a request under way, a socket) before they are cut off; the
    rest for handing the rooms over (each room's last write, at most 10 s of it), leaving Redis and closing the
    database. A process still there a few seconds after it logs where it is stuck and exits with status 1.
    A container or service manager should wait longer than this before it kills the process."""

    @property
    def cluster(self) -> bool:
        """Whether this process runs in cluster mode (``redis_url`` set)."""
        return bool(self.redis_url)

    @model_validator(mode="after")
    def _check_cluster(self) -> Settings:
        """Refuse at start a configuration that cannot keep every room with exactly one owner."""
        if self.redis_url and self.database_url.startswith("sqlite"):
            raise ValueError("CUCUMBER_REDIS_URL (cluster mode) needs DATABASE_URL on PostgreSQL: the processes "
                             "of a cluster share one database, which a SQLite file cannot be. Set DATABASE_URL to "
                             "postgresql+psycopg://…, or unset CUCUMBER_REDIS_URL to run one process on SQLite.")
        if self.lease_renew_seconds * 3 > self.lease_seconds:
            raise ValueError(f"CUCUMBER_LEASE_RENEW_SECONDS ({self.lease_renew_seconds:g}) must be at most a third "
                             f"of CUCUMBER_LEASE_SECONDS ({self.lease_seconds:g}), so that a live process renews "
                             "its leases in time")
        return self

    @property
    def push_on(self) -> bool:
        """Whether Web Push is on: ``vapid_subject`` is set, or ``public_url`` is https."""
        return bool(self.vapid_subject) or urlsplit(self.public_url or "").scheme == "https"

    @property
    def push_subject(self) -> str | None:
        """The VAPID subject pushes are signed for: ``vapid_subject`` (an https one as its origin), else the
        origin of an https ``public_url``; ``None`` with push off."""
        subject = self.vapid_subject or (self.public_url if self.push_on else None)
        if subject is None or subject.startswith("mailto:"):
            return subject
        parts = urlsplit(subject)
        return f"https://{parts.hostname}"

    @model_validator(mode="after")
    def _check_push(self) -> Settings:
        """Refuse at start a VAPID subject the push services would refuse (:func:`subject_fault`)."""
        if self.vapid_subject == "":
            self.vapid_subject = None
        if self.push_on:
            subject = self.vapid_subject or self.public_url or ""
            fault = subject_fault(subject)
            if fault is not None:
                source = "CUCUMBER_VAPID_SUBJECT" if self.vapid_subject else "CUCUMBER_PUBLIC_URL (the VAPID subject)"
                raise ValueError(f"{source}: {fault}. Push notifications need a subject Apple's push service "
                                 "takes: set CUCUMBER_VAPID_SUBJECT to mailto: an address at your real domain.")
        return self

    @field_validator("limit_rooms_created", "limit_joins", "limit_sockets", "limit_posts", "limit_chat")
    @classmethod
    def _check_limits(cls, value: str) -> str:
        """Refuse at start a limit the ``limits`` notation cannot read (``20/minute;200/day``)."""
        if value.strip():
            parse_many(value)
        return value

    @field_validator("limit_socket_plays", "limit_socket_host", "limit_socket_syncs", "limit_socket_heartbeats",
                     "limit_socket_other")
    @classmethod
    def _check_socket_limit(cls, value: str) -> str:
        """Refuse at start a per-connection limit that is not one allowance (``30/minute``)."""
        if value.strip() and len(parse_many(value)) != 1:
            raise ValueError("a per-connection limit is one allowance, such as 30/minute")
        return value

    @field_validator("push_endpoints", "webhook_hosts")
    @classmethod
    def _check_allowed_urls(cls, value: str) -> str:
        """Refuse an entry that is neither a host nor an http(s) URL prefix with a host and without user name,
        password, query or fragment (``app.notify.urls.Entry`` reads them)."""
        entries = [entry.strip() for entry in value.split(",") if entry.strip()]
        for entry in entries:
            try:
                parts = urlsplit(entry if "://" in entry else f"https://{entry}/")
                parts.port  # noqa: B018 -- reading it checks it
            except ValueError:
                raise ValueError(f"{entry!r} cannot be read as a host or a URL prefix") from None
            if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc or \
                    parts.query or parts.fragment or "*" in parts.hostname.removeprefix("*."):
                raise ValueError(f"{entry!r} is not a host or an http(s) URL prefix (a host may start with *., "
                                 "and nothing else may be *; no user name, password, query or fragment)")
        return ",".join(entries)

    @field_validator("trusted_proxies", "metrics_allow")
    @classmethod
    def _check_proxies(cls, value: str) -> str:
        """Refuse an entry that is neither ``*``, an address nor a network (uvicorn would
        silently compare it as text and trust nobody; ``/metrics`` would fail on every request)."""
        entries = [entry.strip() for entry in value.split(",") if entry.strip()]
        if entries == ["*"]:
            return "*"
        for entry in entries:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an address or a network (* must stand alone)") from None
        return ",".join(entries)
