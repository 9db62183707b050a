"""The rules of a match in plain words: one sentence per option, and the presets' descriptions.

The engine gives option values (:class:`~app.game.rules.Rules`,
docs/rules.md §2–§3); every sentence about them is here.
"""

from __future__ import annotations

import functools

from app.game.rules import Rules
from app.wording.counts import lives, points
from app.wording.language import language, noted, noted_in, say, say_count, say_in

FOLLOW = {
    "match_or_lowest": noted("Follow with a card at least as high as the highest in the trick, "
                             "or with your lowest card."),
    "must_match": noted("Follow with a card at least as high as the highest in the trick if you can; "
                        "otherwise play your lowest card."),
}
ACE_LEAD = {
    "ordinary": noted("A led ace is an ordinary card: another ace may equal it."),
    "forces_lowest": noted("When an ace is led, everyone plays their lowest card and the ace wins."),
    "forces_lowest_last_trick": noted("When an ace is led to the last trick, everyone plays their lowest card "
                                      "and the ace wins; earlier, a led ace is an ordinary card."),
}
PENALTY = {
    ("highest", "last_played"): noted("The winner of the last trick adds the value of their card "
                                      "(on equal ranks the later card wins)."),
    ("highest", "all_tied"): noted("The winner of the last trick adds the value of their card; "
                                   "everyone who played that same rank pays it too."),
    ("lowest", "last_played"): noted("Inverse cucumber: the player of the lowest card in the last trick "
                                     "(the later one on a tie) adds the value of the trick's highest card."),
    ("lowest", "all_tied"): noted("Inverse cucumber: everyone who played the lowest rank in the last trick "
                                  "adds the value of the trick's highest card."),
}
"""Who pays, by ``(penalty_to, last_trick_tie)``."""

PRESETS = {
    "agurk": noted("Danish Agurk, the house default: 7 cards, 21 points, 2 lives"),
    "gurka": noted("Swedish Gurka: 30 points, one life, must match, a led ace forces lowest cards"),
    "parlett": noted("Parlett's buy-back: 30 points, a second life only while 3 others are in, must match, "
                     "ties on the last trick all pay, a led ace forces lowest cards"),
    "quick": noted("Quick: the house default with 3 cards each"),
}
"""What each preset of :data:`app.game.rules.PRESETS` is, in a line."""

PRESET_NAMES = {
    "agurk": noted_in("preset", "agurk"),
    "gurka": noted_in("preset", "gurka"),
    "parlett": noted_in("preset", "parlett"),
    "quick": noted_in("preset", "quick"),
}
"""The short name of each preset, as the table and the match list show it."""


OPTION_LABELS = {
    "hand_size": noted("Cards each"),
    "follow": noted("Following"),
    "ace_lead": noted("A led ace"),
    "last_trick_tie": noted("Equal cards on the last trick"),
    "penalty_to": noted("Who pays"),
    "threshold": noted("Threshold (points)"),
    "lives": noted("Lives"),
    "second_life_min_opponents": noted("Others needed to use a second life"),
    "match_length": noted("Match length"),
}
"""The rules form's label of each option of :data:`app.game.rules.OPTIONS`."""

VALUE_LABELS = {
    ("follow", "match_or_lowest"): noted("match the highest or play your lowest"),
    ("follow", "must_match"): noted("must match the highest if you can"),
    ("ace_lead", "ordinary"): noted("is an ordinary card"),
    ("ace_lead", "forces_lowest"): noted("forces everyone's lowest card"),
    ("ace_lead", "forces_lowest_last_trick"): noted("forces lowest cards in the last trick only"),
    ("last_trick_tie", "last_played"): noted("the later card pays"),
    ("last_trick_tie", "all_tied"): noted("everyone with that rank pays"),
    ("penalty_to", "highest"): noted("the winner of the last trick"),
    ("penalty_to", "lowest"): noted("the lowest card of the last trick (inverse)"),
    ("second_life_min_opponents", 1): noted("{count} (always)"),
    ("match_length", "elimination"): noted("until one player is left"),
}
"""The rules form's label of a value, where it is more than the value itself."""


def game_name() -> str:
    """The game's name as the reader's players call it: ``"Cucumber"`` in English, ``"Agurk"`` in Danish."""
    # Translators: the game's name as players of your language call it (Danish "Agurk", Swedish "Gurka");
    # keep "Cucumber" where that is what they say.
    return say("Cucumber")


def option_label(name: str) -> str:
    """The label of a rules option on the form, e.g. ``"Cards each"``; ``KeyError`` for an unknown name."""
    return say(OPTION_LABELS[name])


def value_label(name: str, value: int | str) -> str:
    """The label of one value of a rules option on the form.

    ``("follow", "must_match")`` → ``"must match the highest if you can"``;
    ``("match_length", 5)`` → ``"5 deals, lowest total wins"``; a number
    without a label of its own is itself (``("lives", 2)`` → ``"2"``).
    Raises ``KeyError`` for a word without a label.
    """
    if (name, value) in VALUE_LABELS:
        return say(VALUE_LABELS[name, value], count=value)
    if isinstance(value, str):
        raise KeyError((name, value))
    if name == "match_length":
        return say_count("{count} deal, lowest total wins", "{count} deals, lowest total wins", value)
    return str(value)


def describe_rules(rules: Rules) -> list[str]:
    """The rules in plain words, one sentence per option (docs/rules.md §2, §3).

    In order: cards each, following (§2.4, ``follow``), a led ace
    (``ace_lead``), who pays the last trick (§2.7, ``penalty_to`` with
    ``last_trick_tie``), threshold and lives (§2.8), continuing after a lost
    life (``second_life_min_opponents``, said only when it matters) and how
    the match ends (§2.10, ``match_length``).
    """
    return list(_rules_sentences(rules, language()))


@functools.lru_cache(maxsize=512)
def _rules_sentences(rules: Rules, code: str) -> tuple[str, ...]:
    # Said again for every state a room sends, in the language ``code`` being spoken: kept per rules and language.
    lines = [
        say_count("{count} card each; only the last trick scores.", "{count} cards each; only the last trick scores.",
                  rules.hand_size),
        say(FOLLOW[rules.follow]),
        say(ACE_LEAD[rules.ace_lead]),
        say(PENALTY[rules.penalty_to, rules.last_trick_tie]),
        say("Reaching {points} costs a life; everyone has {lives}.", points=points(rules.threshold),
            lives=lives(rules.lives)),
    ]
    if rules.lives > 1:
        lines.append(say("After losing a life you continue on the highest total of the others."))
        if rules.second_life_min_opponents > 1:
            lines.append(say_count("You may only continue if at least {count} other was still in when that deal began.",
                                   "You may only continue if at least {count} others were still in "
                                   "when that deal began.", rules.second_life_min_opponents))
    if rules.is_fixed_length:
        lines.append(say_count("The match lasts {count} deal; the lowest total wins.",
                               "The match lasts {count} deals; the lowest total wins.", int(rules.match_length)))
    else:
        lines.append(say("The last player left in wins."))
    return tuple(lines)


def preset_label(name: str | None) -> str:
    """A preset's short name as shown (``"quick"`` in English), or ``"custom"`` for ``None`` (rules of no preset).

    Raises ``KeyError`` for a name outside :data:`app.game.rules.PRESETS`.
    """
    if name is None:
        return say("custom")
    return say_in("preset", PRESET_NAMES[name])


def describe_preset(name: str) -> str:
    """A preset in a line, e.g. ``"Quick: the house default with 3 cards each"``.

    ``name`` is a key of :data:`app.game.rules.PRESETS`; raises ``KeyError``
    for any other.
    """
    return say(PRESETS[name])
