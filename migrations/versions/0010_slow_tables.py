"""Slow tables: a room's pace, what a slow room keeps besides its lobby, and when a sleeping one is due.

Revision ID: 0010
Revises: 0009
Created: 2026-12-06

``rooms.turn_hours`` is a slow room's hours a turn (``NULL``: a live room,
as every room stored before this revision). ``rooms.slow`` holds, as JSON,
the turn being waited for with its deadline and reminder, the notices sent
for it, quiet hours, vacations and the chat webhook. ``rooms.wake_at`` is
when a slow room that sleeps in the database is next due.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("turn_hours", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("slow", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("wake_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_rooms_wake_at", "rooms", ["wake_at"])


def downgrade() -> None:
    op.drop_index("ix_rooms_wake_at", table_name="rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("wake_at")
        batch.drop_column("slow")
        batch.drop_column("turn_hours")
