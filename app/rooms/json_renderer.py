"""The fast path of the JSON protocol's ``state`` frames: the part every viewer of a version shares is encoded
once per version and language, the score sheet once per sheet, and only ``you`` per viewer.

Each frame equals :func:`app.rooms.frames.state_message` of that viewer's own view (with the score sheet
whole, or as the deals it adds to the one the connection holds); tests/rooms/test_shared_rendering.py checks
it in every version of a room's life, tests/rooms/test_json_renderer.py the pieces kept.

What is kept from one version to the next (a :class:`~app.rooms.kept.Kept`) is kept by the value it shows:
each such piece is a module-level function of one hashable value holding exactly what it reads
(:class:`YouShown` for ``you``, :class:`LastDealShown` for ``last_deal``, the score sheet's tuple for
:class:`SheetText`), found again wherever a later version gives an equal value
(:meth:`~app.rooms.kept.Kept.made`). A frame is JSON object members encoded apart (:func:`members`) and
joined into objects (:meth:`JsonRenderer.frame`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import orjson

from app.game.cards import Card
from app.game.refusals import Refusal
from app.game.score_sheet import DealScore
from app.game.summary import DealSummary
from app.game.views import HandCard
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.frames import (
    ascii_json,
    chat_json,
    chat_status_json,
    compact,
    deal_summary_json,
    error_message,
    link_message,
    score_sheet_json,
    table_json,
)
from app.rooms.kept import Shared
from app.rooms.seat_links import Link
from app.rooms.views import RoomView, Viewer
from app.wording.refusals import WAITING, unplayable, unplayable_said


def members(value: dict[str, Any]) -> str:
    """The members of the JSON object ``value``, as :func:`~app.rooms.frames.compact` writes them when orjson
    takes it: the text between the braces of its encoding (``""`` for an empty dict), in ASCII
    (:func:`~app.rooms.frames.ascii_json`). A value may be an ``orjson.Fragment``, JSON text taken as it is.

    Raises ``orjson.JSONEncodeError`` for a text orjson refuses (a lone surrogate): the caller encodes it
    another way.
    """
    return ascii_json(orjson.dumps(value).decode())[1:-1]


class HandShown(NamedTuple):
    """What the state's ``you`` shows of a hand: its cards in order (``hand``), those that may be played
    (``legal``), and why each other card may not (``reasons``).

    ``refused`` holds the cards that may not be played, in order, in runs refused for one reason, each
    with that reason as :func:`~app.wording.refusals.unplayable_said` gives it: only the facts its words
    name. Its words are then the same for every card of the run, in a language.
    """

    cards: tuple[Card, ...]
    legal: tuple[Card, ...]
    refused: tuple[tuple[tuple[Card, ...], Refusal], ...]


def hand_shown(hand: Sequence[HandCard]) -> HandShown:
    """The :class:`HandShown` of a hand's view (:attr:`~app.rooms.views.Viewer.hand`)."""
    refused: list[tuple[tuple[Card, ...], Refusal]] = []
    run: list[Card] = []
    said: Refusal | None = None
    last: Refusal | None = None
    for held in hand:
        reason = held.reason
        if reason is None:
            continue
        if reason is not last:  # a waiting hand's cards all hold one refusal: said once
            last, now = reason, unplayable_said(reason)
            if now != said:
                if run and said is not None:
                    refused.append((tuple(run), said))
                run, said = [], now
        run.append(held.card)
    if run and said is not None:
        refused.append((tuple(run), said))
    return HandShown(tuple(held.card for held in hand), tuple(held.card for held in hand if held.legal),
                     tuple(refused))


_WAITING_SAID = {code: unplayable_said(Refusal(code)) for code in WAITING}
"""A refusal of each code of :data:`~app.wording.refusals.WAITING`, as it is said: the code alone."""


@functools.lru_cache(maxsize=4096)
def hand_shown_at_rest(rest: tuple[tuple[Card, ...], str]) -> HandShown:
    """The :class:`HandShown` of a hand at rest (:attr:`~app.rooms.views.Viewer.at_rest`: its cards and the
    code of the refusal, one of :data:`~app.wording.refusals.WAITING`), without the hand's view: the view
    (:func:`~app.game.views.hand_view`) refuses every card alike, for a reason of that code, whose words name
    nobody. It equals :func:`hand_shown` of that view. Made once for equal cards and code: a waiting hand is
    shown again at every play of the others."""
    cards, code = rest
    return HandShown(cards, (), ((cards, _WAITING_SAID[code]),) if cards else ())


class YouShown(NamedTuple):
    """What the state's ``you`` shows: the viewer's ``seat`` (``None``: a spectator), whether they ``host``,
    their seat's public id (``player``), what it shows of their ``hand`` (:class:`HandShown`) and, to a slow
    room's host, the room's chat ``webhook``."""

    seat: int | None
    host: bool
    player: str | None
    hand: HandShown
    webhook: str | None


_NO_HAND = HandShown((), (), ())
_SPECTATOR = YouShown(None, False, None, _NO_HAND, None)
"""What ``you`` shows a spectator who does not host: nothing."""


def you_shown(viewer: Viewer) -> YouShown:
    """The :class:`YouShown` of ``viewer``: a hand at rest is told from its cards without its view."""
    if viewer.seat is None and not viewer.host:
        return _SPECTATOR
    rest = viewer.at_rest
    hand = hand_shown(viewer.hand) if rest is None else hand_shown_at_rest(rest)
    hook = viewer.table.webhook[0] if viewer.host and viewer.table.webhook is not None else None
    return YouShown(viewer.seat, viewer.host, viewer.player, hand, hook)


def you_json(shown: YouShown) -> str:
    """The JSON of the state's ``you`` (:func:`~app.rooms.frames.you_object`) from what it shows, in the
    language being spoken: ``null`` for a spectator who does not host."""
    if shown.seat is None and not shown.host:
        return "null"
    hand = shown.hand
    reasons = {}
    for cards, said in hand.refused:
        words = unplayable(said)
        for card in cards:
            reasons[card.code] = words
    you = {"seat": shown.seat, "player": shown.player, "host": shown.host, "hand": [card.code for card in hand.cards],
           "legal": [card.code for card in hand.legal], "reasons": reasons}
    if shown.webhook is not None:
        you["webhook"] = shown.webhook
    return compact(you)


class LastDealShown(NamedTuple):
    """What the state's ``last_deal`` shows: the last completed deal's ``summary``, told with the players'
    names in seat order (``seat_names``)."""

    summary: DealSummary
    seat_names: tuple[str, ...]


def last_deal_text(shown: LastDealShown) -> str:
    """The JSON of the state's ``last_deal`` (:func:`~app.rooms.frames.last_deal_json`), in the language
    being spoken."""
    return compact(deal_summary_json(shown.summary, shown.seat_names))


class SheetText:
    """The JSON of one score sheet (``sheet``, a room's at one version): whole, or as the deals it adds to an
    earlier sheet a connection was sent (docs/protocol.md, "The score sheet").

    Made from the sheet alone, it is kept as :meth:`~app.rooms.kept.Kept.made` keeps things: found again for
    every later version with an equal sheet (a room's sheet changes once a deal), and in each language apart
    (its texts hold no words, but the keeping is by language). Each text is written the first time it is
    asked for."""

    __slots__ = ("_added", "_whole", "sheet")

    def __init__(self, sheet: tuple[DealScore, ...]) -> None:
        self.sheet = sheet
        self._whole: str | None = None
        self._added: dict[int, str] = {}

    @property
    def whole(self) -> str:
        """:func:`score_sheet_json` of the sheet as JSON text, written once (its size grows with every deal)."""
        if self._whole is None:
            self._whole = compact(score_sheet_json(self.sheet))
        return self._whole

    def added_to(self, known: tuple[DealScore, ...]) -> str | None:
        """The JSON list of the deals the sheet adds to ``known`` (``"[]"``: none), when ``known`` is the sheet's
        beginning, its first deals as they are here; ``None`` when it is not (a new match, say)."""
        sheet = self.sheet
        if known is sheet:
            return "[]"
        start = len(known)
        if start > len(sheet) or sheet[:start] != known:
            return None
        text = self._added.get(start)
        if text is None:
            text = self._added[start] = compact(score_sheet_json(sheet[start:]))
        return text


class PublicParts(NamedTuple):
    """What every viewer of one version who reads its language is sent alike: the frame's members before
    its ``state`` (``frame``), the state's members before its score sheet (``state``, ``code`` to
    ``standings``), and the score sheet's :class:`SheetText` (``sheet``)."""

    frame: str
    state: str
    sheet: SheetText


def public_parts(public: RoomView, kept: Any) -> PublicParts:
    """The :class:`PublicParts` of the version whose public view is ``public``, in the language being spoken.

    The last deal's JSON (:func:`last_deal_text`) and the sheet's :class:`SheetText` are kept in ``kept``
    (:meth:`~app.rooms.kept.Kept.made`) by the values they show, for the versions after: both stay the same
    for a whole deal.
    """
    summary = public.summary
    last_deal = None if summary is None else kept.made(last_deal_text, LastDealShown(summary, public.seat_names))
    try:
        state = members(table_json(public, last_deal=None if last_deal is None else orjson.Fragment(last_deal)))
    except orjson.JSONEncodeError:  # a text orjson refuses: all of it as the standard library writes it
        state = compact(table_json(public))[1:-1]
    return PublicParts(f'"type":"state","version":{public.version}', state,
                       kept.made(SheetText, public.score_sheet))


class StateParts(NamedTuple):
    """A viewer's ``state`` frame in parts (:meth:`JsonRenderer.render`): the version's :class:`PublicParts`,
    shared by its viewers in one language, and ``you``'s JSON."""

    public: PublicParts
    you: str


class JsonRenderer:
    """How a JSON-protocol client sees the room: a ``state`` frame per version, its score sheet whole or as
    the deals added since this connection's last state.

    The public part of the frame is encoded once per version and language
    and shared by every viewer who reads it; only ``you`` is encoded per
    viewer. Its texts are in the language being spoken as it renders.
    ``link_url`` writes a seat link's URL (the routes know the server's address).
    One renderer per socket: it remembers the score sheet it last sent.
    """

    kind = "json"
    __slots__ = ("link_url", "sheet")  # one per socket

    def __init__(self, *, link_url: Callable[[Link], str]) -> None:
        self.link_url = link_url
        self.sheet: tuple[DealScore, ...] | None = None
        """The score sheet this connection holds: the one of the last state it was sent (``None``: none yet)."""

    def render(self, viewer: Viewer, shared: Shared) -> StateParts:
        """The ``state`` frame for ``viewer`` in parts (:class:`StateParts`); :meth:`frame` joins them into a
        connection's frame.

        ``shared`` lives for one version: its :class:`PublicParts` are made there once for each language
        (:meth:`~app.rooms.kept.Shared.once`). ``shared.kept`` keeps the pieces made from values
        (:meth:`~app.rooms.kept.Kept.made`): ``you`` (:class:`YouShown`), the last deal and the score
        sheet.

        Only the viewer's own hand is looked at besides the public view, and a hand at rest not even that
        (:func:`you_shown`). The whole frame is made only as it is queued for a connection, so that a room
        does not keep a copy of the shared part for each of its viewers as long as the version lasts.
        """
        kept = shared.kept
        return StateParts(shared.once(public_parts, viewer.public, kept), kept.made(you_json, you_shown(viewer)))

    def frame(self, payload: StateParts, *, whole: bool = False) -> str:
        """The ``state`` frame from its rendered parts, ``{<frame>,"state":{<state>,<sheet>,"you":<you>}}``:
        with the sheet as ``score_sheet``, whole (the text :func:`state_message` gives for its view) when
        ``whole``, in this connection's first state, or when the sheet is not the one it was last sent with
        deals added; else as ``score_sheet_added``, the deals added since (most often none)."""
        public, you = payload
        sheet = public.sheet
        added = None if whole or self.sheet is None else sheet.added_to(self.sheet)
        self.sheet = sheet.sheet
        sheet_member = f'"score_sheet":{sheet.whole}' if added is None else f'"score_sheet_added":{added}'
        return f'{{{public.frame},"state":{{{public.state},{sheet_member},"you":{you}}}}}'

    def error(self, code: str, message: str) -> str:
        """The ``error`` frame."""
        return error_message(code, message)

    def link(self, link: Link) -> str:
        """The ``link`` frame (:func:`link_message`)."""
        return link_message(link, self.link_url(link))

    def chat(self, line: ChatLine) -> str:
        """The ``chat`` frame of a new line (:func:`chat_json`)."""
        return compact(chat_json(line))

    def chat_welcome(self, lines: Sequence[ChatLine], status: ChatStatus) -> str:
        """The ``chat_history`` frame: the lines kept (oldest first) as ``messages``, and who may write."""
        return compact({"type": "chat_history", "messages": [chat_json(line) for line in lines],
                         **chat_status_json(status)})

    def chat_status(self, status: ChatStatus, *, host: bool) -> str:
        """The ``chat_status`` frame (the same for the host and everyone else)."""
        return compact({"type": "chat_status", **chat_status_json(status)})
