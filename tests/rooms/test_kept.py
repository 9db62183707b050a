"""What a room keeps of its renderings from one version to the next, and shares between one version's viewers."""

from __future__ import annotations

import sys

from app.rooms.kept import Kept, Shared
from app.wording.language import speaking


class Counted:
    """A pure function of its value (the value in capitals) that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, value: str) -> str:
        self.calls.append(value)
        return value.upper()


def test_a_thing_is_made_once_for_equal_values_in_each_language():
    kept, upper = Kept(), Counted()
    assert kept.made(upper, "a") == "A" and kept.made(upper, "a") == "A" and upper.calls == ["a"]
    assert kept.made(upper, "b") == "B" and upper.calls == ["a", "b"]
    with speaking("da"):
        assert kept.made(upper, "a") == "A" and upper.calls == ["a", "b", "a"]
    other = Counted()  # another function: kept apart
    assert kept.made(other, "a") == "A" and other.calls == ["a"] and len(kept) == 4


def test_what_a_version_keeps_lasts_while_later_versions_use_it_and_one_version_more():
    kept, upper = Kept(), Counted()
    kept.made(upper, "a"), kept.made(upper, "b")
    second = kept.following()
    assert second.made(upper, "a") == "A" and len(second) == 1  # found, and kept for the next
    third = second.following()
    assert third.made(upper, "a") == "A" and upper.calls == ["a", "b"]
    assert third.made(upper, "b") == "B" and upper.calls == ["a", "b", "b"]  # not used in the second: let go
    third.made(upper, "c")
    third.settle()  # sent: what it did not use goes now
    assert len(third) == 3
    fourth = third.following()
    fourth.made(upper, "d")
    fourth.settle()
    fourth.made(upper, "a")
    assert upper.calls == ["a", "b", "b", "c", "d", "a"]


def test_what_a_thing_was_made_of_stays_as_long_as_the_thing():
    """A region found again is not made again, and neither are its pieces: they stay kept with it, so a later
    region made of the same pieces finds them."""
    kept, upper = Kept(), Counted()

    def region(value: str) -> str:
        return "<" + "".join(kept_now.made(upper, piece) for piece in value) + ">"

    kept_now = kept
    assert kept.made(region, "ab") == "<AB>"
    for _ in range(3):  # later versions find the region, never asking for its pieces
        kept_now = kept_now.following()
        assert kept_now.made(region, "ab") == "<AB>"
    assert kept_now.made(region, "ba") == "<BA>" and upper.calls == ["a", "b"]  # the pieces were still kept


def test_a_thing_found_again_stays_under_the_key_it_was_kept_under():
    """A later version asks with a new value equal to the first: the store keeps the first key and holds no
    reference to the new value, which the collector would otherwise look at for as long as the version."""
    def value(version: int) -> tuple[object, ...]:
        return "status", (version, True)  # a new tuple each call

    kept, upper = Kept(), Counted()
    first = value(7)
    made = kept.made(repr, first)
    second = kept.following()
    asked = value(7)
    assert asked == first and asked is not first
    assert second.made(repr, asked) is made
    assert sys.getrefcount(asked) == 2  # the name here and getrefcount's argument: the store keeps none
    assert upper.calls == []


def test_what_every_viewer_shares_is_made_once_a_version_in_each_language():
    shared, upper = Shared(Kept()), Counted()
    assert shared.once(upper, "a") == "A" and shared.once(upper, "a") == "A" and upper.calls == ["a"]
    with speaking("sv"):
        assert shared.once(upper, "a") == "A" and upper.calls == ["a", "a"]
