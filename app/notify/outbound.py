"""One HTTP/1.1 POST to a checked address: the connection goes to the address the URL's check resolved,
with the URL's host for TLS (SNI, the certificate) and the ``Host`` header, short timeouts, and no redirect
followed.

The request is written and its answer read with h11 over asyncio's streams,
so a send never blocks the event loop and waits at most its timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass

import h11

from app.notify.urls import Target

CONNECT_SECONDS = 3.0
"""How long opening a connection (TCP and TLS) may take, each address."""
ANSWER_SECONDS = 10.0
"""How long the whole exchange may take, from the first connection to the answer's last byte."""
MAX_ANSWER_BYTES = 64 * 1024
"""Bytes of an answer's body read at most; the rest is not waited for."""
USER_AGENT = "Cucumber"


@dataclass(frozen=True, slots=True)
class Answer:
    """What the other side answered: its ``status`` and its ``headers`` (lower-case names; the last of a name
    repeated)."""

    status: int
    headers: Mapping[str, str]

    @property
    def accepted(self) -> bool:
        """Whether the answer is a success (2xx)."""
        return 200 <= self.status < 300

    @property
    def redirect(self) -> bool:
        """Whether the answer sends elsewhere (3xx): never followed, and a failure."""
        return 300 <= self.status < 400


class SendFailed(Exception):
    """No answer came: no checked address could be connected to, the connection broke, or the timeouts ran
    out. The message says which, without the URL."""


TLS = ssl.create_default_context()
"""How https is checked: the system's certificate authorities, the URL's host name."""


async def post(target: Target, *, headers: Mapping[str, str], body: bytes, tls: ssl.SSLContext | None = None,
               connect_seconds: float = CONNECT_SECONDS, answer_seconds: float = ANSWER_SECONDS) -> Answer:
    """POST ``body`` with ``headers`` to ``target`` (resolved: :meth:`Target.resolve`), connecting to its
    checked addresses in turn until one answers; the answer is whatever status came, a redirect included
    (not followed). An https target's certificate is checked with ``tls`` (default :data:`TLS`) for the
    URL's host, which is also the TLS server name (SNI) and the ``Host`` header. Raises
    :class:`SendFailed` when none answers within the timeouts (seconds), or the certificate fails."""
    if not target.addresses:
        raise SendFailed("the target was not resolved")
    try:
        return await asyncio.wait_for(_post(target, headers, body, connect_seconds, tls or TLS), answer_seconds)
    except TimeoutError:
        raise SendFailed("no answer in time") from None


async def _post(target: Target, headers: Mapping[str, str], body: bytes, connect_seconds: float,
                context: ssl.SSLContext) -> Answer:
    parts = target.parts
    tls = context if parts.scheme == "https" else None
    failure = "no address could be connected to"
    for address in target.addresses:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                address, parts.port, ssl=tls, server_hostname=parts.host if tls else None), connect_seconds)
        except (OSError, TimeoutError, ssl.SSLError) as error:
            failure = f"connecting failed: {type(error).__name__}"
            continue
        try:
            return await _exchange(reader, writer, target, headers, body)
        except (OSError, ssl.SSLError, h11.ProtocolError) as error:
            raise SendFailed(f"the connection failed: {type(error).__name__}") from None
        finally:
            writer.close()
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()
    raise SendFailed(failure)


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, target: Target,
                    headers: Mapping[str, str], body: bytes) -> Answer:
    parts = target.parts
    host = parts.origin.split("://", 1)[1]
    connection = h11.Connection(h11.CLIENT, max_incomplete_event_size=16 * 1024)
    fields = [("Host", host), ("User-Agent", USER_AGENT), ("Content-Length", str(len(body))),
              ("Connection", "close"), *headers.items()]
    writer.write(connection.send(h11.Request(method="POST", target=parts.path, headers=fields)) or b"")
    writer.write(connection.send(h11.Data(data=body)) or b"")
    writer.write(connection.send(h11.EndOfMessage()) or b"")
    await writer.drain()
    answer: Answer | None = None
    read = 0
    while True:
        event = connection.next_event()
        if event is h11.NEED_DATA:
            data = await reader.read(16 * 1024)
            connection.receive_data(data)
            continue
        if isinstance(event, h11.Response):
            answer = Answer(event.status_code, {name.decode("latin-1").lower(): value.decode("latin-1")
                                                for name, value in event.headers})
        elif isinstance(event, h11.Data):
            read += len(event.data)
            if read > MAX_ANSWER_BYTES and answer is not None:
                return answer
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            if answer is None:
                raise SendFailed("the connection closed without an answer")
            return answer
