"""HTML rendering with Jinja2: whole pages, and the live regions of the room page alone.

Templates receive view objects only, and words about the game through the
filters and globals of ``app.wording``. A live region is a block whose name is
its element's id; :func:`render_blocks` renders the named blocks of a page for
a WebSocket update.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import segno
from fastapi.templating import Jinja2Templates
from jinja2 import Template, pass_context
from markupsafe import Markup, escape

from app.bots.strength import BotStrength
from app.game.cards import Card
from app.game.rules import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, PRESETS, Rules
from app.rooms.schedule import STAND_IN
from app.rules_form import rules_fields
from app.wording import card_name, describe_preset, rank_label, suit_symbol, unplayable

TEMPLATES = Path(__file__).parent / "templates"

HTMX_URL = "https://cdn.jsdelivr.net/npm/htmx.org@2.0.11/dist/htmx.min.js"
HTMX_SRI = "sha384-2OatzQy1H+Zd/IIrjr1TcuDGqLXeHhbooAyJY1KdQMKnr4LZ22k31GBLdYKHmVjg"
HTMX_WS_URL = "https://cdn.jsdelivr.net/npm/htmx-ext-ws@2.0.4/dist/ws.min.js"
HTMX_WS_SRI = "sha384-1RwI/nvUSrMRuNj7hX1+27J8XDdCoSLf0EjEyF69nacuWyiJYoQ/j39RT1mSnd2G"

templates = Jinja2Templates(directory=TEMPLATES)


@pass_context
def _path_for(context: Any, name: str, /, **params: Any) -> str:
    """``url_for`` in templates: the route's path alone, so links keep the scheme and host the
    browser used (behind a TLS proxy too) instead of the server's view of them."""
    return str(context["request"].app.url_path_for(name, **params))


templates.env.globals["url_for"] = _path_for
templates.env.globals.update(
    htmx_url=HTMX_URL, htmx_sri=HTMX_SRI, htmx_ws_url=HTMX_WS_URL, htmx_ws_sri=HTMX_WS_SRI,
    presets=PRESETS, describe_preset=describe_preset, default_rules=Rules(), form_fields=rules_fields,
    preset_options={name: rules.to_dict() for name, rules in PRESETS.items()},
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, rule_options={option.name: option for option in OPTIONS},
    bot_strengths=tuple(BotStrength), stand_in_bot=STAND_IN,
)
templates.env.filters.update(
    card=lambda card: Card.parse(card) if isinstance(card, str) else card,
    card_name=card_name,
    rank_label=lambda card: rank_label(card.rank),
    suit_symbol=suit_symbol,
    unplayable=unplayable,
)


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


def render_blocks(template_name: str, blocks: list[str], context: dict[str, Any]) -> str:
    """Render only the named ``blocks`` of a template, concatenated, with ``context``."""
    template: Template = templates.get_template(template_name)
    rendered = []
    for name in blocks:
        block_context = template.new_context(context)
        rendered.append("".join(template.blocks[name](block_context)))
    return "".join(rendered)
