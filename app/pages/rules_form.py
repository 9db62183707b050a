"""The rules form of the home and table pages: its fields, and reading what it posts.

Both come from the engine's option table (:data:`app.game.rules.OPTIONS`),
so an option, its values and its default are written in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.common.names import form_number
from app.game.rules import CHOICE, NUMBER, NUMBER_OR_WORD, OPTIONS, RuleOption
from app.wording import option_label, value_label

SELECT_AT_MOST = 10
"""A number option with at most this many values is a list to pick from; a wider one is typed."""

ROUND_NUMBERS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100)
"""The numbers offered for an option that also takes a word (a match of N deals), where allowed."""


@dataclass(frozen=True, slots=True)
class FieldChoice:
    """One entry of a list field: the value as the form sends it, and its label."""

    value: str
    label: str


@dataclass(frozen=True, slots=True)
class RulesField:
    """One field of the rules form, for one option.

    ``widget`` is ``"select"`` (pick one of ``choices``) or ``"number"`` (type
    a whole number from ``low`` to ``high``).
    """

    name: str
    label: str
    widget: str
    choices: tuple[FieldChoice, ...]
    low: int
    high: int


def rules_fields() -> tuple[RulesField, ...]:
    """The fields of the rules form, one per option of :data:`~app.game.rules.OPTIONS`, in its order.

    A choice, a number with few values and a number-or-word option are
    lists; other numbers are typed within their range.
    """
    return tuple(_field(option) for option in OPTIONS)


def _field(option: RuleOption) -> RulesField:
    label = option_label(option.name)
    if option.kind == NUMBER and len(option.numbers) > SELECT_AT_MOST:
        return RulesField(option.name, label, "number", (), option.low, option.high)
    values: list[int | str] = list(option.choices)
    if option.kind == NUMBER:
        values += option.numbers
    elif option.kind == NUMBER_OR_WORD:
        values += [number for number in ROUND_NUMBERS if number in option.numbers]
    choices = tuple(FieldChoice(str(value), value_label(option.name, value)) for value in values)
    return RulesField(option.name, label, "select", choices, option.low, option.high)


def rules_from_form(form: dict[str, Any]) -> dict[str, Any]:
    """A rules message from form fields: a preset name, or ``custom`` with every option.

    ``form`` maps field names to what was posted (text). Returns
    ``{"preset": name}`` for a preset, otherwise ``{"rules": options}``
    with the options present: numbers as ints (ASCII digits only), words
    as they came, and an empty or missing number-or-word option (a match's
    length) at its default. Bad values are left for the rules check to name.
    """
    if form.get("preset") not in (None, "", "custom"):
        return {"preset": form["preset"]}
    options: dict[str, Any] = {}
    for option in OPTIONS:
        if option.name in form:
            value = form[option.name]
            options[option.name] = value if option.kind == CHOICE else form_number(value)
        if option.kind == NUMBER_OR_WORD and options.get(option.name) in (None, ""):
            options[option.name] = option.default
    return {"rules": options}


def pace_from_form(form: dict[str, Any]) -> dict[str, Any]:
    """The ``pace`` of a rules message from the form's ``turn_hours`` field: ``"live"`` (or empty) for a live
    room, hours for a slow one (checked by the room); no field, no ``pace`` (unchanged)."""
    if "turn_hours" not in form:
        return {}
    hours = form["turn_hours"]
    return {"pace": None if hours in ("live", "", None) else {"turn_hours": form_number(hours)}}
