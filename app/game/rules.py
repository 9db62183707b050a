"""The rules of a match: the house default and every variant option.

docs/rules.md §2 is the default; each option of §3 is a named field of
:class:`Rules`. Presets give names to the rule sets of the original sheets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from app.game.errors import SHOWN_LIMIT, InvalidRules, shown

MIN_PLAYERS = 2
MAX_PLAYERS = 7
"""Players in a match, and so seats at a table (docs/rules.md §1)."""

FOLLOW = ("match_or_lowest", "must_match")
ACE_LEAD = ("ordinary", "forces_lowest", "forces_lowest_last_trick")
LAST_TRICK_TIE = ("last_played", "all_tied")
PENALTY_TO = ("highest", "lowest")
ELIMINATION = "elimination"

CHOICE = "choice"
NUMBER = "number"
NUMBER_OR_WORD = "number_or_word"


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One option of docs/rules.md §3: its name, kind, the values it allows and its default.

    ``kind`` is :data:`CHOICE` (one of ``choices``), :data:`NUMBER` (a whole
    number from ``low`` to ``high``) or :data:`NUMBER_OR_WORD` (one of the
    words in ``choices`` or a whole number from ``low`` to ``high``, as
    ``match_length``). ``default`` is the house game's value (§2).
    """

    name: str
    kind: str
    default: int | str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = -1

    @property
    def numbers(self) -> range:
        """The whole numbers allowed, in order (empty for a :data:`CHOICE`)."""
        return range(self.low, self.high + 1)

    def allows(self, value: object) -> bool:
        """Whether ``value`` is one this option takes (a word of ``choices`` or an int in range, never a bool)."""
        if isinstance(value, str):
            return value in self.choices
        return isinstance(value, int) and not isinstance(value, bool) and value in self.numbers

    def check(self, value: object) -> None:
        """Raise :class:`InvalidRules` naming this option unless it :meth:`allows` ``value``."""
        if self.allows(value):
            return
        if self.kind == CHOICE:
            raise InvalidRules(f"{self.name} must be one of {', '.join(self.choices)}, not {shown(value)}", self.name,
                               value=value)
        words = "".join(f" or {word!r}" for word in self.choices)
        raise InvalidRules(f"{self.name} must be a whole number from {self.low} to {self.high}{words}, "
                           f"not {shown(value)}", self.name, value=value)


OPTIONS: tuple[RuleOption, ...] = (
    RuleOption("hand_size", NUMBER, 7, low=3, high=7),
    RuleOption("follow", CHOICE, "match_or_lowest", FOLLOW),
    RuleOption("ace_lead", CHOICE, "ordinary", ACE_LEAD),
    RuleOption("last_trick_tie", CHOICE, "last_played", LAST_TRICK_TIE),
    RuleOption("penalty_to", CHOICE, "highest", PENALTY_TO),
    RuleOption("threshold", NUMBER, 21, low=10, high=100),
    RuleOption("lives", NUMBER, 2, low=1, high=3),
    RuleOption("second_life_min_opponents", NUMBER, 1, low=1, high=MAX_PLAYERS - 1),
    RuleOption("match_length", NUMBER_OR_WORD, ELIMINATION, (ELIMINATION,), low=1, high=50),
)
"""Every option of docs/rules.md §3, the one definition of names, values and
defaults: :class:`Rules` checks against it, the rules form, the page script
and the command line's help are made from it, and a test holds the table of
docs/playing.md to it. In the order the form shows them (:class:`Rules` keeps
the record's order)."""

_DEFAULTS: dict[str, Any] = {option.name: option.default for option in OPTIONS}


@dataclass(frozen=True, slots=True)
class Rules:
    """One value for every option of docs/rules.md §3; the defaults are §2.

    Each field is an option of :data:`OPTIONS`, which gives its values and
    default; all are checked on construction, :class:`InvalidRules` naming
    the option otherwise:

    - ``hand_size``: cards dealt to each active player.
    - ``follow``: ``"match_or_lowest"`` (§2.4) or ``"must_match"``.
    - ``ace_lead``: ``"ordinary"``, ``"forces_lowest"`` or
      ``"forces_lowest_last_trick"``.
    - ``last_trick_tie``: ``"last_played"`` (§2.5) or ``"all_tied"``.
    - ``threshold``: points at which a player loses a life.
    - ``lives``: lives each player starts with.
    - ``second_life_min_opponents``: other active players needed at the
      start of the deal to continue after losing a non-final life.
    - ``penalty_to``: ``"highest"`` (§2.7) or ``"lowest"``.
    - ``match_length``: ``"elimination"`` (§2.10) or a number of deals.
    """

    hand_size: int = _DEFAULTS["hand_size"]
    follow: str = _DEFAULTS["follow"]
    ace_lead: str = _DEFAULTS["ace_lead"]
    last_trick_tie: str = _DEFAULTS["last_trick_tie"]
    threshold: int = _DEFAULTS["threshold"]
    lives: int = _DEFAULTS["lives"]
    second_life_min_opponents: int = _DEFAULTS["second_life_min_opponents"]
    penalty_to: str = _DEFAULTS["penalty_to"]
    match_length: int | str = _DEFAULTS["match_length"]

    def __post_init__(self) -> None:
        for option in OPTIONS:
            option.check(getattr(self, option.name))

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
                raise InvalidRules(f"unknown rules option {shown(name)}", str(name)[:SHOWN_LIMIT])
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
    "parlett": Rules(threshold=30, lives=2, second_life_min_opponents=3, follow="must_match",
                     last_trick_tie="all_tied", ace_lead="forces_lowest"),
    "quick": Rules(hand_size=3),
}
"""Named rule sets: ``agurk`` is the house default (the Danish game of
docs/rules.md §2), ``gurka`` and ``parlett`` the traditional rules of the
Italian and German sheets (§3; ``parlett`` is the German sheet's basic rules
with Parlett's buy-back, "Presets"), and ``quick`` a short game of 3 cards each.
``app.wording.describe_preset`` describes them for people."""


def preset(name: str) -> Rules:
    """The rules of a named preset; raises :class:`InvalidRules` for an unknown name."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InvalidRules(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}", "preset",
                           value=name) from None


def preset_name(rules: Rules) -> str | None:
    """The name of the preset equal to ``rules``, or ``None`` for custom rules."""
    for name, candidate in PRESETS.items():
        if candidate == rules:
            return name
    return None
