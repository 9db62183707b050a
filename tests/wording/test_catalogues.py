"""The translation catalogues keep step with the code: every message extracted from the code and the
templates (as babel.cfg says) is translated in every language, and nothing else is there.

When this fails after a change of wording, run ./scripts/messages and translate what it marks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, LOCALE_DIR

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]
PLACEHOLDER = re.compile(r"\{(\w+)\}|%\((\w+)\)s")


def key(message) -> tuple[str | None, str]:
    return message.context, message.id[0] if isinstance(message.id, tuple) else message.id


@pytest.fixture(scope="module")
def extracted() -> Catalog:
    """Every message of the code and the templates, extracted now as babel.cfg says."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as config:
        method_map, options_map = parse_mapping_cfg(config)
    catalog = Catalog()
    for filename, lineno, message, comments, context in extract_from_dir(
            ROOT, method_map, options_map, comment_tags=("Translators:",), strip_comment_tags=True):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=locale)


def messages(catalog: Catalog) -> dict[tuple[str | None, str], object]:
    return {key(message): message for message in catalog if message.id}


def placeholders(text: str) -> set[str]:
    return {brace or percent for brace, percent in PLACEHOLDER.findall(text)}


def test_extraction_finds_the_messages_of_the_code_and_of_the_templates(extracted):
    found = messages(extracted)
    assert (None, "{name} took the last trick with {card}.") in found  # app/wording
    assert ("card corner", "K") in found  # a message said in a context
    assert (None, "Waiting for players") in found  # a template's _()
    assert (None, "Deal %(number)s is over") in found  # a template's {% trans %}
    plural = found[None, "{count} life left"]
    assert plural.id == ("{count} life left", "{count} lives left")


def test_the_template_of_the_catalogues_is_up_to_date(extracted):
    stored = messages(read(LOCALE_DIR / "messages.pot"))
    fresh = messages(extracted)
    assert sorted(set(fresh) - set(stored), key=str) == [], "messages.pot misses these: run ./scripts/messages"
    assert sorted(set(stored) - set(fresh), key=str) == [], "messages.pot has stale ones: run ./scripts/messages"
    assert all(stored[name].id == fresh[name].id for name in fresh)  # plural forms too


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated_once_and_nothing_is_left_over(extracted, code):
    catalog = read(LOCALE_DIR / code / "LC_MESSAGES" / "messages.po", code)
    stored, fresh = messages(catalog), messages(extracted)
    assert sorted(set(fresh) - set(stored), key=str) == [], f"{code} misses messages: run ./scripts/messages"
    assert sorted(set(stored) - set(fresh), key=str) == [], f"{code} has stale messages: run ./scripts/messages"
    fuzzy = [name for name, message in stored.items() if message.fuzzy]
    assert fuzzy == [], f"{code}: fuzzy entries to check"
    empty = [name for name, message in stored.items()
             if not all(message.string) or isinstance(message.id, tuple) != isinstance(message.string, tuple)]
    assert empty == [], f"{code}: untranslated entries"
    assert not any(message.obsolete for message in catalog.obsolete.values())


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_every_placeholder_and_the_language_plural_forms(code):
    catalog = read(LOCALE_DIR / code / "LC_MESSAGES" / "messages.po", code)
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            assert len(message.string) == catalog.num_plurals, message.id
            wanted = placeholders(message.id[1])
            # A singular may leave the count out ("one life"); no form may bring a name of its own.
            assert all(placeholders(form) <= wanted for form in message.string), message.id
            assert placeholders(message.string[-1]) == wanted, message.id
        else:
            assert placeholders(message.string) == placeholders(message.id), message.id
    assert list(catalog.check()) == []  # Babel's own checks: python-format placeholders, plural counts
