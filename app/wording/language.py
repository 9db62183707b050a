"""Where a translation hooks in: every sentence people read passes through here.

A sentence is one whole string with ``{named}`` placeholders, looked up in
the gettext catalogue of the language being spoken (``app/locale``, read with
Babel); counts choose their plural form with ``ngettext``, by each language's
own plural rule. The language is chosen per request or connection with
:func:`speaking`; outside of one it is English.
"""

from __future__ import annotations

import functools
import gettext
import io
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

LANGUAGES: dict[str, str] = {
    "en": "English",
    "da": "Dansk",
    "sv": "Svenska",
    "de": "Deutsch",
    "es": "Español",
    "it": "Italiano",
}
"""Every language the site speaks, by code, each with its name in itself (for the switcher)."""

DEFAULT_LANGUAGE = "en"
"""The language of the messages in the code, spoken when nobody asks for another."""

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
"""The gettext catalogues: ``<code>/LC_MESSAGES/messages.po`` for each language but English."""

DOMAIN = "messages"

_spoken: ContextVar[str] = ContextVar("language", default=DEFAULT_LANGUAGE)


class MissingCatalogue(RuntimeError):
    """A language of :data:`LANGUAGES` has no catalogue in :data:`LOCALE_DIR` (a broken install)."""


@functools.cache
def translations(code: str) -> gettext.NullTranslations:
    """The translations of language ``code``, compiled from its ``.po`` catalogue on first use.

    The catalogue is compiled in memory with Babel (``.po`` → ``.mo`` →
    :class:`babel.support.Translations`), once per process; fuzzy entries
    are left out, as ``msgfmt`` would. English is the code's own text
    (:class:`gettext.NullTranslations`). Raises ``KeyError`` for a code
    outside :data:`LANGUAGES` and :class:`MissingCatalogue` when its file is
    not there.
    """
    if code not in LANGUAGES:
        raise KeyError(code)
    if code == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    path = LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    try:
        with path.open("rb") as source:
            catalog = read_po(source, locale=code, domain=DOMAIN)
    except FileNotFoundError:
        raise MissingCatalogue(f"no catalogue for {code!r} at {path}") from None
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def load_catalogues() -> None:
    """Compile every language's catalogue now (at start-up), so that a broken one stops the server
    before anyone asks for it, and no visitor waits for the compilation; load each language's way of
    writing numbers (Babel's locale data) too."""
    for code in LANGUAGES:
        translations(code)
        _number(0, code)


language: Callable[[], str] = _spoken.get
"""``language()``: the code of the language being spoken (``"en"`` unless :func:`speaking` chose another). The
context variable's own getter, not a function around it: every text a page says asks for it."""


@contextmanager
def speaking(code: str) -> Iterator[str]:
    """Speak language ``code`` (a key of :data:`LANGUAGES`) within the ``with`` block; yields it.

    The choice is a context variable, so it holds for this task (and the
    threads it hands work to with ``asyncio.to_thread``) and no other.
    Raises ``KeyError`` for a code outside :data:`LANGUAGES`.
    """
    if code not in LANGUAGES:
        raise KeyError(code)
    token = _spoken.set(code)
    try:
        yield code
    finally:
        _spoken.reset(token)


def text_direction(code: str | None = None) -> str:
    """``"ltr"`` or ``"rtl"``: the direction language ``code`` (default: the one spoken) is written in."""
    return "rtl" if Locale.parse(code or language()).character_order == "right-to-left" else "ltr"


_TAG = re.compile(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*")


def supported(tag: object) -> str | None:
    """The language of :data:`LANGUAGES` that a language tag names, or ``None``.

    ``"da"``, ``"da-DK"`` and ``"DA_dk"`` → ``"da"``; ``"pt"``, ``"*"``,
    junk or a non-string → ``None``.
    """
    if not isinstance(tag, str) or not _TAG.fullmatch(tag.strip()):
        return None
    primary = re.split(r"[-_]", tag.strip().lower(), maxsplit=1)[0]
    return primary if primary in LANGUAGES else None


def negotiate(accept_language: str | None) -> str | None:
    """The language of :data:`LANGUAGES` an ``Accept-Language`` header prefers most, or ``None``.

    Languages are taken by their quality (``q``, 1 when absent; 0 means
    "not this one"), in the order written among equals; a regional tag
    counts for its language (``sv-FI`` → ``sv``).
    """
    choices: list[tuple[float, int, str]] = []
    for position, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = supported(tag)
        if code is not None and quality > 0:
            choices.append((-quality, position, code))
    return min(choices)[2] if choices else None


def number(value: int | float) -> str:
    """A number as the language spoken writes it: ``1234`` → ``"1,234"`` in English, ``"1.234"`` in Danish."""
    return _number(value, language())


@functools.lru_cache(maxsize=4096, typed=True)
def _number(value: int | float, code: str) -> str:
    # Every state sent says a few dozen numbers (scores, totals, counts): the same few values over and over,
    # each far dearer to write with Babel than to look up (docs/performance.md).
    return format_decimal(value, locale=code)


def _facts(facts: dict[str, object]) -> dict[str, object]:
    return {name: number(value) if isinstance(value, int) and not isinstance(value, bool) else value
            for name, value in facts.items()}


def say(message: str, **facts: object) -> str:
    """``message`` in the reader's language, its ``{named}`` placeholders filled from ``facts``.

    ``message`` is a whole sentence (or a whole label), never a piece of one,
    so that a translator sees it entire: ``say("{name} wins the match!",
    name="Ana")`` → ``"Ana wins the match!"``. Values are inserted as they
    are (a name holding braces stays as it is); whole numbers are written as
    the language writes them (:func:`number`). Raises ``KeyError`` for a
    placeholder without a fact.
    """
    return translations(language()).gettext(message).format(**_facts(facts))


def say_count(singular: str, plural: str, count: int, **facts: object) -> str:
    """The form of a message for ``count`` things, with ``{count}`` and ``facts`` filled in.

    The form is the reader's language's (gettext's ``ngettext``): English
    takes ``singular`` for exactly 1 and ``plural`` for every other count
    (0, 2, 5), ``say_count("{count} life left", "{count} lives left", 1)``
    → ``"1 life left"``; other languages have their own rule.
    """
    return translations(language()).ngettext(singular, plural, count).format(**_facts({"count": count, **facts}))


def say_in(context: str, message: str, **facts: object) -> str:
    """As :func:`say`, for a short message whose words depend on where it stands (gettext's ``pgettext``).

    ``say_in("card corner", "K")`` is the corner label of a king, which a
    translator words apart from any other ``"K"``.
    """
    return translations(language()).pgettext(context, message).format(**_facts(facts))


def noted(message: str) -> str:
    """Mark ``message`` for translation where it is defined, to be said later with :func:`say`.

    Returns ``message`` unchanged (gettext's ``gettext_noop``): for tables of
    messages looked up by a code.
    """
    return message


def noted_in(context: str, message: str) -> str:
    """As :func:`noted`, for a message said later with :func:`say_in` in ``context``; returns ``message``."""
    return message


def noted_count(singular: str, plural: str) -> tuple[str, str]:
    """Mark a counted message's two English forms for translation, to be said later with
    :func:`say_count` (``say_count(*pair, count)``); returns ``(singular, plural)``."""
    return singular, plural


def either(items: Sequence[str]) -> str:
    """Alternatives in a sentence: ``["2C", "2S"]`` → ``"2C or 2S"`` (one item: itself)."""
    return _chain(items, noted("{first} or {second}"))


def both(items: Sequence[str]) -> str:
    """Items together in a sentence: ``["Ana", "Ben"]`` → ``"Ana and Ben"`` (one item: itself)."""
    return _chain(items, noted("{first} and {second}"))


def listing(items: Sequence[str]) -> str:
    """Items in a sentence, the last pair joined by "and": ``["Ana", "Ben", "Cy"]`` → ``"Ana, Ben and Cy"``."""
    if len(items) < 3:
        return both(items)
    text = items[0]
    for item in items[1:-1]:
        text = say("{first}, {second}", first=text, second=item)
    return say("{first} and {second}", first=text, second=items[-1])


def _chain(items: Sequence[str], pair: str) -> str:
    if not items:
        return ""
    text = items[0]
    for item in items[1:]:
        text = say(pair, first=text, second=item)
    return text
