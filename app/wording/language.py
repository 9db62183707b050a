"""Where a translation hooks in: every sentence people read passes through here.

English for now. A sentence is one whole string with ``{named}`` placeholders;
counts choose between a singular and a plural form, as gettext's ``ngettext``.
"""

from __future__ import annotations

from collections.abc import Sequence


def say(message: str, **facts: object) -> str:
    """``message`` in the reader's language, its ``{named}`` placeholders filled from ``facts``.

    ``message`` is a whole sentence (or a whole label), never a piece of one,
    so that a translator sees it entire: ``say("{name} wins the match!",
    name="Ana")`` → ``"Ana wins the match!"``. Values are inserted as they
    are (a name holding braces stays as it is). Raises ``KeyError`` for a
    placeholder without a fact. This is where gettext's ``gettext`` will go.
    """
    return message.format(**facts)


def say_count(singular: str, plural: str, count: int, **facts: object) -> str:
    """The form of a message for ``count`` things, with ``{count}`` and ``facts`` filled in.

    English takes ``singular`` for exactly 1 and ``plural`` for every other
    count (0, 2, 5): ``say_count("{count} life left", "{count} lives left",
    1)`` → ``"1 life left"``. This is where gettext's ``ngettext`` will go,
    which knows the plural rules of each language.
    """
    return (singular if count == 1 else plural).format(count=count, **facts)


def noted(message: str) -> str:
    """Mark ``message`` for translation where it is defined, to be said later with :func:`say`.

    Returns ``message`` unchanged (gettext's ``gettext_noop``): for tables of
    messages looked up by a code.
    """
    return message


def either(items: Sequence[str]) -> str:
    """Alternatives in a sentence: ``["2C", "2S"]`` → ``"2C or 2S"`` (one item: itself)."""
    return _chain(items, noted("{first} or {second}"))


def both(items: Sequence[str]) -> str:
    """Items together in a sentence: ``["Ana", "Ben"]`` → ``"Ana and Ben"`` (one item: itself)."""
    return _chain(items, noted("{first} and {second}"))


def _chain(items: Sequence[str], pair: str) -> str:
    if not items:
        return ""
    text = items[0]
    for item in items[1:]:
        text = say(pair, first=text, second=item)
    return text
