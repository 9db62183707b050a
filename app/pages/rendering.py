"""HTML rendering with Jinja2: whole pages, and the live regions of the room page alone.

Templates receive view objects only, and words about the game through the
filters and globals of ``app.wording``. Their own text is marked for
translation (``{% trans %}``, ``_()``, Jinja2's i18n extension) and said in the
language being spoken (:func:`app.wording.language.speaking`) when they
render. A live region is a block whose name is its element's id;
:func:`render_block` renders one such block alone from its variables (a live region
from its value, app/pages/table.py); :func:`render_each` renders several of a
page's blocks sharing one context, as the whole page holds them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno
from babel import Locale
from babel.dates import format_skeleton
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, Template, pass_context, select_autoescape
from markupsafe import Markup, escape

from app.bots.strength import BotStrength
from app.common.names import NAME_INPUT_MAX
from app.game.cards import Card
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, PRESETS, Rules
from app.pages.assets import ASSETS
from app.pages.pieces import PIECES, piece
from app.pages.rules_form import rules_fields
from app.pages.webapp import THEME_COLOUR
from app.rooms.chat import TEXT_LIMIT
from app.rooms.pace import TURN_HOURS
from app.rooms.schedule import STAND_IN
from app.wording import card_name, deal_sentences, describe_preset, describe_rules, rank_label, suit_symbol, unplayable
from app.wording.chat import REACTIONS, reaction_picture, reaction_words, spectator_label
from app.wording.coach import coach_label
from app.wording.language import LANGUAGES, language, listing, number, text_direction, translations
from app.wording.players import bot_tag, player_name, strength_label
from app.wording.rules import game_name, preset_label

TEMPLATES = Path(__file__).parent.parent / "templates"

HTMX_URL = "https://cdn.jsdelivr.net/npm/htmx.org@2.0.11/dist/htmx.min.js"
HTMX_SRI = "sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg"
HTMX_WS_URL = "https://cdn.jsdelivr.net/npm/htmx-ext-ws@2.0.4/dist/ws.min.js"
HTMX_WS_SRI = "sha384-1RwI/nvUSrMRuNj7hX1+27J8XDdCoSLf0EjEyF69nacuWyiJYoQ/j39RT1mSnd2G"



templates = Jinja2Templates(env=Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape()))
# The templates are the package's own and do not change while it runs: not looked up on disk again (a file
# system call each time a template is asked for, a dozen times a version of a busy room page).
templates.env.auto_reload = False
templates.env.add_extension("jinja2.ext.i18n")
# Whitespace inside {% trans %} is collapsed, in the catalogues as in the pages (babel.cfg says the same).
templates.env.policies["ext.i18n.trimmed"] = True


def _gettext(message: str, /, **variables: Any) -> Markup:
    if not variables:
        return _said(language(), message)
    try:
        return _said_with(language(), message, tuple((name, type(value), value) for name, value in variables.items()))
    except TypeError:  # a value that cannot be a key: said afresh
        return Markup(translations(language()).gettext(message)) % variables


@functools.lru_cache(maxsize=4096)
def _said(code: str, message: str) -> Markup:
    """``message`` translated into language ``code`` as markup, as ``_()`` without variables gives it (``%%``
    written ``%``): the same few hundred texts are asked for in every live region of every version."""
    return Markup(translations(code).gettext(message)) % {}


@functools.lru_cache(maxsize=4096)
def _said_with(code: str, message: str, variables: tuple[tuple[str, type, Any], ...]) -> Markup:
    """``message`` translated into language ``code`` as markup, with ``variables`` (each a name, the type of
    its value and the value: a text and the markup equal to it are escaped apart) escaped into it, as
    ``_()`` with variables gives it: the live regions say the same sentences of the same names, numbers
    and cards again and again."""
    return Markup(translations(code).gettext(message)) % {name: value for name, _, value in variables}


def _ngettext(singular: str, plural: str, count: int, /, **variables: Any) -> Markup:
    variables.setdefault("num", count)
    return Markup(translations(language()).ngettext(singular, plural, count)) % variables


def _pgettext(context: str, message: str, /, **variables: Any) -> Markup:
    variables.setdefault("context", context)
    return Markup(translations(language()).pgettext(context, message)) % variables


def _npgettext(context: str, singular: str, plural: str, count: int, /, **variables: Any) -> Markup:
    variables.setdefault("context", context)
    variables.setdefault("num", count)
    return Markup(translations(language()).npgettext(context, singular, plural, count)) % variables


# One environment for every language: its gettext functions look the language up as they are called.
# They do what Jinja2's "newstyle" gettext does in an autoescaping template (every template here is
# HTML): the translation is markup, and the variables are escaped into it. Jinja2's own wrappers take
# the template's context, and Jinja2 copies the whole context for each such call made in a loop or in a
# block that sets a variable: that copying was most of the cost of rendering a live region.
templates.env.install_gettext_callables(_gettext, _ngettext, newstyle=True, pgettext=_pgettext,  # type: ignore[attr-defined]
                                        npgettext=_npgettext)
templates.env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext, pgettext=_pgettext,
                             npgettext=_npgettext)


def when(moment: datetime) -> str:
    """A moment (aware, or naive UTC) as the language spoken writes a date and a time of day, in UTC
    (the zone the pages name beside it): ``"Nov 30, 2025, 16:06"`` in English, ``"30. nov. 2025 16.06"``
    in Danish."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    code = language()
    date = format_skeleton("yMMMd", moment, tzinfo=UTC, locale=code)
    time = format_skeleton("Hm", moment, tzinfo=UTC, locale=code)
    return str(Locale.parse(code).datetime_formats["medium"]).format(time, date)


@pass_context
def _path_for(context: Any, name: str, /, **params: Any) -> str:
    """``url_for`` in templates: the route's path alone, so links keep the scheme and host the
    browser used (behind a TLS proxy too) instead of the server's view of them. A static file's
    (``url_for('static', path='app.js')``) is the URL that names its content (:mod:`app.pages.assets`)."""
    if name == "static":
        params = {**params, "path": ASSETS.hashed(params["path"])}
    return str(context["request"].app.url_path_for(name, **params))


@pass_context
def _return_path(context: Any) -> str:
    """The path of the page being shown, for the language switcher to come back to: the request's own
    path and query for a page fetched with GET, else (a form's answer) the page the form was on, by its
    ``Referer`` when that is this site, else the home page."""
    request = context["request"]
    if request.method in ("GET", "HEAD"):
        query = request.url.query
        return str(request.url.path + (f"?{query}" if query else ""))
    referer = urlsplit(request.headers.get("referer", ""))
    if referer.netloc and referer.netloc.lower() == request.headers.get("host", "").lower():
        return str(referer.path) + (f"?{referer.query}" if referer.query else "")
    return str(request.app.url_path_for("home"))


templates.env.globals["url_for"] = _path_for
templates.env.globals["return_path"] = _return_path
templates.env.globals.update(
    htmx_url=HTMX_URL, htmx_sri=HTMX_SRI, htmx_ws_url=HTMX_WS_URL, htmx_ws_sri=HTMX_WS_SRI,
    presets=PRESETS, describe_preset=describe_preset, describe_rules=describe_rules,
    deal_sentences=deal_sentences, default_rules=Rules(), form_fields=rules_fields,
    preset_options={name: rules.to_dict() for name, rules in PRESETS.items()},
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, rule_options={option.name: option for option in OPTIONS},
    bot_strengths=tuple(BotStrength), stand_in_bot=STAND_IN, name_input_max=NAME_INPUT_MAX,
    language=language, text_direction=text_direction, languages=LANGUAGES, game_name=game_name,
    theme_colour=THEME_COLOUR, turn_hours=TURN_HOURS,
)
templates.env.filters.update(
    card=lambda card: Card.parse(card) if isinstance(card, str) else card,
    card_name=card_name,
    rank_label=lambda card: rank_label(card.rank),
    suit_symbol=suit_symbol,
    unplayable=unplayable,
    player_name=player_name,
    strength_label=strength_label,
    bot_tag=bot_tag,
    number=number,
    when=when,
    listing=listing,
    preset_label=preset_label,
)


def _macro(name: str) -> Callable[..., str]:
    """The macro ``name`` of ``_macros.html``."""
    macro: Callable[..., str] = getattr(templates.get_template("_macros.html").module, name)
    return macro


@functools.lru_cache(maxsize=4096)
def _card_face(card: Card, small: bool, label: bool, code: str) -> Markup:
    return Markup(_macro("card_face")(card, small=small, label=label))


def card_face(card: Card, small: bool = False, label: bool = True) -> Markup:
    """The ``card_face`` macro of ``_macros.html`` for ``card``, made once per card, size, label and
    language: a face depends on nothing else, and a table shows the same faces again and again."""
    return _card_face(card, small, label, language())


@functools.lru_cache(maxsize=1024)
def _hearts(lives: int, total: int, code: str) -> Markup:
    return Markup(_macro("hearts")(lives, total))


def hearts(lives: int, total: int) -> Markup:
    """The ``hearts`` macro of ``_macros.html`` (``lives`` of ``total`` left), made once per count and
    language."""
    return _hearts(lives, total, language())


@functools.lru_cache(maxsize=4096)
def _card_button(card: Card, reason: str | None, code: str) -> Markup:
    return Markup(_macro("card_button")(card, reason))


def card_button(card: Card, reason: str | None) -> Markup:
    """The ``card_button`` macro of ``_macros.html``: ``card`` of the viewer's own hand as its button, playable
    where ``reason`` (why it cannot be played, in words: :func:`app.wording.unplayable`) is ``None``.

    Made once per card, reason and language: a hand's buttons say nothing of the state they belong to (the
    hand around them names the match, the deal and the cards played), so a busy table asks for the same
    few hundred again and again (docs/performance.md).
    """
    return _card_button(card, reason, language())


templates.env.globals.update(card_face=card_face, hearts=hearts)
templates.env.filters["card_button"] = card_button  # a filter is called at once, a function through the context
templates.env.globals["coach_label"] = coach_label


def seat_html(seat: Any) -> str:
    """A seat's region of the table page (``seat-N``) from its value (:class:`~app.pages.regions.SeatShown`): the
    block of ``_seat.html`` rendered alone, in the language being spoken. A plain string, as the page's regions
    are kept and sent: the garbage collector does not look at one (it looks at every ``Markup``)."""
    return render_block("_seat.html", "seat", {"seat": seat})


def seat_region(seat: Any) -> Markup:
    """:func:`seat_html` as markup, for the seats' container to hold as it is (the filter ``seat_region``)."""
    return Markup(seat_html(seat))


templates.env.filters["seat_region"] = seat_region


@functools.cache
def _piece_macro(name: str) -> Callable[[Any], str]:
    """The macro ``name`` of ``_pieces.html``, looked up once (the templates do not change while the server
    runs)."""
    macro: Callable[[Any], str] = getattr(templates.get_template("_pieces.html").module, name)
    return macro


templates.env.filters.update({name: piece(name, _piece_macro) for name in PIECES})


def qr_svg(text: str, label: str) -> Markup:
    """``text`` (a link) as a QR code: inline SVG markup, for a template.

    Dark on a white ground with its quiet zone, so that it scans in a dark
    colour scheme too; no ``style`` attribute (the pages' policy refuses
    them); named ``label`` for screen readers (``role="img"``, ``aria-label``
    and a ``<title>``). Raises ``segno.DataOverflowError`` for text longer
    than a QR code holds (about 2,300 characters at this error correction).
    """
    svg = segno.make(text, error="m").svg_inline(scale=4, dark="#000", light="#fff", title=label, svgclass="qr-code")
    return Markup('<svg role="img" aria-label="{}" {}'.format(escape(label), svg.removeprefix("<svg ")))


templates.env.globals["qr_svg"] = qr_svg
# The table chat (_chat.html): the quick reactions by code, and how they and spectators are said.
templates.env.globals.update(chat_reactions=tuple(REACTIONS), reaction_words=reaction_words,
                             reaction_picture=reaction_picture, spectator_label=spectator_label,
                             chat_text_limit=TEXT_LIMIT)


Block = str | tuple[str, dict[str, Any]]
"""A block to render alone: its name, or its name and variables of its own (a ``scoped`` block inside a
loop, rendered for one item: the loop's variable)."""


def render_blocks(template_name: str, blocks: list[Block], context: dict[str, Any]) -> str:
    """Render only the named ``blocks`` of a template, concatenated, with ``context``
    (:func:`render_each`)."""
    return "".join(render_each(template_name, blocks, context))


def render_block(template_name: str, name: str, variables: dict[str, Any]) -> str:
    """The block ``name`` of a template rendered alone with ``variables`` besides the template's globals: a
    live region from its value. Raises ``KeyError`` for a block the template does not have.

    Its context holds that block alone (a live region calls no other block), so that making it costs no more
    than the region it renders.
    """
    template, render, blocks = _block(template_name, name)
    environment = template.environment
    context = environment.context_class(environment, _globals_of(template), template.name, blocks)
    context.vars.update(variables)
    return "".join(render(context))


@functools.cache
def _block(template_name: str, name: str) -> tuple[Template, Callable[[Any], Iterator[str]], dict[str, Any]]:
    """The template ``template_name``, its block ``name``'s render function and the blocks a context that
    renders it alone holds (that one): looked up once, as the templates do not change while the server runs.
    Raises ``KeyError`` for a block the template does not have."""
    template: Template = templates.get_template(template_name)
    render = template.blocks[name]
    return template, render, {name: render}


def render_each(template_name: str, blocks: list[Block], context: dict[str, Any]) -> list[str]:
    """Each of the named ``blocks`` of a template rendered alone with ``context``, in the order named.

    The blocks share one context, made of the template's globals and
    ``context``; a block named with variables of its own sees them besides,
    and the blocks after it do not. A block's own ``{% set %}`` stays inside
    it (Jinja2's scoping), so sharing it changes nothing in what they show.
    Raises ``KeyError`` for a block the template does not have.
    """
    template: Template = templates.get_template(template_name)
    environment = template.environment
    # The globals are the context's parent, read where a name is not among its variables: shared, not copied.
    shared = environment.context_class(environment, _globals_of(template), template.name, template.blocks)
    variables = shared.vars
    variables.update(context)
    rendered = []
    for block in blocks:
        if isinstance(block, str):
            rendered.append("".join(template.blocks[block](shared)))
            continue
        name, own = block
        hidden = {key: variables[key] for key in own if key in variables}
        variables.update(own)
        try:
            rendered.append("".join(template.blocks[name](shared)))
        finally:
            for key in own:
                del variables[key]
            variables.update(hidden)
    return rendered


_GLOBALS: dict[int, tuple[Template, dict[str, Any]]] = {}


def _globals_of(template: Template) -> dict[str, Any]:
    """``template``'s globals as one plain dict, built once per template (they are set at import).

    Jinja2 keeps a template's globals in a ``ChainMap`` over the environment's
    and copies it for every new context; a plain copy made once costs far
    less. The context made from it has no extra globals to hand to the
    templates it imports, so ``{% from "_macros.html" import … %}`` takes the
    module Jinja2 keeps instead of building a new one each time.
    """
    known = _GLOBALS.get(id(template))
    if known is None or known[0] is not template:
        known = _GLOBALS[id(template)] = (template, dict(template.globals))
    return known[1]
