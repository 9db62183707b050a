"""Seats say whether their player stepped away from the match being played.

Revision ID: 0004
Revises: 0003
Created: 2026-12-03

``seats.stepped_away`` is true while the seat's player has handed it to the
stand-in bot by choice, so that a restarted server (or the process a room is
handed over to) goes on playing it at once. Seats stored before this revision
are not stepped away.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The server default fills the seats stored already (false on both databases: sa.false()).
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("stepped_away", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("stepped_away")
