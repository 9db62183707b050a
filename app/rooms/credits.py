"""How many messages one connection may send: a budget per kind of message, refilled over time.

Each kind (plays, host actions, syncs, heartbeats, everything else) has its own budget, so a
client that floods one kind is stopped without its other messages being held up. Pure: the
caller passes the clock's readings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from limits import parse_many

from app.config.settings import Settings
from app.rooms.messages import (
    AddBot,
    ChatText,
    ClientMessage,
    ComeBack,
    HandToBot,
    Heartbeat,
    Leave,
    Mute,
    Play,
    React,
    Remove,
    SetClock,
    SetQuietHours,
    SetRules,
    SetVacation,
    SetWebhook,
    SpectatorChat,
    Start,
    StepAway,
    Sync,
)


class Kind(StrEnum):
    """The kinds of message with a budget of their own (a setting ``limit_socket_<kind>`` each).

    Chat lines (:attr:`CHAT`) have none here: they are counted per sender by the ``chat`` limit
    (:mod:`app.web.ratelimit`), and refused past it without ever closing the connection.
    """

    PLAYS = "plays"
    HOST = "host"
    SYNCS = "syncs"
    HEARTBEATS = "heartbeats"
    OTHER = "other"
    CHAT = "chat"


class Verdict(StrEnum):
    """What becomes of one message: carried out, refused (``rate_limited``), or refused and its socket closed."""

    ALLOWED = "allowed"
    REFUSED = "refused"
    CLOSE = "close"


def kind_of(message: ClientMessage | object) -> Kind:
    """The budget a message draws on; anything that is not a message (a frame that could not be
    read as one) is :attr:`Kind.OTHER`, as is a second ``hello``."""
    match message:
        case Play():
            return Kind.PLAYS
        case Sync():
            return Kind.SYNCS
        case Heartbeat():
            return Kind.HEARTBEATS
        case Start() | SetRules() | AddBot() | HandToBot() | Remove() | SetClock() | Leave() | StepAway() | ComeBack() \
                | Mute() | SpectatorChat() | SetQuietHours() | SetVacation() | SetWebhook():
            return Kind.HOST
        case ChatText() | React():
            return Kind.CHAT
        case _:
            return Kind.OTHER


@dataclass(frozen=True, slots=True)
class Allowance:
    """``amount`` messages at once, and ``amount`` more every ``period`` seconds, bit by bit."""

    amount: int
    period: float

    @classmethod
    def parse(cls, text: str) -> Allowance | None:
        """One allowance in the ``limits`` notation (``30/minute``, ``20/10 seconds``); ``None`` for an
        empty text (no limit). Raises ``ValueError`` for text that is not exactly one allowance."""
        if not text.strip():
            return None
        items = parse_many(text)
        if len(items) != 1:
            raise ValueError(f"{text!r} is not one allowance")
        return cls(items[0].amount, float(items[0].get_expiry()))


def allowances(settings: Settings) -> dict[Kind, Allowance]:
    """Every kind's allowance from the settings (``limit_socket_<kind>``); none at all when
    ``rate_limits`` is off, and none for a kind whose setting is empty."""
    if not settings.rate_limits:
        return {}
    found = {kind: Allowance.parse(getattr(settings, f"limit_socket_{kind}")) for kind in Kind if kind != Kind.CHAT}
    return {kind: allowance for kind, allowance in found.items() if allowance is not None}


class Bucket:
    """One budget: it holds up to ``amount`` messages and refills at ``amount`` per ``period``.

    Every message costs one, carried out or not: refused messages are a debt the refill
    pays off first, so a client that keeps sending stays refused.
    """

    __slots__ = ("_at", "allowance", "level")  # one per kind of message and connection: thousands of them

    def __init__(self, allowance: Allowance, now: float) -> None:
        self.allowance = allowance
        self.level = float(allowance.amount)
        self._at = now

    def spend(self, now: float, close_after: float) -> Verdict:
        """Count one message sent at ``now`` (clock seconds).

        :attr:`Verdict.ALLOWED` while the budget holds it; past it :attr:`Verdict.REFUSED`,
        and :attr:`Verdict.CLOSE` once the messages of a burst pass ``close_after`` times the
        allowance (``0``: never; refused messages then leave no debt).
        """
        amount = self.allowance.amount
        self.level = min(amount, self.level + (now - self._at) * amount / self.allowance.period)
        self._at = now
        if self.level >= 1:
            self.level -= 1
            return Verdict.ALLOWED
        if not close_after:
            return Verdict.REFUSED
        self.level -= 1
        return Verdict.CLOSE if self.level < -(close_after - 1) * amount else Verdict.REFUSED


class Credits:
    """One connection's budgets, one per kind with an allowance; a kind without one is never refused.

    ``close_after`` is as :meth:`Bucket.spend` takes it; ``now`` is when the connection opened.
    """

    __slots__ = ("_buckets", "close_after")

    def __init__(self, allowances: Mapping[Kind, Allowance], close_after: float, now: float) -> None:
        self.close_after = close_after
        self._buckets = {kind: Bucket(allowance, now) for kind, allowance in allowances.items()}

    def spend(self, kind: Kind, now: float) -> Verdict:
        """Count one message of ``kind`` sent at ``now``; what becomes of it (see :meth:`Bucket.spend`)."""
        bucket = self._buckets.get(kind)
        return Verdict.ALLOWED if bucket is None else bucket.spend(now, self.close_after)
