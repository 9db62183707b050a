"""A room as one JSON-protocol connection sees it, kept from the frames the server sends, with no network.

:class:`View` takes frames (dicts, or text as they arrive) in order and keeps the current ``state``, its
score sheet whole (docs/protocol.md, "WebSocket"); :func:`follow` folds a list of frames into states.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]

RECONNECT_CODES = frozenset({1006, 1011, 1012, 1013, 4408})
"""Close codes after which docs/protocol.md says to open a new socket and say ``hello`` again (``4408``: a
client that sent heartbeats went silent; it comes back when it is in use again)."""

_VERSION = re.compile(r'"version":(\d+)')
_TYPE = re.compile(r'\{"type":"([a-z_]+)"')
_STATE_PREFIX = '{"type":"state"'
_NO_DEALS_ADDED = '"score_sheet_added":[]'


class ProtocolViolation(Exception):
    """The server broke a promise of docs/protocol.md: a frame that is not a JSON object with a ``type``;
    for a strict :class:`View`, also a version that did not increase or deals added to a score sheet
    never sent."""


class Refused(Exception):
    """A message (or an HTTP request) the server refused; nothing changed.

    ``code`` is the stable error code (docs/protocol.md, the table of codes), ``message`` the words for
    people, in the connection's language; ``status`` is the HTTP status, ``None`` on a socket.
    """

    def __init__(self, code: str, message: str = "", status: int | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code, self.message, self.status = code, message, status


@dataclass(slots=True)
class Frame:
    """One message from the server, as :meth:`View.take` saw it.

    ``kind`` is its ``type`` (``state``, ``error``, ``chat``, ``chat_history``, ``chat_status``,
    ``link``…). For a ``state``: ``version``, and ``fresh``, whether the view moved to it (``False`` for
    the repeated version that answers a ``sync``, or an older one that a lenient view ignores). For an
    ``error``: ``code`` and ``text``. ``body`` is the decoded message (``None`` for a state a lean view
    did not decode; :attr:`View.state` decodes it when asked).
    """

    kind: str
    body: Json | None = None
    version: int | None = None
    fresh: bool = False
    code: str | None = None
    text: str | None = None
    state: Json | None = None
    """For a fresh ``state`` (decoded): the view's state after it, score sheet whole."""

    @property
    def table(self) -> Table | None:
        """For a fresh ``state`` (decoded): the state after it, with typed accessors; else ``None``."""
        return None if self.state is None else Table(self.state)

    def refusal(self) -> Refused:
        """The :class:`Refused` an ``error`` frame stands for."""
        return Refused(self.code or "", self.text or "")


@dataclass(slots=True)
class View:
    """What one connection holds of its room: the newest ``state`` and its ``version``.

    Take each frame in the order the connection received it (:meth:`apply` for a decoded dict,
    :meth:`take` for text). A new connection to the same room starts with :meth:`reconnected`: its first
    state carries the whole score sheet, and its versions go on from the highest seen.

    ``strict``: a ``state`` whose version is not above the one held (other than the answer to a
    ``sync``), or one that adds deals to the score sheet in a connection's first state, raises
    :class:`ProtocolViolation`; otherwise the first is ignored, as the protocol allows, and the second
    adds its deals to the sheet held.

    ``lean``: :meth:`take` reads a state's version from its text and decodes the rest only when
    :attr:`state` is read (or when the frame changes the score sheet), and decodes no other frame but an
    ``error``: for clients that read few of the states they get, such as a load generator.
    """

    strict: bool = False
    lean: bool = False
    version: int = -1
    """The newest version taken; ``-1`` before the first state."""
    sheet: list[Json] = field(default_factory=list)
    """The score sheet, whole: a deal's entry for each completed deal of the match."""
    _state: Json | None = None
    _text: str | None = None
    _syncs: int = 0
    _on_connection: int = 0

    # --------------------------------------------------------------- taking frames

    def expect_sync(self) -> None:
        """A ``sync`` was sent: one state may repeat the version held."""
        self._syncs += 1

    def reconnected(self) -> None:
        """A new socket said ``hello``: its first state has the whole sheet; syncs asked before are void."""
        self._syncs = 0
        self._on_connection = 0

    def take(self, text: str | bytes) -> Frame:
        """Take one frame as received; returns what it was. Raises :class:`ProtocolViolation`."""
        if isinstance(text, bytes):
            text = text.decode()
        if self.lean:
            if text.startswith(_STATE_PREFIX):
                found = _VERSION.search(text, 0, 80)
                if found is not None:
                    return self._take_lean(text, int(found.group(1)))
            else:
                kind = _TYPE.match(text)
                if kind is not None and kind.group(1) != "error":
                    return Frame(kind.group(1))
        try:
            body = json.loads(text)
        except ValueError as error:
            raise ProtocolViolation(f"a frame that is not JSON: {text[:80]!r}") from error
        return self.apply(body)

    def apply(self, body: Json) -> Frame:
        """Take one decoded frame; returns what it was. Raises :class:`ProtocolViolation`."""
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            raise ProtocolViolation(f"a frame that is not a message: {body!r:.80}")
        kind = body["type"]
        if kind == "error":
            return Frame(kind, body, code=str(body.get("code")), text=str(body.get("message", "")))
        if kind != "state":
            return Frame(kind, body)
        version = body["version"]
        if not self._advances(version):
            return Frame(kind, body, version=version)
        state = dict(body["state"])
        added = state.pop("score_sheet_added", None)
        if added is not None:
            self._check_held()
            self.sheet = [*self.sheet, *added]
        else:
            self.sheet = list(state.get("score_sheet", self.sheet))
        state["score_sheet"] = self.sheet
        self._state, self._text, self.version = state, None, version
        self._on_connection += 1
        return Frame(kind, body, version=version, fresh=True, state=state)

    def _take_lean(self, text: str, version: int) -> Frame:
        if not self._advances(version):
            return Frame("state", None, version=version)
        if _NO_DEALS_ADDED not in text:  # the sheet changes (or comes whole): keep it
            state = json.loads(text)["state"]
            added = state.get("score_sheet_added")
            if added is not None:
                self._check_held()
                self.sheet = [*self.sheet, *added]
            else:
                self.sheet = list(state.get("score_sheet", self.sheet))
        else:
            self._check_held()
        self._state, self._text, self.version = None, text, version
        self._on_connection += 1
        return Frame("state", None, version=version, fresh=True)

    def _check_held(self) -> None:
        if self._on_connection == 0 and self.strict:
            raise ProtocolViolation("deals added to a score sheet in a connection's first state")

    def _advances(self, version: int) -> bool:
        """Whether a state of ``version`` moves the view on; a sync's answer repeats the version held."""
        if version == self.version and self._syncs:
            self._syncs -= 1
            self._on_connection += 1
            return False
        if version > self.version or (version == self.version and self._on_connection == 0):
            return True  # a new socket's first state may be the version the last one ended on
        if self.strict:
            raise ProtocolViolation(f"version {version} after {self.version}")
        return False

    # --------------------------------------------------------------- reading the view

    @property
    def state(self) -> Json | None:
        """The newest ``state`` object (docs/protocol.md, "The `state` object") with its ``score_sheet``
        whole; ``None`` before the first. Treat it as read-only: it is the view's own."""
        if self._text is not None:
            state = json.loads(self._text)["state"]
            state.pop("score_sheet_added", None)
            state["score_sheet"] = self.sheet
            self._state, self._text = state, None
        return self._state

    @property
    def table(self) -> Table | None:
        """The newest state with typed accessors; ``None`` before the first."""
        state = self.state
        return None if state is None else Table(state)


@dataclass(frozen=True, slots=True)
class Table:
    """Typed accessors over one ``state`` object (``raw``, as docs/protocol.md shows it)."""

    raw: Json

    @property
    def phase(self) -> str:
        """``lobby`` (no match yet), ``playing`` or ``finished``."""
        return str(self.raw["phase"])

    @property
    def match_id(self) -> str | None:
        return self.raw.get("match_id")

    @property
    def deal(self) -> int | None:
        """The deal's number in the match, from 1 (``None`` or 0 in a lobby)."""
        return self.raw.get("deal")

    @property
    def turn(self) -> int | None:
        """The seat to play, ``None`` between deals and outside a match."""
        return self.raw.get("turn")

    @property
    def seats(self) -> list[Json]:
        return list(self.raw["seats"])

    @property
    def you(self) -> Json | None:
        """This connection's own part (``None`` for a spectator)."""
        return self.raw.get("you")

    @property
    def seat(self) -> int | None:
        """This connection's seat, ``None`` for a spectator or a host without a seat."""
        you = self.you
        return None if you is None else you.get("seat")

    @property
    def hand(self) -> list[str]:
        """This connection's cards, as codes, lowest first (empty for a spectator)."""
        you = self.you
        return list(you["hand"]) if you and you.get("hand") else []

    @property
    def legal(self) -> list[str]:
        """The cards this connection may play now, as codes (empty when it is not its turn)."""
        you = self.you
        return list(you["legal"]) if you and you.get("legal") else []

    @property
    def my_turn(self) -> bool:
        """Whether a match is being played and it is this connection's seat to play."""
        return self.phase == "playing" and self.turn is not None and self.turn == self.seat

    @property
    def cards_played(self) -> int:
        """Cards played so far in the deal: ``seats[].played`` plus the trick."""
        return sum(len(seat["played"]) for seat in self.raw["seats"]) + len(self.raw["trick"])

    def moment(self) -> dict[str, Any]:
        """The fields that tie a ``play`` to this moment: ``match``, ``deal``, ``played``."""
        return {"match": self.match_id, "deal": self.deal, "played": self.cards_played}


def follow(frames: Iterable[Json], *, strict: bool = True) -> Iterator[Json]:
    """The state a connection holds after each ``state`` frame of ``frames`` (decoded, in the order received):
    each whole, its ``score_sheet`` built from the whole sheets and the deals added. Frames of other types
    are skipped. Raises :class:`ProtocolViolation` (with ``strict``, also for a version that does not
    increase; a ``sync`` answer repeats a version, so give such frames to :meth:`View.apply` after
    :meth:`View.expect_sync`)."""
    view = View(strict=strict)
    for frame in frames:
        if view.apply(frame).fresh:
            assert view.state is not None
            yield view.state
