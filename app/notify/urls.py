"""Checks of the URLs the server sends requests to on a stranger's word: push endpoints and chat webhooks.

A URL is parsed into scheme, host, port and path, matched against the
operator's allowlist, and its host resolved; the request then goes to the
address that was checked (``app.notify.outbound``), so a name cannot point
elsewhere between the check and the request.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

PUSH_ENDPOINT_REFUSED = "push_endpoint_refused"
WEBHOOK_REFUSED = "webhook_refused"
MAX_URL_LENGTH = 2000
"""Characters of a URL at most (a push service's endpoint is a few hundred)."""
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})
RESOLVE_SECONDS = 3.0
"""How long a name's look-up may take before the URL is refused."""

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Looks a host name up: ``(host, port)`` → its addresses (text, IPv4 or IPv6). Raises ``OSError`` when the
name does not resolve."""


class RefusedUrl(Exception):
    """A URL the server does not send to. ``code`` is the refusal's stable code (``push_endpoint_refused`` or
    ``webhook_refused``); the message says why in English, without the URL (it may hold a secret)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


async def resolve_public(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, by the system's resolver (the event loop's ``getaddrinfo``), each
    once, in the order given. Raises ``OSError`` when it does not resolve, ``TimeoutError`` after
    :data:`RESOLVE_SECONDS`."""
    loop = asyncio.get_running_loop()
    found = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_SECONDS)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address, lower case) names this machine: ``localhost`` or a loopback
    address (127.0.0.0/8, ``::1``)."""
    address = _address(host)
    return host in LOOPBACK_NAMES or host.endswith(".localhost") or (address is not None and address.is_loopback)


@dataclass(frozen=True, slots=True)
class Parts:
    """A URL's parts as they are matched: lower-case ``scheme`` (http or https) and ``host`` (an IPv6 address
    without brackets), the ``port`` (the scheme's when not written), and ``path`` with its query."""

    scheme: str
    host: str
    port: int
    path: str

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``, the port written only when it is not the scheme's own."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if DEFAULT_PORTS[self.scheme] == self.port else f":{self.port}"
        return f"{self.scheme}://{host}{port}"

    @property
    def url(self) -> str:
        """The URL rebuilt from its parts (normalized: lower-case scheme and host, no default port)."""
        return self.origin + self.path


def split_url(url: object, code: str) -> Parts:
    """``url``'s parts, or :class:`RefusedUrl` (``code``) for anything but a plain http(s) URL: not text, too
    long, with white space or control characters, with userinfo (``user:pass@``), a fragment, a bad port,
    a host that is not ASCII, or a path with ``.``/``..`` segments."""
    if not isinstance(url, str) or not url:
        raise RefusedUrl(code, "the URL must be text")
    if len(url) > MAX_URL_LENGTH:
        raise RefusedUrl(code, f"the URL is longer than {MAX_URL_LENGTH} characters")
    if not url.isascii() or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url) or "\\" in url:
        raise RefusedUrl(code, "the URL holds characters a URL may not (spaces, control characters, non-ASCII)")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise RefusedUrl(code, "the URL cannot be read") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise RefusedUrl(code, "the URL must be https")
    if "@" in parts.netloc:
        raise RefusedUrl(code, "the URL must not carry a user name or password")
    if parts.fragment or url.endswith("#"):
        raise RefusedUrl(code, "the URL must not have a fragment")
    host = (parts.hostname or "").lower()
    if not host or host.endswith("."):
        raise RefusedUrl(code, "the URL has no host")
    path = parts.path or "/"
    if any(segment in (".", "..") or segment.lower() in ("%2e", "%2e%2e", ".%2e", "%2e.")
           for segment in path.split("/")):
        raise RefusedUrl(code, "the URL's path must not have . or .. segments")
    if parts.query:
        path = f"{path}?{parts.query}"
    return Parts(scheme, host, port if port is not None else DEFAULT_PORTS[scheme], path)


@dataclass(frozen=True, slots=True)
class Entry:
    """One allowed prefix: ``scheme``, ``host`` (``*.`` + a suffix for any host under it), ``port`` and ``path``
    (the path a URL's must start with)."""

    scheme: str
    host: str
    port: int
    path: str

    @property
    def listed_as_is(self) -> bool:
        """Whether the operator named http or a loopback host here: such a URL is sent to as listed, without
        the public-address check."""
        return self.scheme == "http" or is_loopback_host(self.host)

    def matches(self, parts: Parts) -> bool:
        """Whether URL ``parts`` fall under this entry: same scheme and port, the same host (or one under a
        ``*.`` host), and a path that starts with the entry's."""
        if parts.scheme != self.scheme or parts.port != self.port:
            return False
        if self.host.startswith("*."):
            if not parts.host.endswith(self.host[1:]):  # a host under it, not the suffix itself
                return False
        elif parts.host != self.host:
            return False
        return parts.path.startswith(self.path)

    @classmethod
    def parse(cls, text: str) -> Entry:
        """An entry from its text: a URL prefix (``https://*.notify.windows.com/``, ``http://127.0.0.1:9000/``)
        or a bare host (``discord.com``: ``https://discord.com/``). Raises ``ValueError`` for one that
        cannot be read."""
        text = text.strip()
        if "://" not in text:
            text = f"https://{text}/"
        wildcard = "://*." in text
        try:
            parts = split_url(text.replace("://*.", "://wildcard.", 1) if wildcard else text, "setting")
        except RefusedUrl as refused:
            raise ValueError(f"{text!r}: {refused.reason}") from None
        if "?" in parts.path:
            raise ValueError(f"{text!r}: an allowed prefix has no query")
        host = "*." + parts.host.removeprefix("wildcard.") if wildcard else parts.host
        return cls(parts.scheme, host, parts.port, parts.path)


@dataclass(frozen=True, slots=True)
class Allowlist:
    """The URL prefixes a setting allows (``CUCUMBER_PUSH_ENDPOINTS``, ``CUCUMBER_WEBHOOK_HOSTS``)."""

    entries: tuple[Entry, ...]

    @classmethod
    def parse(cls, text: str) -> Allowlist:
        """The entries of comma-separated ``text`` (:meth:`Entry.parse`); ``ValueError`` for a bad one."""
        return cls(tuple(Entry.parse(item) for item in text.split(",") if item.strip()))

    def entry_for(self, parts: Parts) -> Entry | None:
        """The first entry ``parts`` fall under, ``None`` when none does."""
        return next((entry for entry in self.entries if entry.matches(parts)), None)


@dataclass(slots=True)
class Target:
    """A URL that passed its allowlist: its ``parts``, whether it is sent to as listed (``as_listed``: an
    entry naming http or a loopback host), and, once :meth:`resolve` ran, the ``addresses`` checked, which
    the request connects to."""

    parts: Parts
    as_listed: bool
    code: str
    addresses: tuple[str, ...] = field(default=())

    @property
    def url(self) -> str:
        """The URL, normalized (:attr:`Parts.url`)."""
        return self.parts.url

    async def resolve(self, resolver: Resolver) -> tuple[str, ...]:
        """Look the host up with ``resolver`` and keep the addresses to connect to. A URL sent to as listed
        takes every address; any other must resolve only to public addresses (``ipaddress``'s
        ``is_global``: no loopback, private, link-local, shared or reserved one). Raises
        :class:`RefusedUrl` (this target's code) when it does not resolve or does not pass."""
        literal = _address(self.parts.host)
        if literal is not None:
            found: Sequence[str] = [str(literal)]
        else:
            try:
                found = await resolver(self.parts.host, self.parts.port)
            except (OSError, TimeoutError, UnicodeError):
                raise RefusedUrl(self.code, "the URL's host does not resolve") from None
        addresses = tuple(dict.fromkeys(str(ipaddress.ip_address(address.split("%")[0])) for address in found))
        if not addresses:
            raise RefusedUrl(self.code, "the URL's host does not resolve")
        if not self.as_listed:
            for address in addresses:
                parsed = ipaddress.ip_address(address)
                mapped = getattr(parsed, "ipv4_mapped", None)
                if not parsed.is_global or (mapped is not None and not mapped.is_global):
                    raise RefusedUrl(self.code, "the URL's host resolves to an address that is not public")
        self.addresses = addresses
        return addresses


def check_url(url: object, allowlist: Allowlist, code: str) -> Target:
    """``url`` as a :class:`Target`, if ``allowlist`` allows it, before its host is looked up
    (:meth:`Target.resolve` does that). Raises :class:`RefusedUrl` (``code``) for a URL that cannot be read
    (:func:`split_url`), one no entry allows, and one an entry allows that is neither https nor listed as
    it is."""
    parts = split_url(url, code)
    entry = allowlist.entry_for(parts)
    if entry is None:
        if parts.scheme != "https":
            raise RefusedUrl(code, "the URL must be https")
        raise RefusedUrl(code, "the URL is not on this server's list of allowed addresses")
    if not entry.listed_as_is and parts.scheme != "https":
        raise RefusedUrl(code, "the URL must be https")
    return Target(parts, entry.listed_as_is, code)
