"""The viewers of a room the property tests drive (tests/rooms/test_views_property.py): each a connection of
the room, a JSON client or a table page, with what it holds from the frames it was sent, what it should
hold (a fresh render for it alone), and the cards it must not be shown.

A JSON viewer keeps its frames in a :class:`~app.client.view.View`; a page viewer starts from the first page
the room's page route gives its browser (its cookies: seat, language, chat id) and swaps each frame in
(:class:`tests.rooms.htmx.Page`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request

from app.api.language import LANGUAGE_COOKIE
from app.api.room_pages import room_page
from app.api.seat_cookies import cookie_name
from app.api.viewers import VIEWER_COOKIE, viewer_id
from app.client.view import View
from app.common.identity import hash_token
from app.config.settings import Settings
from app.game.score_sheet import score_sheet
from app.pages.table import LIVE_REGIONS, SEAT_IDS, PageRenderer
from app.rooms.connection import Connection
from app.rooms.frames import state_message
from app.rooms.json_renderer import JsonRenderer
from app.rooms.registry import RoomRegistry
from app.rooms.room import Room
from app.wording.language import speaking
from tests.rooms.htmx import Page

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][CDHS](?![A-Za-z0-9])")
"""A card code standing alone in a text."""

PAGE_REGIONS = (*LIVE_REGIONS, "chat-status")
"""The page's elements its socket keeps up to date, compared with a fresh page: the live regions (the seats
inside ``seats``) and who may chat."""

HISTORY_REGIONS = ("scoresheet", "summary")
"""The page's regions that show earlier deals: their last tricks, face up for everyone."""

HISTORY_KEYS = frozenset({"score_sheet", "score_sheet_added", "last_deal"})
"""The ``state`` fields that show earlier deals: their last tricks, face up for everyone."""


def hidden_cards(room: Room, token_hash: str | None) -> frozenset[str]:
    """The cards the person with ``token_hash`` (``None``: a spectator) may not see now: every hand of the match
    being played but their own seat's."""
    match = room.match
    if match is None:
        return frozenset()
    own = room.seat_of(token_hash)
    return frozenset(card.code for seat in range(match.seat_count) if seat != own for card in match.hand(seat))


def face_up_before(room: Room) -> frozenset[str]:
    """The cards of the last tricks of the match's completed deals: shown to everyone (docs/rules.md §2.6)."""
    if room.match is None:
        return frozenset()
    return frozenset(card.code for deal in score_sheet(room.match) for _, card in deal.last_trick)


class Socket:
    """The socket under a viewer's connection: keeps each frame with the cards its viewer could not see when
    it was sent (:func:`hidden_cards`)."""

    def __init__(self, hidden: Callable[[], frozenset[str]]) -> None:
        self.hidden = hidden
        self.frames: list[tuple[str, frozenset[str]]] = []
        self.closed_with: int | None = None

    async def send(self, text: str) -> None:
        self.frames.append((text, self.hidden()))

    async def close(self, code: int) -> None:
        self.closed_with = code


@dataclass
class Person:
    """Someone with a place at the table (a seat, or hosting): their name and token."""

    name: str
    token: str

    @property
    def token_hash(self) -> str:
        return hash_token(self.token)


@dataclass
class Viewer:
    """One connection of the room and what its client holds: ``kind`` ``"json"`` or ``"page"``, ``language``,
    ``person`` (``None``: a spectator's browser or program), the JSON client's ``view`` or the ``page``.

    ``named`` holds the cards this viewer's own messages named (a refused play's card may be said back to
    the one who sent it); ``taken`` counts the frames already applied."""

    kind: str
    language: str
    person: Person | None
    browser: str
    conn: Connection = field(init=False)
    socket: Socket = field(init=False)
    sender: asyncio.Task[None] | None = None
    view: View | None = None
    page: Page | None = None
    named: set[str] = field(default_factory=set)
    taken: int = 0


class Table:
    """A room with the app's page route around it: opens, closes and checks its viewers."""

    def __init__(self, room: Room, app: FastAPI, settings: Settings, store: Any) -> None:
        self.room, self.app, self.settings = room, app, settings
        self.registry = RoomRegistry(settings, store)
        self.registry.rooms[room.code] = room  # the page route finds the room here
        self.viewers: list[Viewer] = []
        self.face_up: set[str] = set()

    def link_url(self, link: Any) -> str:
        return f"http://testserver/r/{link.room}/take#{link.secret}"

    async def first_page(self, viewer: Viewer) -> str:
        """The page the room's route gives ``viewer``'s browser now, in its language."""
        cookies = {LANGUAGE_COOKIE: viewer.language, VIEWER_COOKIE: viewer.browser}
        if viewer.person is not None:
            cookies[cookie_name(self.room.code)] = viewer.person.token
        cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
        path = f"/r/{self.room.code}"
        request = Request({
            "type": "http", "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
            "raw_path": path.encode(), "root_path": "", "query_string": b"", "server": ("testserver", 80),
            "client": ("127.0.0.1", 50000), "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
            "app": self.app, "router": self.app.router, "path_params": {"code": self.room.code}})
        with speaking(viewer.language):  # as the app's language middleware does
            response = await room_page(self.room.code, request, self.registry, self.settings)
        assert response.status_code == 200
        return bytes(response.body).decode()

    async def open(self, kind: str, language: str, person: Person | None, browser: str = "b0",
                   *, page: Page | None = None, view: View | None = None) -> Viewer:
        """Open a connection for ``person`` (``None``: a spectator) as the page or a JSON client would, said in
        ``language``; a page keeps ``page`` (its socket reconnecting) or loads anew, a JSON client goes on
        with ``view`` (a new socket) or starts one."""
        viewer = Viewer(kind, language, person, browser)
        token_hash = None if person is None else person.token_hash
        if kind == "page":
            viewer.page = page or Page(await self.first_page(viewer))
            renderer: Any = PageRenderer(self.app.state.live_context, link_url=self.link_url,
                                         chat_status=self.room.chat_status)
        else:
            viewer.view = view or View(strict=True)
            viewer.view.reconnected()
            renderer = JsonRenderer(link_url=self.link_url)
        viewer.socket = Socket(lambda: hidden_cards(self.room, viewer.conn.token_hash))
        viewer.conn = Connection(token_hash=token_hash, renderer=renderer, socket=viewer.socket, queue_size=64,
                                 language=language, viewer=viewer_id(browser) if kind == "page" else None)
        viewer.sender = viewer.conn.start()
        await asyncio.sleep(0)  # the sender waits: frames go out at once
        self.viewers.append(viewer)
        await self.room.attach(viewer.conn)
        return viewer

    async def close(self, viewer: Viewer) -> None:
        """Close ``viewer``'s socket as the socket's handler does when the client goes."""
        self.viewers.remove(viewer)
        self.take(viewer)
        viewer.conn.finish()
        await self.room.detach(viewer.conn)
        assert viewer.sender is not None
        await viewer.sender

    def take(self, viewer: Viewer) -> None:
        """Apply the frames ``viewer`` got since the last time, checking each holds no card hidden from it."""
        for text, hidden in viewer.socket.frames[viewer.taken:]:
            self.check_no_hidden_card(viewer, text, hidden)
            if viewer.view is not None:
                viewer.view.take(text)
            else:
                assert viewer.page is not None
                viewer.page.apply(text)
        viewer.taken = len(viewer.socket.frames)

    def check_no_hidden_card(self, viewer: Viewer, text: str, hidden: frozenset[str]) -> None:
        """``text``, a frame for ``viewer``, shows no card of ``hidden`` but those of earlier deals' last tricks
        where it shows them, and those its own messages named."""
        allowed = viewer.named
        if viewer.kind == "json":
            body = json.loads(text)
            if body.get("type") == "state":
                for key, value in body["state"].items():
                    shown = set(_codes(value))
                    if key in HISTORY_KEYS:
                        shown -= self.face_up
                    assert not shown & hidden, f"{key} shows {sorted(shown & hidden)} to {describe(viewer)}"
                return
            shown = set(_codes(body))
        else:
            history, rest = _split_history(text)
            shown = set(CARD.findall(rest)) | (set(CARD.findall(history)) - self.face_up)
        leaked = (shown & hidden) - allowed
        assert not leaked, f"a frame shows {sorted(leaked)} to {describe(viewer)}: {text[:300]}"

    async def check(self) -> None:
        """Every viewer holds what a fresh render for it alone gives, and was shown no hidden card."""
        for _ in range(3):
            await asyncio.sleep(0)  # frames waiting in an outbox go out
        self.face_up |= face_up_before(self.room)
        fresh_pages: dict[tuple[str | None, str, str], str] = {}
        for viewer in self.viewers:
            self.take(viewer)
            token_hash = viewer.conn.token_hash
            if viewer.view is not None:
                with speaking(viewer.language):
                    fresh = json.loads(state_message(self.room.viewer_for(token_hash).view()))["state"]
                assert viewer.view.state == fresh, f"{describe(viewer)} holds another state:\n" + diff(
                    viewer.view.state, fresh)
                continue
            assert viewer.page is not None
            # A page's fresh render is its browser's page: a seat cookie whose seat moved to another browser
            # is no longer known, and the page is a spectator's, as its socket's renders are since.
            key = (viewer.person.token if viewer.person is not None else None, viewer.language, viewer.browser)
            if key not in fresh_pages:
                fresh_pages[key] = await self.first_page(viewer)
                self.check_no_hidden_card(viewer, fresh_pages[key], hidden_cards(self.room, token_hash))
            fresh_page = Page(fresh_pages[key])
            for region in (*PAGE_REGIONS, *SEAT_IDS):
                held, wanted = viewer.page.region(region), fresh_page.region(region)
                assert held == wanted, f"{describe(viewer)}: #{region} differs:\n{held}\n---- fresh:\n{wanted}"


def describe(viewer: Viewer) -> str:
    """Who ``viewer`` is, for a failure's message."""
    who = "a spectator" if viewer.person is None else viewer.person.name
    return f"{who}'s {viewer.kind} in {viewer.language!r}"


def diff(held: Any, fresh: Any) -> str:
    """The fields of two states that differ, each as held and as fresh."""
    if not isinstance(held, dict) or not isinstance(fresh, dict):
        return f"{held!r}\n---- fresh:\n{fresh!r}"
    return "\n".join(f"{key}: {held.get(key)!r}\n  fresh: {fresh.get(key)!r}"
                     for key in sorted(set(held) | set(fresh)) if held.get(key) != fresh.get(key))


def _codes(value: Any) -> Iterator[str]:
    """Every card code in a decoded JSON value's texts."""
    if isinstance(value, str):
        yield from CARD.findall(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _codes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _codes(item)


_HISTORY = re.compile(r'<(section|table|details) [^>]*(?:id="(?:scoresheet|summary|last-trick-details)"|'
                      r'hx-swap-oob="beforeend:#scoresheet-table").*?</\1>', re.DOTALL)


def _split_history(text: str) -> tuple[str, str]:
    """``text`` (a page or a frame) cut into what shows earlier deals (:data:`HISTORY_REGIONS`, a score sheet's
    new row) and the rest."""
    history = [found.group(0) for found in _HISTORY.finditer(text)]
    return "".join(history), _HISTORY.sub("", text)
