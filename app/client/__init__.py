"""A Python client for Cucumber's JSON protocol (docs/protocol.md), for bots, tests and load generators.

:class:`Rooms` / :class:`AsyncRooms` open rooms and take seats over HTTP; :class:`Client` (asyncio, with
reconnects) and :class:`Connection` (blocking) hold one place at a room over its socket; :class:`View`
keeps what a connection holds from the frames it got, with no network. It imports nothing of the server.
"""

from app.client.aio import Backoff, Client, Connected, Disconnected, Event, may_reconnect, socket_url
from app.client.blocking import Closed, Connection, Transport, WebSocketTransport
from app.client.rooms import AsyncRooms, Rooms, Seat
from app.client.view import RECONNECT_CODES, Frame, ProtocolViolation, Refused, Table, View, follow

__all__ = [
    "RECONNECT_CODES",
    "AsyncRooms",
    "Backoff",
    "Client",
    "Closed",
    "Connected",
    "Connection",
    "Disconnected",
    "Event",
    "Frame",
    "ProtocolViolation",
    "Refused",
    "Rooms",
    "Seat",
    "Table",
    "Transport",
    "View",
    "WebSocketTransport",
    "follow",
    "may_reconnect",
    "socket_url",
]
