"""The fast path of the JSON protocol's ``state`` frames: the part every viewer of a version shares is encoded
once per version and language, the score sheet once per sheet, and only ``you`` per viewer.

Each frame equals :func:`app.rooms.frames.state_message` of that viewer's own view (with the score sheet
whole, or as the deals it adds to the one the connection holds); tests/rooms/test_shared_rendering.py checks
it in every version of a room's life.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import orjson

from app.game.score_sheet import DealScore
from app.rooms.chat import ChatLine, ChatStatus
from app.rooms.frames import (
    ascii_json,
    chat_json,
    chat_status_json,
    compact,
    error_message,
    last_deal_json,
    link_message,
    score_sheet_json,
    table_json,
    you_object,
)
from app.rooms.seat_links import Link
from app.rooms.views import RoomView, Viewer
from app.wording.language import language


def _you_text(viewer: Viewer, kept: Any) -> str:
    """The JSON of the state's ``you`` for ``viewer``, in the language being spoken.

    A hand waiting for its turn or for the next deal says the same from one version to the next while it
    holds the same cards (its refusal names nobody: :data:`~app.wording.refusals.WAITING`): its JSON is kept
    in ``kept`` (a :class:`~app.rooms.fanout.Kept` or a dict) under the viewer's seat, host role and player
    and the hand at rest (:attr:`~app.rooms.views.Viewer.at_rest`), and found again without the hand's
    view. Only a viewer of that very seat and hand asks for that key.
    """
    rest = viewer.at_rest
    hook = viewer.table.webhook[0] if viewer.host and viewer.table.webhook is not None else None
    if rest is None:
        return compact(you_object(viewer.seat, viewer.host, viewer.player, viewer.hand, hook))
    key = ("json", "you", language(), viewer.seat, viewer.host, viewer.player, rest, hook)
    text: str | None = kept.get(key)
    if text is None:
        text = kept[key] = compact(you_object(viewer.seat, viewer.host, viewer.player, viewer.hand, hook))
    return text


def _state_head(public: RoomView, kept: Any) -> str:
    """The ``state`` frame of ``public`` up to where its score sheet begins: the part every viewer of this
    version who reads its language gets alike.

    The last deal's summary stays as it is for many versions: its JSON is written once and kept in ``kept``
    (a :class:`~app.rooms.fanout.Kept` or a dict) for the versions after (:func:`_last_deal_fragment`).
    """
    state = table_json(public, last_deal=_last_deal_fragment(kept, public))
    state["you"] = None
    try:
        whole = ascii_json(orjson.dumps({"type": "state", "version": public.version, "state": state}).decode())
    except orjson.JSONEncodeError:  # a text orjson refuses: all of it as the standard library writes it
        whole = compact({"type": "state", "version": public.version, "state": {**table_json(public),
                                                                               "you": None}})
    return whole[:-len(',"you":null}}')]


class SheetText:
    """The JSON of one score sheet (``sheet``, a room's at one version): whole, or as the deals it adds to an
    earlier sheet a connection was sent (docs/protocol.md, "The score sheet")."""

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


def _sheet_text(kept: Any, sheet: tuple[DealScore, ...]) -> SheetText:
    """The :class:`SheetText` of ``sheet``, kept in ``kept`` from one version to the next: a room's sheet
    changes once a deal.

    It is found again only for the very sheet it was made from (the entry holds that tuple, whose deals
    never change, so no other sheet can take its place); a new sheet replaces it.
    """
    found: SheetText | None = kept.get(_SHEET_KEY)
    if found is not None and found.sheet is sheet:
        return found
    made = kept[_SHEET_KEY] = SheetText(sheet)
    return made


_SHEET_KEY = ("json", "score_sheet")


def _last_deal_fragment(kept: Any, public: RoomView) -> orjson.Fragment | None:
    """The JSON of :func:`last_deal_json` of ``public`` in the language being spoken, kept in ``kept`` from
    one version to the next: a room's last deal stays the same for a whole deal (``None``: no deal yet).

    It is found again only for the very summary it was made from, told with the same names.
    """
    summary = public.summary
    if summary is None:
        return None
    key = ("json", "last_deal", language())
    names = public.seat_names
    found = kept.get(key)
    if found is not None and found[0] is summary and found[1] == names:
        return cast(orjson.Fragment, found[2])
    made = orjson.Fragment(compact(last_deal_json(public)))
    kept[key] = (summary, names, made)
    return made


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

    def render(self, viewer: Viewer, shared: dict[Any, Any]) -> tuple[str, SheetText, str]:
        """The ``state`` frame for ``viewer`` in three pieces, the part shared by all its viewers up to its
        score sheet, the sheet's :class:`SheetText` and ``you``'s JSON; :meth:`frame` joins them into a
        connection's frame.

        Only the viewer's own hand is looked at besides the public view. The whole frame is made only as
        it is queued for a connection, so that a room does not keep a copy of the shared part for each of
        its viewers as long as the version lasts.
        """
        key = (self.kind, language())
        kept = getattr(shared, "kept", shared)
        head = shared.get(key)
        if head is None:
            head = shared[key] = _state_head(viewer.public, kept)
        sheet = shared.get(_SHEET_KEY)
        if sheet is None:
            sheet = shared[_SHEET_KEY] = _sheet_text(kept, viewer.public.score_sheet)
        return head, sheet, _you_text(viewer, kept)

    def frame(self, payload: tuple[str, SheetText, str], *, whole: bool = False) -> str:
        """The ``state`` frame from its rendered pieces: with ``score_sheet`` whole (the text
        :func:`state_message` gives for its view) when ``whole``, in this connection's first state, or when
        the sheet is not the one it was last sent with deals added; else with ``score_sheet_added``, the
        deals added since (most often none)."""
        head, sheet, you = payload
        added = None if whole or self.sheet is None else sheet.added_to(self.sheet)
        self.sheet = sheet.sheet
        if added is None:
            return f'{head},"score_sheet":{sheet.whole},"you":{you}}}}}'
        return f'{head},"score_sheet_added":{added},"you":{you}}}}}'

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
