"""The static files (scripts, style sheets, icons) under URLs that name their content, and the app serving them.

``app.js`` is served as ``/static/app.<hash>.js``, ``<hash>`` the first
:data:`HASH_LENGTH` hex digits of the SHA-256 of its bytes, so a file's URL
changes exactly when the file does and a browser or proxy may keep it for a
year (:mod:`app.web.caching`). Templates get these URLs from ``url_for('static',
path=…)`` (:func:`app.pages.rendering`'s ``url_for``, which asks :meth:`Assets.hashed`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).parent.parent / "static"
HASH_LENGTH = 10
"""Hex digits of a file's SHA-256 in its URL: 40 bits, so two versions of one file never meet by chance."""

HASHED_NAME = re.compile(rf"(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_LENGTH}}})(?P<suffix>\.[A-Za-z0-9]+)")
"""A file's name with a hash in it: ``app.0123456789.js``."""


def content_hash(data: bytes) -> str:
    """The hash a file of bytes ``data`` is named by: :data:`HASH_LENGTH` lower-case hex digits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:HASH_LENGTH]


def hashed_name(name: str, digest: str) -> str:
    """``name`` (a path under the folder, ``/``-separated) with ``digest`` before its suffix: ``app.js`` →
    ``app.<digest>.js`` (a name without a suffix gets it at the end)."""
    folder, _, base = name.rpartition("/")
    stem, dot, suffix = base.rpartition(".")
    named = f"{stem}.{digest}.{suffix}" if dot and stem else f"{base}.{digest}"
    return f"{folder}/{named}" if folder else named


class Assets(StaticFiles):
    """The files of ``directory`` (every file, in sub-folders too), each under its hashed name.

    The hashes are read once, when this is made: the package's files do not
    change while the server runs, and a deploy starts new processes.

    - ``GET /static/app.<hash>.js`` with the current hash: the file
      (:meth:`is_current` holds; :mod:`app.web.caching` lets it be kept a year);
    - with a hash of another version (a tab opened before a deploy, a page
      a cache kept): ``307`` to the current URL, so the page still gets a
      script and a style sheet that fit the server it talks to, and a hashed
      URL never answers with bytes other than those it names;
    - the plain name (``/static/app.js``, the URL before hashes, or a file
      that must keep one URL): the file, to be checked again before each use.
    """

    def __init__(self, directory: Path = STATIC) -> None:
        super().__init__(directory=directory)
        self.hashes: dict[str, str] = {
            path.relative_to(directory).as_posix(): content_hash(path.read_bytes())
            for path in sorted(directory.rglob("*")) if path.is_file()
        }
        """Each file's name (relative to the folder, ``/``-separated) → its content hash."""

    def hashed(self, name: str) -> str:
        """The path under ``/static`` that names file ``name`` as it is now. Raises ``KeyError`` for a name
        that is not one of the files (a template naming a file that does not exist)."""
        return hashed_name(name, self.hashes[name])

    def split(self, path: str) -> tuple[str, str] | None:
        """``(file name, hash)`` for ``path`` (under ``/static``) when it is one of the files' names with a
        hash in it (of any version), else ``None``."""
        found = HASHED_NAME.fullmatch(path)
        if found is None:
            return None
        name = found["stem"] + found["suffix"]
        return (name, found["hash"]) if name in self.hashes else None

    def is_current(self, path: str) -> bool:
        """Whether ``path`` (under ``/static``) names a file with its current hash."""
        split = self.split(path)
        return split is not None and self.hashes[split[0]] == split[1]

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file a request's ``path`` names (see the class), a redirect, or Starlette's 404 and 405."""
        split = self.split(path.replace("\\", "/"))
        if split is not None and scope["method"] in ("GET", "HEAD"):
            name, digest = split
            if digest != self.hashes[name]:
                # Within a mount, the root path is where it is mounted (``/static``).
                return RedirectResponse(f"{scope.get('root_path', '')}/{self.hashed(name)}", status_code=307)
            path = name
        return await super().get_response(path, scope)


ASSETS = Assets()
"""The package's own static files, served at ``/static``."""
