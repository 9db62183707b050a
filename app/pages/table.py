"""The table page's live regions and their renderer: the regions a page connection is sent for each version
of its room, each rendered from its value (:mod:`app.pages.regions`), and only those that changed for that
viewer.

A region's HTML is a pure function of its value, the language and the page's
constants (:class:`PageConstants`): the renderer keeps each rendering in the
room's store under exactly those (:meth:`~app.rooms.kept.Kept.made`), so
every viewer and every later version whose value is equal finds it there, and
no other does. Its words are said in the language being spoken as it renders.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from app.game.rules import MAX_PLAYERS
from app.pages.pieces import keeping
from app.pages.regions import REGIONS, ChatStatusShown, JoinShown, SeatsShown, SheetShown, values_for
from app.pages.rendering import render_block, seat_html, templates
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.errors import ErrorCode
from app.rooms.kept import Kept, Shared
from app.rooms.seat_links import Link
from app.rooms.views import RoomView, Viewer
from app.wording.language import language, speaking


class PageConstants(NamedTuple):
    """What the live regions read besides their values, the same for every page of a server: ``path_for``
    (route name and parameters → path), the deal pause (seconds) and whether a slow table's page offers
    turn notifications (``push_offered``: Web Push is on, :attr:`Settings.push_on
    <app.config.settings.Settings.push_on>`)."""

    path_for: Callable[..., str]
    deal_pause: float
    push_offered: bool = False


def live_context(path_for: Callable[..., Any], deal_pause: float, *, push_offered: bool = False) -> PageConstants:
    """The page's constants from the app's ``url_path_for`` (route name → path), the deal pause (seconds) and
    whether Web Push is on."""
    return PageConstants(lambda name, **params: str(path_for(name, **params)), deal_pause, push_offered)


LIVE_REGIONS = tuple(REGIONS)
"""The table page's live regions, by element id in page order (:data:`~app.pages.regions.REGIONS`)."""

SEAT_IDS = tuple(f"seat-{seat}" for seat in range(MAX_PLAYERS))
"""The seats' element ids, by seat."""
_SEAT_NAMES = frozenset(SEAT_IDS)
"""The seats' element ids, to tell a seat's region from the others."""

_YOURS = tuple((name, region.yours) for name, region in REGIONS.items() if region.yours is not None)
"""The regions whose value may differ from viewer to viewer, with the function that gives a viewer's."""


def first_page(viewer: Viewer, typed_name: str = "") -> dict[str, Hashable]:
    """The live regions' values for ``viewer``'s whole page, by name (:data:`LIVE_REGIONS`), for ``room.html``
    rendered whole; ``typed_name`` is what a refused seat form had in its name field."""
    values = values_for(viewer)
    join = values["join"]
    assert isinstance(join, JoinShown)
    values["join"] = join._replace(typed_name=typed_name)
    return values


RegionRenderers = dict[str, Callable[[Hashable], str]]
"""For each live region, by element id, the function that renders it from its value alone."""


@functools.lru_cache(maxsize=16)
def region_renderers(constants: PageConstants) -> RegionRenderers:
    """For each live region of ``room.html``, the function that renders its block alone from its value, with
    the page's ``constants``, in the language being spoken: one set for each server's constants, so that
    a room's store finds a rendering under the same function for every page. Raises ``KeyError`` for a
    block the template does not have."""
    variables = constants._asdict()

    def renderer(name: str) -> Callable[[Hashable], str]:
        def render(value: Hashable) -> str:
            return render_block("room.html", name, {**variables, name: value})

        render.__qualname__ = f"render_{name}"
        return render

    return {name: renderer(name) for name in LIVE_REGIONS}


class Everyones(NamedTuple):
    """The live regions of one version as everyone sees it (:attr:`Region.everyone
    <app.pages.regions.Region.everyone>`), in one language: each region's value by name, and the HTML of each
    but the seats' container by element id (each seat's under ``seat-N``)."""

    values: dict[str, Hashable]
    html: dict[str, str]


def _everyones(public: RoomView, kept: Kept, renderers: RegionRenderers) -> Everyones:
    """:class:`Everyones` for the version whose public view is ``public``, each region found in ``kept`` or
    rendered by ``renderers``."""
    values: dict[str, Hashable] = {}
    html: dict[str, str] = {}
    for name, region in REGIONS.items():
        value = values[name] = region.everyone(public)
        if isinstance(value, SeatsShown):
            for seat in value.seats:
                html[SEAT_IDS[seat.info.seat]] = kept.made(seat_html, seat)
        else:
            html[name] = kept.made(renderers[name], value)
    return Everyones(values, html)


def render_sheet_added(sheet: SheetShown) -> str:
    """The page's fragment that adds the last deal of ``sheet`` to a score sheet that holds the deals before
    (``_score_sheet_added.html``), in the language being spoken."""
    return templates.get_template("_score_sheet_added.html").render(scoresheet=sheet)


def render_chat_status(shown: ChatStatusShown) -> str:
    """Who may chat, with the host's controls for the host (``_chat_lines.html``), in the language being
    spoken."""
    return templates.get_template("_chat_lines.html").render(status=shown.status, host=shown.host)


class PageState:
    """The table page's live regions for one kind of viewer of one version (their seat, host role and
    language): the HTML of each (``html``, by element id, each seat's under ``seat-N``) but the seats'
    container, which is rendered only for a connection it is sent to (:meth:`container`), and the values a
    connection's frame is decided by: the seats' (``seats``) and the score sheet's (``sheet``).

    Made by :meth:`PageRenderer.render`; shared by every connection of that kind of viewer as long as the
    version is the room's. It holds no other value: what it holds outlives the collector's young
    generations.
    """

    __slots__ = ("_kept", "_language", "_renderers", "html", "seats", "sheet")

    def __init__(self, html: dict[str, str], seats: SeatsShown, sheet: SheetShown, kept: Kept,
                 renderers: RegionRenderers) -> None:
        self.html, self.seats, self.sheet = html, seats, sheet
        self._kept, self._renderers, self._language = kept, renderers, language()

    def container(self) -> str:
        """The seats' region with its seats inside, as the page holds it."""
        with speaking(self._language), keeping(self._kept):
            return self._kept.made(self._renderers["seats"], self.seats)

    def sheet_added(self) -> str:
        """The fragment that adds the score sheet's last deal to the sheet of the deals before
        (:func:`render_sheet_added`)."""
        with speaking(self._language):
            return self._kept.made(render_sheet_added, self.sheet)


class PageRenderer:
    """How the table page sees the room: its live regions, sending one connection only those that changed.

    ``constants`` are the page's (:func:`live_context`); ``link_url`` writes
    a seat link's URL; ``chat_status`` tells who may write in the room's chat
    now (:meth:`Room.chat_status`), which comes with the regions (a new host
    gets its controls). One renderer per page connection: it remembers what
    that page was sent.
    """

    kind = "page"
    __slots__ = ("constants", "link_url", "room_chat_status", "sent", "sent_values")  # one per page socket

    def __init__(self, constants: PageConstants, *, link_url: Callable[[Link], str],
                 chat_status: Callable[[], ChatStatus] | None = None) -> None:
        self.constants = constants
        self.link_url = link_url
        self.room_chat_status = chat_status
        self.sent: dict[str, str] = {}
        """The HTML of each region this page was last sent, by element id."""
        self.sent_values: dict[str, Hashable] = {}
        """The values of the seats' container and of the score sheet this page was last sent."""

    def render(self, viewer: Viewer, shared: Shared) -> PageState:
        """Every live region of the table page for ``viewer``, said in the language being spoken.

        Everyone's regions are worked out and rendered once a version
        (:class:`Everyones`); a viewer's value of each (:data:`REGIONS`) is
        everyone's where the region shows nothing of them, and its HTML then
        everyone's; else its HTML is found in ``shared.kept`` (the room's
        :class:`~app.rooms.kept.Kept`, which lasts from one version to the
        next) wherever an equal value was rendered before, and rendered
        otherwise. The seats' container is rendered only for a connection it
        is sent to (:meth:`frame`).
        """
        kept = shared.kept
        renderers = region_renderers(self.constants)
        with keeping(kept):
            everyone = shared.once(_everyones, viewer.public, kept, renderers)
            html = dict(everyone.html)  # in page order; replaced below where the viewer's value differs
            seats = everyone.values["seats"]
            for name, yours in _YOURS:
                theirs = everyone.values[name]
                value = yours(viewer, theirs)
                if value is theirs:
                    continue
                if isinstance(value, SeatsShown):
                    assert isinstance(theirs, SeatsShown)
                    seats = value
                    for seat, same in zip(value.seats, theirs.seats, strict=True):
                        if seat is not same:
                            html[SEAT_IDS[seat.info.seat]] = kept.made(seat_html, seat)
                else:
                    html[name] = kept.made(renderers[name], value)
        if self.room_chat_status is not None:
            html["chat-status"] = kept.made(render_chat_status,
                                            ChatStatusShown(self.room_chat_status(), viewer.host))
        sheet = everyone.values["scoresheet"]
        assert isinstance(seats, SeatsShown) and isinstance(sheet, SheetShown)
        return PageState(html, seats, sheet, kept, renderers)

    def frame(self, state: PageState, *, whole: bool = False) -> str | None:
        """The regions that differ from what this connection last got (all of them if ``whole``), or ``None``.

        The seats' container is sent when what it shows besides its seats
        changed (:attr:`~app.pages.regions.SeatsShown.holder`: a seat taken or
        freed, the table set out), with the seats inside it, which are then
        not sent alone: a seat sent alone replaces the page's element of its
        id, and a new one would have none. A score sheet that adds a deal to
        the one this connection got last comes as the new row alone.
        """
        sent, sent_values = self.sent, self.sent_values
        holder = state.seats.holder
        with_seats = whole or sent_values.get("seats") != holder
        changed = []
        for name, text in state.html.items():
            if name in _SEAT_NAMES:
                if not with_seats and sent.get(name) != text:
                    changed.append(text)
            elif whole or sent.get(name) != text:
                if name == "scoresheet" and not whole and self._adds_a_deal(state.sheet):
                    changed.append(state.sheet_added())
                else:
                    changed.append(text)
            if name == "status" and with_seats:  # the seats' container comes after the status, in page order
                changed.append(state.container())
        sent.clear()
        sent.update(state.html)
        sent_values["seats"] = holder
        sent_values["scoresheet"] = state.sheet
        return "".join(changed) or None

    def _adds_a_deal(self, sheet: Hashable) -> bool:
        """Whether ``sheet`` (a score sheet's value) is the one this connection got last with one deal added."""
        before = self.sent_values.get("scoresheet")
        return (isinstance(sheet, SheetShown) and isinstance(before, SheetShown) and len(sheet.sheet) >= 2
                and before == sheet._replace(sheet=sheet.sheet[:-1]))

    def error(self, code: str, message: str) -> str:
        """A refused action as the page's flash message (``seat_moved`` also empties the link box: its link is
        spent)."""
        if code == ErrorCode.SEAT_MOVED:
            return page_error(code, message) + templates.get_template("_seat_link.html").render(link=None)
        return page_error(code, message)

    def link(self, link: Link) -> str:
        """The page's link box for ``link``: the URL, as text and as a QR code, and a button to copy it."""
        return templates.get_template("_seat_link.html").render(link=link, url=self.link_url(link))

    def chat(self, line: ChatLine) -> str:
        """A new chat line, appended to the page's list."""
        return templates.get_template("_chat_lines.html").render(lines=[line])

    def chat_welcome(self, lines: Sequence[ChatLine], status: ChatStatus) -> str | None:
        """The lines kept, as the page's whole list (``None`` when there are none: the page empties its
        list when its socket opens). Who may write comes with the state's regions."""
        return templates.get_template("_chat_lines.html").render(lines=lines, history=True) if lines else None

    def chat_status(self, status: ChatStatus, *, host: bool) -> str:
        """Who may chat, with the host's controls when ``host`` (:func:`render_chat_status`)."""
        return render_chat_status(ChatStatusShown(status, host))


def page_error(code: str, message: str) -> str:
    """A refused action as the page's flash message."""
    return templates.get_template("_flash.html").render(code=code, message=message)
