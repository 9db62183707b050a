"""What renderers keep of a room's renderings: from one version to the next (:class:`Kept`), and between the
viewers of one version (:class:`Shared`). Each thing kept is found again by what it was made from."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from app.wording.language import language

V = TypeVar("V", bound=Hashable)
T = TypeVar("T")

Entry = tuple[Hashable, Any, tuple[Hashable, ...]]
"""A thing kept: the key it was kept under, the thing, and the keys of what it was made of."""


class Kept:
    """What renderers keep of a room's renderings from one version to the next: each thing made from a value
    by a pure function (:meth:`made`), under the function, the language and the value.

    A later version finds a thing again only where it would make the same.
    Once a version has been sent, what it did not use is let go
    (:meth:`settle`): a room holds about one version's worth, most of it the
    very texts its connections were last sent. What a thing was made of (the
    things :meth:`made` gave while it was being made: the pieces of a region)
    is used whenever it is, so it stays as long as that thing does.
    """

    __slots__ = ("_before", "_making", "_now")

    def __init__(self, before: dict[Hashable, Entry] | None = None) -> None:
        # Two dicts, not a generation mark on each entry: letting go of what a version did not use is
        # dropping one dict.
        self._now: dict[Hashable, Entry] = {}
        """What this version used or made."""
        self._before: dict[Hashable, Entry] = {} if before is None else before
        """What the version before used or made, and this one has not used yet."""
        self._making: list[Hashable] | None = None
        """While a thing is being made, the keys of the things it is made of, found or made so far."""

    def made(self, make: Callable[[V], T], value: V) -> T:
        """``make(value)`` in the language being spoken, kept under the function, the language and ``value``
        itself: found again wherever a later call (this version or the next) gives an equal value.

        ``make`` must be a pure function of ``value`` and the language (a function made once, not a new
        one each call): then what is kept is exactly what it would make again, and can reach no viewer who
        would not have been given ``value``. ``value`` must be hashable.
        """
        key = (make, language(), value)
        entry = self._now.get(key)
        if entry is None:
            entry = self._before.pop(key, None)
            if entry is not None:
                self._use(entry)
            else:
                outer, self._making = self._making, []
                try:
                    entry = (key, make(value), tuple(self._making))
                finally:
                    self._making = outer
                self._now[key] = entry
        if self._making is not None:
            self._making.append(entry[0])
        found: T = entry[1]
        return found

    def _use(self, entry: Entry) -> None:
        """Keep ``entry``, found from the version before, for this one, with what it was made of. It stays under
        the key it was kept under: that one is older, which the garbage collector no longer looks at, and
        the key asked with (a new tuple, often holding parts of the new version's view) is let go at once."""
        self._now[entry[0]] = entry
        for part in entry[2]:
            found = self._before.pop(part, None)
            if found is not None:
                self._use(found)

    def __len__(self) -> int:
        """How many things this version used or made."""
        return len(self._now)

    def settle(self) -> None:
        """Let go of what this version did not use (it was kept for the version before)."""
        self._before = {}

    def following(self) -> Kept:
        """The store for the next version: it finds what this version used (or made), and nothing older.

        The entries are handed on: this store is not to be used any more.
        """
        return Kept(self._now)


class Shared:
    """What renderers make once for all the viewers one version is sent to at once (:meth:`once`), and
    ``kept``: what they keep from one version to the next."""

    __slots__ = ("_made", "kept")

    def __init__(self, kept: Kept) -> None:
        self.kept = kept
        self._made: dict[tuple[Callable[..., Any], str], Any] = {}

    def once(self, make: Callable[..., T], *args: Any) -> T:
        """``make(*args)`` in the language being spoken, made once for the viewers who read that language,
        kept under ``make`` and the language.

        ``make`` must read only what every viewer of the version shares (its public view, the room's
        stores, a server's constants), so that any of them gives the same ``args``.
        """
        key = (make, language())
        found: T | None = self._made.get(key)
        if found is None:
            found = self._made[key] = make(*args)
        return found

    def __len__(self) -> int:
        """How many things were made once for this version."""
        return len(self._made)
