"""Matches are listed as ``parlett`` only under the rules that name now stands for.

Revision ID: 0006
Revises: 0005
Created: 2026-12-06

The ``parlett`` preset is the German rule sheet in full, so it now has
``follow: must_match`` (docs/rules.md §3, "Presets"). A match keeps the
rules it began with, which ``matches.rules`` holds option by option; only
``matches.preset``, the name it is listed under, changes here: a match of
the earlier ``parlett`` (``follow: match_or_lowest``) is listed with custom
rules (``NULL``), and one whose rules are the new ``parlett``, stored as
custom rules until now, is listed as ``parlett``. Downgrading does the
reverse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The options as they are at this revision (app.game.rules), written out: a migration does not change with the app.
DEFAULTS = {"hand_size": 7, "follow": "match_or_lowest", "ace_lead": "ordinary", "last_trick_tie": "last_played",
            "threshold": 21, "lives": 2, "second_life_min_opponents": 1, "penalty_to": "highest",
            "match_length": "elimination"}
NEW_PARLETT = DEFAULTS | {"threshold": 30, "lives": 2, "second_life_min_opponents": 3, "follow": "must_match",
                          "last_trick_tie": "all_tied", "ace_lead": "forces_lowest"}
OLD_PARLETT = NEW_PARLETT | {"follow": "match_or_lowest"}

matches = sa.table("matches", sa.column("id", sa.String), sa.column("rules", sa.JSON),
                   sa.column("preset", sa.String))


def upgrade() -> None:
    _relabel(unnamed=OLD_PARLETT, named=NEW_PARLETT)


def downgrade() -> None:
    _relabel(unnamed=NEW_PARLETT, named=OLD_PARLETT)


def _relabel(*, unnamed: dict[str, Any], named: dict[str, Any]) -> None:
    """List the matches whose rules are ``named`` as ``parlett``, and those whose rules are ``unnamed`` as custom."""
    connection = op.get_bind()
    rows = connection.execute(sa.select(matches.c.id, matches.c.rules, matches.c.preset)
                              .where(sa.or_(matches.c.preset == "parlett", matches.c.preset.is_(None))))
    for match_id, rules, label in rows.all():
        options = DEFAULTS | dict(rules) if isinstance(rules, Mapping) else None
        wanted = "parlett" if options == named else None if options == unnamed else label
        if wanted != label:
            connection.execute(sa.update(matches).where(matches.c.id == match_id).values(preset=wanted))
