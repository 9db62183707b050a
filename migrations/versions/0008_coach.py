"""Who decided each play, and the coach's analyses of finished matches.

Revision ID: 0008
Revises: 0007
Created: 2026-12-06

``plays.decided_by`` is ``"player"`` for a card the seat's own player chose,
or why a stand-in bot played it for a person (``away``, ``stepped_away``,
``turn_clock``); plays stored before this revision count as their player's.
``analyses`` holds one row per finished match the coach has taken up:
claimed by a worker (``running``), then ``done`` with its grades and each
seat's accuracy, or ``failed``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("plays") as batch:
        batch.add_column(sa.Column("decided_by", sa.String(16), nullable=False, server_default="player"))
    op.create_table(
        "analyses",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("worker", sa.String(100), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("grades", sa.JSON(), nullable=True),
        sa.Column("accuracy", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(500), nullable=True),
        sa.CheckConstraint("status IN ('running', 'done', 'failed')", name=op.f("ck_analyses_status")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name=op.f("fk_analyses_match_id_matches"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_analyses")),
    )
    op.create_index("ix_analyses_status_claimed_at", "analyses", ["status", "claimed_at"])


def downgrade() -> None:
    op.drop_index("ix_analyses_status_claimed_at", table_name="analyses")
    op.drop_table("analyses")
    with op.batch_alter_table("plays") as batch:
        batch.drop_column("decided_by")
