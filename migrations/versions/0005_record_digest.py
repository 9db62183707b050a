"""Finished matches carry a digest of their record, so that a record is stored once.

Revision ID: 0005
Revises: 0004
Created: 2026-12-05

``matches.record_digest`` is the SHA-256 (hex) of the finished match's
record as stored, written as compact JSON with its keys sorted. ``cucumber
import`` looks a record up by it and stores one only if no finished match
has it already. Finished matches stored before this revision get theirs
here; matches in progress or abandoned have none.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

matches = sa.table("matches", sa.column("id", sa.String), sa.column("record", sa.JSON),
                   sa.column("record_digest", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("record_digest", sa.String(64), nullable=True))
        batch.create_index("ix_matches_record_digest", ["record_digest"])
    connection = op.get_bind()
    # The digest as app.storage.queries.digest_of makes it, as it was at this revision.
    rows = connection.execute(sa.select(matches.c.id, matches.c.record).where(matches.c.record.is_not(None)))
    for match_id, record in rows.all():
        if record is None:  # a JSON null
            continue
        text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(text.encode()).hexdigest()
        connection.execute(sa.update(matches).where(matches.c.id == match_id).values(record_digest=digest))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_record_digest")
        batch.drop_column("record_digest")
