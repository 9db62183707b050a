"""The site as an installable app: its web app manifest in each language, and the version of the static
files that names the service worker's caches.

The manifest (``/manifest/<code>.webmanifest``) and the worker (``/sw.js``) are served by
:mod:`app.api.webapp_pages`; the worker itself is the template ``sw.js``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.wording.language import say, speaking, text_direction
from app.wording.rules import game_name

APP_ID = "/"
"""The manifest's ``id``, the same in every language: one app, whatever language installed it."""

THEME_COLOUR = "#2e7d32"
"""The bar colour of the installed app: the pages' accent (``--accent`` in app.css)."""

BACKGROUND_COLOUR = "#f3efe6"
"""The splash screen's ground: the pages' background (``--bg`` in app.css)."""

ICONS = (
    ("icons/icon-192.png", 192, "any"),
    ("icons/icon-512.png", 512, "any"),
    ("icons/maskable-192.png", 192, "maskable"),
    ("icons/maskable-512.png", 512, "maskable"),
)
"""The manifest's icons: path under ``app/static``, side in pixels, purpose (drawn by ``scripts/icons``)."""


def manifest(code: str, static_path: Callable[[str], str], home_path: str) -> dict[str, Any]:
    """The web app manifest in language ``code`` (a key of ``LANGUAGES``), as a JSON object.

    ``static_path(path)`` is the URL path of a file under ``app/static`` and ``home_path`` the home
    page's. The name is the game's in that language (Agurk in Danish, Gurka in Swedish, Cucumber
    elsewhere); the ``id``, start and scope are the same in every language. Raises ``KeyError`` for a
    code outside ``LANGUAGES``.
    """
    with speaking(code):
        name = game_name()
        description = say("The Scandinavian card game for 2 to 7 players: open a table, send its link, play.")
    return {
        "id": APP_ID,
        "name": name,
        "short_name": name,
        "description": description,
        "lang": code,
        "dir": text_direction(code),
        "start_url": home_path,
        "scope": home_path,
        "display": "standalone",
        "orientation": "any",
        "categories": ["games"],
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [{"src": static_path(path), "sizes": f"{side}x{side}", "type": "image/png", "purpose": purpose}
                  for path, side, purpose in ICONS],
    }


def static_version(folder: Path) -> str:
    """A digest (16 hex digits) of every file under ``folder``, by relative path and content.

    The service worker names its caches with it: any change to a static file changes the worker's
    text, so browsers install the new worker, which drops the caches of the old one.
    """
    digest = hashlib.sha256()
    for path in sorted(item for item in folder.rglob("*") if item.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]

