"""The rules of a match: the house default and every variant option.

docs/rules.md §2 is the default; each option of §3 is a named field of
:class:`Rules`. Presets give names to the rule sets of the original sheets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from app.game.errors import InvalidRules

FOLLOW = ("match_or_lowest", "must_match")
ACE_LEAD = ("ordinary", "forces_lowest", "forces_lowest_last_trick")
LAST_TRICK_TIE = ("last_played", "all_tied")
PENALTY_TO = ("highest", "lowest")
ELIMINATION = "elimination"

_CHOICES: dict[str, tuple[str, ...]] = {
    "follow": FOLLOW,
    "ace_lead": ACE_LEAD,
    "last_trick_tie": LAST_TRICK_TIE,
    "penalty_to": PENALTY_TO,
}
_RANGES: dict[str, tuple[int, int]] = {
    "hand_size": (3, 7),
    "threshold": (10, 100),
    "lives": (1, 3),
    "second_life_min_opponents": (1, 6),
    "match_length": (1, 50),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """One value for every option of docs/rules.md §3; the defaults are §2.

    Fields (all validated on construction, :class:`InvalidRules` naming the
    option otherwise):

    - ``hand_size``: cards dealt to each active player, 3–7.
    - ``follow``: ``"match_or_lowest"`` (§2.4) or ``"must_match"``.
    - ``ace_lead``: ``"ordinary"``, ``"forces_lowest"`` or
      ``"forces_lowest_last_trick"``.
    - ``last_trick_tie``: ``"last_played"`` (§2.5) or ``"all_tied"``.
    - ``threshold``: points (10–100) at which a player loses a life.
    - ``lives``: 1–3.
    - ``second_life_min_opponents``: 1–6 other active players needed at the
      start of the deal to continue after losing a non-final life.
    - ``penalty_to``: ``"highest"`` (§2.7) or ``"lowest"``.
    - ``match_length``: ``"elimination"`` (§2.10) or a number of deals, 1–50.
    """

    hand_size: int = 7
    follow: str = "match_or_lowest"
    ace_lead: str = "ordinary"
    last_trick_tie: str = "last_played"
    threshold: int = 21
    lives: int = 2
    second_life_min_opponents: int = 1
    penalty_to: str = "highest"
    match_length: int | str = ELIMINATION

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise InvalidRules(f"{name} must be one of {', '.join(allowed)}, not {value!r}", name)
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if name == "match_length" and value == ELIMINATION:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                also = f" or {ELIMINATION!r}" if name == "match_length" else ""
                raise InvalidRules(f"{name} must be a whole number from {low} to {high}{also}, not {value!r}", name)

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> Rules:
        """Build rules from a JSON-style mapping; omitted options take their default.

        Raises :class:`InvalidRules` for a non-mapping, an unknown option or a
        bad value, naming the option.
        """
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise InvalidRules(f"rules must be an object of options, not {type(options).__name__}")
        known = {f.name for f in fields(cls)}
        for name in options:
            if name not in known:
                raise InvalidRules(f"unknown rules option {name!r}", str(name))
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """Every option and its value, as stored in match records (docs/rules.md §4)."""
        return asdict(self)

    def changed(self, **options: Any) -> Rules:
        """A copy with some options changed (validated as on construction)."""
        return replace(self, **options)

    @property
    def is_fixed_length(self) -> bool:
        """Whether the match ends after ``match_length`` deals (§3 ``match_length``)."""
        return self.match_length != ELIMINATION


PRESETS: dict[str, Rules] = {
    "agurk": Rules(),
    "gurka": Rules(threshold=30, lives=1, follow="must_match", ace_lead="forces_lowest"),
    "parlett": Rules(threshold=30, lives=2, second_life_min_opponents=3, last_trick_tie="all_tied",
                     ace_lead="forces_lowest"),
    "quick": Rules(hand_size=3),
}
"""Named rule sets: ``agurk`` is the house default (the Danish game of
docs/rules.md §2), ``gurka`` and ``parlett`` the traditional rules of the
Italian and German sheets (§3), and ``quick`` a short game of 3 cards each.
``app.wording.describe_preset`` describes them for people."""


def preset(name: str) -> Rules:
    """The rules of a named preset; raises :class:`InvalidRules` for an unknown name."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InvalidRules(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}", "preset") from None


def preset_name(rules: Rules) -> str | None:
    """The name of the preset equal to ``rules``, or ``None`` for custom rules."""
    for name, candidate in PRESETS.items():
        if candidate == rules:
            return name
    return None
