"""The table page's live regions and their renderer: what each region of ``room.html`` shows, and the
regions a page connection is sent for each version of its room (only those that changed for that viewer).

:data:`LIVE_REGIONS` says what each region shows everyone and what of a viewer
it shows; :class:`PageRenderer` renders them once for all the viewers who see a
region alike, and fills in what each viewer sees as theirs ("You", their turn's
marks). Its words are said in the language being spoken as it renders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from app.game.rules import MAX_PLAYERS
from app.pages.rendering import Block, render_each, templates
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.errors import ErrorCode
from app.rooms.phases import RoomPhase
from app.rooms.seat_links import Link
from app.rooms.views import RoomView, SeatInfo, Viewer, host_controls
from app.wording.language import language, say
from app.wording.players import player_name
from app.wording.refusals import unplayable_said


@dataclass(frozen=True, slots=True)
class Region:
    """A live region of the table page: its block in ``room.html`` (named like its element id), ``shows``,
    which gives from the version's public :class:`RoomView` a value (hashable, compared with ``==``) of
    what the region shows everyone, and ``sees``, which gives from a :class:`Viewer` what of that viewer
    changes what it shows them (``None``: nothing does).

    The region is rendered again only when one of the two changes: viewers,
    and versions, for which both are equal share one rendering (per
    language). So together they must hold everything the block reads of the
    viewer's view, ``sees`` only what of the viewer changes what the block
    shows (``you_seat`` where "you" is written, ``you_are_host`` where the
    host's controls are, the viewer's own hand): left out, a change would not
    be shown, or one viewer's rendering would reach another. The page's
    constants (links, the deal pause) are the same for every connection.

    A region that ``names`` seats writes, rendered alone, a seat's slot of
    ``name_slots`` (:data:`NAME_SLOTS`) where it names one; the renderer
    fills them for each viewer, "You" in their own (:func:`with_names`). One
    rendering then serves every viewer, and ``sees`` leaves the viewer out.
    Likewise, what a region shows only the viewer it is theirs for (the marks
    of their turn: the template's ``yours``) is written, rendered alone,
    beside what the others see (:func:`both_variants`), where ``mine`` gives
    from a viewer whether it is theirs; each viewer is given their variant
    (:func:`own_variants`), and ``sees`` leaves that out too. Each seat (a
    region of its own) is done alike, its own player's variant theirs.
    """

    shows: Callable[[RoomView], Hashable]
    sees: Callable[[Viewer], Hashable] | None = None
    names: bool = False
    mine: Callable[[Viewer], bool] | None = None


def _status(public: RoomView) -> Hashable:
    # The version is on the region (data-version): a new one each version. While playing it says nothing of
    # the viewer but whether it is their turn, which it writes for both (``yours``). The turn clock's seconds
    # left are read again when the same version is asked for again (a sync).
    return public.version, public.turn_remaining


def _status_sees(viewer: Viewer) -> Hashable:
    # Out of a match, the lobby's and the end's words are the host's, a seated player's or a spectator's.
    if viewer.public.phase == RoomPhase.PLAYING:
        return None
    return viewer.host, viewer.seat is None


def _seats(public: RoomView) -> Hashable:
    # What holds the seats: at the table or not, and in the lobby how many are seated. The seats themselves
    # are regions of their own (``_seat``), sent inside it when it is sent.
    return public.phase != RoomPhase.LOBBY, len(public.seats)


def _seat(public: RoomView, seat: SeatInfo) -> Hashable:
    # One seat as everyone sees it (its own player's marks are written for both: ``yours``); the controls a
    # viewer gets on it (the host's: ``seat_actions``) are what of the viewer it shows.
    return seat, public.phase, public.rules.threshold, public.rules.lives, public.in_match(seat.seat)


def seat_actions(viewer: Viewer, seat: SeatInfo) -> str | None:
    """The host's controls ``viewer`` gets on ``seat``, one of the public seats (:func:`host_controls`)."""
    return host_controls(viewer.public.phase, seat, host=viewer.host, own=seat.seat == viewer.seat)


def _trick(public: RoomView) -> Hashable:
    match = public.match
    if match is None:
        return None
    # The names of the trick's seats are filled in for each viewer ("You" for their own): not here.
    return (public.phase, match.phase, match.trick, match.previous_trick, match.deal_number, match.trick_number,
            match.tricks_per_deal, public.summary.trick_winner if public.summary is not None else None,
            public.turn, public.seat_names)


def _hand(viewer: Viewer) -> Hashable:
    public = viewer.public
    if public.match is None:
        return ()
    rest = viewer.at_rest
    if rest is not None:
        # Waiting: its cards, and why, in words that name nobody, so a hand the play of another did not change is
        # not rendered again, nor sent; told without building the hand's view.
        return rest
    hand = viewer.hand
    if not hand:
        return ()
    if viewer.your_turn:
        # A playable card's button names the deal and the cards played (a play aimed at an older state is refused).
        return hand, public.match_id, public.match.deal_number, public.cards_played
    # Refused otherwise (the match over): each card with what its refusal says.
    return tuple((held.card, held.legal, held.reason and unplayable_said(held.reason)) for held in hand)


def _summary(public: RoomView) -> Hashable:
    if public.summary is None and public.phase != RoomPhase.FINISHED:
        return public.phase  # hidden, empty
    finished = public.phase == RoomPhase.FINISHED
    return (public.phase, public.match.phase if public.match is not None else None, public.summary,
            public.seat_names, public.standings, public.match_id if finished else None,
            tuple(seat.lives for seat in public.seats) if finished else None)


def _pace(public: RoomView) -> Hashable:
    # A slow room's pace (``None`` at a live table): the slow settings show only at a slow table.
    return public.pace


def _seated_or_host(viewer: Viewer) -> Hashable:
    # At a slow table a seated player gets the notification, quiet-hours and vacation controls, the host the
    # webhook's with its URL (the host's alone); at a live table the region is empty for everyone.
    if _pace(viewer.public) is None:
        return None
    webhook = viewer.table.webhook
    return viewer.seat is not None, viewer.host, webhook[0] if viewer.host and webhook is not None else None


def _host_or_spectator(viewer: Viewer) -> Hashable:
    return viewer.host, viewer.seat is None


LIVE_REGIONS: dict[str, Region] = {
    "status": Region(_status, _status_sees, mine=lambda viewer: viewer.your_turn),
    "seats": Region(_seats),
    "trick": Region(_trick, names=True),
    "hand": Region(lambda public: (), _hand),
    "scoresheet": Region(lambda public: (public.score_sheet, public.seat_names) if public.score_sheet else ()),
    "summary": Region(_summary),
    "controls": Region(lambda public: (public.phase, len(public.seats), public.turn_seconds), _host_or_spectator),
    "join": Region(lambda public: (public.code, public.phase, len(public.seats)), lambda viewer: viewer.seat is None),
    "rules": Region(lambda public: (public.rules, public.preset, public.phase != RoomPhase.PLAYING, public.pace),
                    lambda viewer: viewer.host),
    "slow": Region(lambda public: (public.code, _pace(public)), _seated_or_host),
}
"""The table page's live regions, by element id in page order, each with what it shows
(:class:`Region`). A new region adds its block to ``room.html`` and a line here.

``seats`` holds the seats, each a region of its own (:data:`SEAT_IDS`, block
``seat``, what it shows everyone by ``_seat`` and a viewer by :func:`seat_actions`,
rendered with the seat as everyone sees it, ``seat``, and the viewer's controls on it,
``seat_actions``): a play changes a seat or two, not the set of seats. The seats go
inside their container where it has :data:`SEAT_SLOT`, when it is sent (it changed,
or the whole page is sent); otherwise each seat is sent alone, when it changed."""

NAMED_REGIONS = tuple(name for name, region in LIVE_REGIONS.items() if region.names)
"""The live regions that name seats as the viewer sees them (:class:`Region`)."""

SEAT_IDS = tuple(f"seat-{seat}" for seat in range(MAX_PLAYERS))
"""The seats' element ids, by seat."""

SEAT_SLOT = Markup("<!--seats-->")
"""Where the seats go in their container's region as the renderer keeps it."""

NAME_SLOTS = tuple(Markup(f"<!--name-{seat}-->") for seat in range(MAX_PLAYERS))
"""Where a seat's name goes, by seat, in a region that ``names`` seats (:class:`Region`) as the renderer keeps
it."""


NAME_SLOT = re.compile(r"<!--name-(\d)-->")
"""One of :data:`NAME_SLOTS`, its seat in the group."""


def with_names(kept: Any, html: str, seats: Sequence[SeatInfo], you: int | None) -> str:
    """``html``, a region rendered with :data:`NAME_SLOTS` in the language being spoken, as the viewer in seat
    ``you`` (``None``: a spectator) sees it: each slot filled with the name of its seat of ``seats`` (the
    public ones), and with "You" where it is the viewer's own seat.

    Kept in ``kept`` (anything with ``get(key)`` and ``[key] = html``): ``html`` cut at its slots, once
    for all viewers, and filled, by ``html`` itself (a string hashes once) and the viewer's seat where their
    own slot is in it, so it is filled once for all the viewers it does not name, and once for each viewer
    it does.
    """
    pieces_key = ("name-pieces", html)
    pieces: list[str] | None = kept.get(pieces_key)
    if pieces is None:
        pieces = kept[pieces_key] = NAME_SLOT.split(html)  # text, seat, text, seat, …, text
    own = you if you is not None and str(you) in pieces[1::2] else None
    filled_key = ("names", language(), html, own)
    filled: str | None = kept.get(filled_key)
    if filled is None:
        names = {str(seat.seat): escape(say("You") if seat.seat == own else player_name(seat.name))
                 for seat in seats}
        filled = kept[filled_key] = "".join(
            names[piece] if index % 2 else piece for index, piece in enumerate(pieces))
    return filled


OWN_VARIANTS = (Markup("<!--own-->"), Markup("<!--or-->"), Markup("<!--/own-->"))
"""Around the two things a region shows, rendered for every viewer, where the template's ``yours`` is called:
what the viewer it is theirs for sees, then what the others see (:func:`both_variants`)."""


def both_variants(mine: bool, own: str, others: str = "") -> Markup:
    """The template's ``yours`` (:func:`app.pages.rendering.yours`) where a region is rendered once for every viewer:
    ``own`` and ``others`` both (text escaped, markup kept), between :data:`OWN_VARIANTS`, whoever ``mine``
    is for this rendering; :func:`own_variants` then gives each viewer theirs."""
    start, between, end = OWN_VARIANTS
    return Markup(f"{start}{escape(own)}{between}{escape(others)}{end}")  # one Markup made, not one a join


def own_variants(html: str) -> tuple[str, str]:
    """``html``, a region rendered with :func:`both_variants`, as the viewers see it: what the others see, then
    what the viewer it is theirs for (their seat, their turn) sees, so that ``own_variants(html)[mine]`` is
    what a viewer sees."""
    start, between, end = OWN_VARIANTS
    first, *marked = html.split(start)
    others, own = [first], [first]
    for piece in marked:
        variants, _, rest = piece.partition(end)
        mine, _, theirs = variants.partition(between)
        own += (mine, rest)
        others += (theirs, rest)
    return "".join(others), "".join(own)


_SEAT_ID_SET = frozenset(SEAT_IDS)
SEATS_HELD = "seats-held"
"""What a page renderer notes it was sent besides the regions: the element ids of the seats its page holds."""
SHEET_BEFORE, SHEET_ADDED = "scoresheet-before", "scoresheet-added"
"""Besides the regions, in a version whose score sheet has just had a deal added: the ``scoresheet`` region as it
was before, and the fragment that adds the deal's row to it (:meth:`PageVersion.sheet_added`)."""
_SHEET_PARTS = frozenset((SHEET_BEFORE, SHEET_ADDED))


def live_context(path_for: Callable[..., Any], deal_pause: float, *, push_offered: bool = False) -> dict[str, Any]:
    """What the live regions need besides the view: ``path_for`` (route name → path), the deal pause (seconds)
    and whether a slow table's page offers turn notifications (``push_offered``: Web Push is on,
    :attr:`Settings.push_on <app.config.settings.Settings.push_on>`)."""
    return {"path_for": lambda name, **params: str(path_for(name, **params)), "deal_pause": deal_pause,
            "push_offered": push_offered}


class PageVersion:
    """What the table page's renderers work out once for all the viewers of one version of a room, in one
    language: what each region shows everyone (its ``shows``, :data:`LIVE_REGIONS`), and each rendering
    found or made so far, by region (or seat) and what of the viewer it shows (its ``sees``).

    ``public`` is the version's public view, ``kept`` the room's renderings kept from one version to the
    next (:class:`~app.rooms.fanout.Kept`), ``prefix`` what begins the key of each (the renderer's kind and
    the language).
    """

    __slots__ = ("_shows", "found", "kept", "prefix", "public")

    def __init__(self, public: RoomView, kept: Any, prefix: tuple[str, str]) -> None:
        self.public, self.kept, self.prefix = public, kept, prefix
        self.found: dict[Hashable, Any] = {}
        """The renderings of this version, by region (or seat) and what of the viewer they show: a region's
        text, or the pair of its variants (:func:`own_variants`)."""
        self._shows: dict[str, Hashable] = {}

    def sheet_added(self, view: RoomView) -> tuple[str, str] | None:
        """For a score sheet region just rendered anew (``view`` a viewer's view of this version): the region as
        it was before the sheet's last deal, kept from the version before, and the page's fragment that adds
        that deal's row to it (``_score_sheet_added.html``); ``None`` when no such region is kept (a first deal,
        a new match, other names: a page gets the whole sheet)."""
        public = self.public
        sheet = public.score_sheet
        if len(sheet) < 2:
            return None
        before = self.kept.get((*self.prefix, "scoresheet", (sheet[:-1], public.seat_names), None))
        if before is None:
            return None
        key = (*self.prefix, "scoresheet-added", sheet, public.seat_names)
        added = self.kept.get(key)
        if added is None:
            added = self.kept[key] = templates.get_template("_score_sheet_added.html").render(view=view)
        return before, added

    def find(self, name: str, shows: Callable[[RoomView], Hashable], sees: Hashable) -> tuple[Any | None, Hashable]:
        """The rendering of region ``name`` (what it ``shows`` everyone, what it ``sees`` of a viewer) kept from
        this version or the one before, noted as this version's (``None``: none is kept), and the key it is
        kept under."""
        shown = self._shows.get(name, _NOTHING)
        if shown is _NOTHING:
            shown = self._shows[name] = shows(self.public)
        key = (*self.prefix, name, shown, sees)
        found = self.kept.get(key)
        if found is not None:
            self.found[name if sees is None else (name, sees)] = found
        return found, key

    def find_seat(self, seat: SeatInfo, actions: str | None) -> tuple[Any | None, Hashable]:
        """The rendering of ``seat`` (one of the public seats) with the host's controls ``actions`` on it, as
        :meth:`find` gives a region's."""
        key = (*self.prefix, "seat", _seat(self.public, seat), actions)
        found = self.kept.get(key)
        if found is not None:
            self.found[SEAT_IDS[seat.seat] if actions is None else (SEAT_IDS[seat.seat], actions)] = found
        return found, key


_NOTHING = object()
_REGIONS = tuple((name, region.shows, region.sees, region.mine) for name, region in LIVE_REGIONS.items())
""":data:`LIVE_REGIONS` as the renderer goes through them, each its name and functions."""


class PageRenderer:
    """How the table page sees the room: its live regions, sending one connection only those that changed.

    ``context`` is :func:`live_context` (links and the deal pause);
    ``link_url`` writes a seat link's URL; ``chat_status`` tells who may
    write in the room's chat now (:meth:`Room.chat_status`), which comes with
    the regions (a new host gets its controls). One renderer per page
    connection: it remembers what that page was sent.
    """

    kind = "page"
    __slots__ = ("context", "link_url", "room_chat_status", "sent")  # one per page socket

    def __init__(self, context: dict[str, Any], *, link_url: Callable[[Link], str],
                 chat_status: Callable[[], ChatStatus] | None = None) -> None:
        self.context = context
        self.link_url = link_url
        self.room_chat_status = chat_status
        self.sent: dict[str, str] = {}

    def render(self, viewer: Viewer, shared: dict[Any, Any]) -> dict[str, str]:
        """Every live region of the table page for ``viewer``, by element id, said in the language being spoken:
        each seat's after the seats' container, which holds :data:`SEAT_SLOT` in their place (:meth:`frame`
        puts them there).

        A region is rendered only when what it shows (:data:`LIVE_REGIONS`)
        is new to the room: renderings are kept in ``shared.kept`` (the
        room's :class:`~app.rooms.fanout.Kept`, which lasts from one version
        to the next; a plain ``shared`` dict keeps them for one version), as
        are the ``{% part %}`` pieces they are made of. What a region shows
        everyone is worked out once a version (:class:`PageVersion`, in
        ``shared``), and each viewer costs only what of them it shows them
        (``sees``): the viewer's whole view is built only where a region has
        to be rendered for them.
        """
        kept = getattr(shared, "kept", shared)
        spoken = language()
        version: PageVersion | None = shared.get((self.kind, spoken))
        if version is None:
            version = shared[self.kind, spoken] = PageVersion(viewer.public, kept, (self.kind, spoken))
        found_in = version.found
        regions: dict[str, str] = {}
        missing: dict[str, tuple[Block, Hashable, Hashable]] = {}  # by element id: the block, its key, found as
        # The regions rendered with both variants (``yours``) are kept as the pair what others see, what the
        # viewer it is theirs for sees (:func:`own_variants`); here, which of the two this viewer gets.
        owned: dict[str, bool] = {}
        for name, shows, sees_of, mine_of in _REGIONS:
            sees = None if sees_of is None else sees_of(viewer)
            found_as: Hashable = name if sees is None else (name, sees)
            found = found_in.get(found_as)
            if found is None:
                found, key = version.find(name, shows, sees)
                if found is None:
                    missing[name] = name, key, found_as
            if mine_of is not None:
                mine = owned[name] = mine_of(viewer)
                if found is not None:
                    found = found[mine]
            regions[name] = found or ""  # filled in below when missing
            if name == "seats":
                self._seats(viewer, version, regions, missing, owned)
        if missing:
            rendered = render_each("room.html", [block for block, _, _ in missing.values()],
                                   {**self.context, "view": viewer.view(), "parts": kept, "seat_slot": SEAT_SLOT,
                                    "name_slots": NAME_SLOTS, "yours": both_variants})
            for (name, (_, key, found_as)), html in zip(missing.items(), rendered, strict=True):
                if name in owned:
                    pair = kept[key] = found_in[found_as] = own_variants(html)
                    regions[name] = pair[owned[name]]
                else:
                    regions[name] = kept[key] = found_in[found_as] = html
            if "scoresheet" in missing:
                version.found[SHEET_ADDED] = version.sheet_added(viewer.view())
        added = found_in.get(SHEET_ADDED)
        if added is not None:
            regions[SHEET_BEFORE], regions[SHEET_ADDED] = added
        for name in NAMED_REGIONS:
            regions[name] = with_names(kept, regions[name], version.public.seats, viewer.seat)
        if self.room_chat_status is not None:
            status = self.room_chat_status()
            chat_key = (*version.prefix, "chat-status", viewer.host, status)
            chat_status = kept.get(chat_key)
            if chat_status is None:
                chat_status = kept[chat_key] = self.chat_status(status, host=viewer.host)
            regions["chat-status"] = chat_status
        return regions

    @staticmethod
    def _seats(viewer: Viewer, version: PageVersion, regions: dict[str, str],
               missing: dict[str, tuple[Block, Hashable, Hashable]], owned: dict[str, bool]) -> None:
        """Each seat's region for ``viewer`` into ``regions`` (where it is kept), else into ``missing``; which
        of its variants is theirs into ``owned``."""
        found_in, host, you = version.found, viewer.host, viewer.seat
        for seat in version.public.seats:
            seat_id = SEAT_IDS[seat.seat]
            actions = seat_actions(viewer, seat) if host else None  # the host's controls: a viewer who hosts
            found_as: Hashable = seat_id if actions is None else (seat_id, actions)
            found = found_in.get(found_as)
            if found is None:
                found, key = version.find_seat(seat, actions)
                if found is None:
                    missing[seat_id] = ("seat", {"seat": seat, "seat_actions": actions}), key, found_as
            owned[seat_id] = mine = seat.seat == you
            regions[seat_id] = "" if found is None else found[mine]

    def frame(self, regions: dict[str, str], *, whole: bool = False) -> str | None:
        """The regions that differ from what this connection last got (all of them if ``whole``), or ``None``.

        The seats' container, when it is sent, holds the seats (:data:`LIVE_REGIONS`), which are then not
        sent alone. It is sent when it changed, and when the page is to hold other seats than it holds (one
        taken or freed at the table, whose container reads the same): a seat sent alone replaces the page's
        element of its id, and a new one would have none. A score sheet that adds a deal to the one this
        connection got last comes as the new row alone (:data:`SHEET_ADDED`).
        """
        sent = self.sent
        container = regions.get("seats")
        seats = " ".join(name for name in regions if name in _SEAT_ID_SET)
        with_seats = container is not None and (whole or sent.get("seats") != container
                                                or sent.get(SEATS_HELD) != seats)
        changed = []
        for name, html in regions.items():
            if name in _SEAT_ID_SET:
                if not with_seats and sent.get(name) != html:
                    changed.append(html)
            elif name == "seats":
                if with_seats:
                    changed.append(html.replace(SEAT_SLOT, "".join(regions.get(seat_id, "") for seat_id in SEAT_IDS)))
            elif name in _SHEET_PARTS:
                continue
            elif whole or sent.get(name) != html:
                before = regions.get(SHEET_BEFORE)
                if name == "scoresheet" and not whole and before is not None and sent.get(name) == before:
                    changed.append(regions[SHEET_ADDED])
                else:
                    changed.append(html)
        sent.update(regions)
        if with_seats:
            sent[SEATS_HELD] = seats
        for name in _SHEET_PARTS:
            sent.pop(name, None)
        return "".join(changed) or None

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
        """Who may chat, with the host's controls when ``host``."""
        return templates.get_template("_chat_lines.html").render(status=status, host=host)


def page_error(code: str, message: str) -> str:
    """A refused action as the page's flash message."""
    return templates.get_template("_flash.html").render(code=code, message=message)
