"""The HTTP half of the JSON protocol: open a room, take a seat, read a room, over ``httpx``.

:class:`Rooms` blocks, :class:`AsyncRooms` awaits; both take any ``httpx`` client (a server's base URL, or
an app's test client) and raise :class:`~app.client.view.Refused` with the server's error code.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from app.client.view import Json, Refused


@dataclass(frozen=True, slots=True)
class Seat:
    """A place taken at a room: its ``code``, the ``seat`` number, and ``token``, the player's secret (the
    only way back to the seat). ``player`` is the seat's public id when the answer names it."""

    code: str
    seat: int
    token: str
    player: str | None = None


def _answer(response: httpx.Response, expected: int) -> Json:
    """The JSON body of ``response``; raises :class:`Refused` unless its status is ``expected``."""
    if response.status_code != expected:
        try:
            body = response.json()
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        raise Refused(str(body.get("error", "http_error")), str(body.get("message", response.text[:200])),
                      response.status_code)
    body = response.json()
    assert isinstance(body, dict)
    return body


def _room_body(name: str, preset: str | None, rules: Json | None, pace: Json | None = None) -> Json:
    body: Json = {"name": name}
    if preset is not None:
        body["preset"] = preset
    if rules is not None:
        body["rules"] = rules
    if pace is not None:
        body["pace"] = pace
    return body


def _join_body(name: str, token: str | None) -> Json:
    return {"name": name} if token is None else {"name": name, "token": token}


class Rooms:
    """Blocking calls of the room API (docs/protocol.md, "HTTP") through ``http``, an ``httpx.Client``
    whose base URL is the server's (``httpx.Client(base_url="http://host:port")``)."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    def create(self, name: str, *, preset: str | None = None, rules: Json | None = None,
               pace: Json | None = None) -> Seat:
        """Open a room with ``name`` seated as its host (seat 0); ``preset``, ``rules`` and ``pace`` (a slow
        table's ``{"turn_hours": H}``) as ``POST /api/rooms`` takes them. Raises :class:`Refused`
        (``invalid_name``, ``invalid_rules``, ``bad_request``…)."""
        answer = _answer(self.http.post("/api/rooms", json=_room_body(name, preset, rules, pace)), 201)
        return Seat(answer["code"], answer["seat"], answer["token"])

    def join(self, code: str, name: str, *, token: str | None = None) -> Seat:
        """Take the next free seat of room ``code`` as ``name`` (with ``token``, the host's, a host sits
        down again). Raises :class:`Refused` (``room_full``, ``name_taken``, ``match_started``…)."""
        answer = _answer(self.http.post(f"/api/rooms/{code}/players", json=_join_body(name, token)), 201)
        return Seat(code, answer["seat"], answer["token"])

    def take(self, code: str, secret: str) -> Seat:
        """Take the seat of a one-time seat link (its ``secret``). Raises :class:`Refused`
        (``invalid_link``, ``player_present``…)."""
        answer = _answer(self.http.post(f"/api/rooms/{code}/take", json={"secret": secret}), 201)
        return Seat(code, answer["seat"], answer["token"], answer.get("player"))

    def room(self, code: str) -> Json:
        """``{"version", "state"}``: the room as a spectator sees it. Raises :class:`Refused`."""
        return _answer(self.http.get(f"/api/rooms/{code}"), 200)

    def table(self, names: list[str], *, preset: str | None = None, rules: Json | None = None,
              pace: Json | None = None) -> list[Seat]:
        """Open a room with the first of ``names`` as host and seat the others, in order."""
        host = self.create(names[0], preset=preset, rules=rules, pace=pace)
        return [host, *(self.join(host.code, name) for name in names[1:])]


class AsyncRooms:
    """:class:`Rooms` for asyncio, through an ``httpx.AsyncClient``."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def create(self, name: str, *, preset: str | None = None, rules: Json | None = None,
                     pace: Json | None = None) -> Seat:
        """See :meth:`Rooms.create`."""
        answer = _answer(await self.http.post("/api/rooms", json=_room_body(name, preset, rules, pace)), 201)
        return Seat(answer["code"], answer["seat"], answer["token"])

    async def join(self, code: str, name: str, *, token: str | None = None) -> Seat:
        """See :meth:`Rooms.join`."""
        answer = _answer(await self.http.post(f"/api/rooms/{code}/players", json=_join_body(name, token)), 201)
        return Seat(code, answer["seat"], answer["token"])

    async def take(self, code: str, secret: str) -> Seat:
        """See :meth:`Rooms.take`."""
        answer = _answer(await self.http.post(f"/api/rooms/{code}/take", json={"secret": secret}), 201)
        return Seat(code, answer["seat"], answer["token"], answer.get("player"))

    async def room(self, code: str) -> Json:
        """See :meth:`Rooms.room`."""
        return _answer(await self.http.get(f"/api/rooms/{code}"), 200)

    async def table(self, names: list[str], *, preset: str | None = None, rules: Json | None = None,
                    pace: Json | None = None) -> list[Seat]:
        """See :meth:`Rooms.table`."""
        host = await self.create(names[0], preset=preset, rules=rules, pace=pace)
        return [host, *[await self.join(host.code, name) for name in names[1:]]]
