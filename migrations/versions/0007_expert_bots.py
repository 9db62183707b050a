"""Seats may hold an ``expert`` bot.

Revision ID: 0007
Revises: 0006
Created: 2026-12-06

``seats.bot`` takes the new strength ``expert`` beside ``easy``, ``normal``
and ``hard``: the check constraint is made again with the four names.
Downgrading turns expert bots into hard ones first.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

seats = sa.table("seats", sa.column("bot", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint(op.f("ck_seats_bot"), type_="check")
        batch.create_check_constraint("bot", "bot IN ('easy', 'normal', 'hard', 'expert')")


def downgrade() -> None:
    op.execute(sa.update(seats).where(seats.c.bot == "expert").values(bot="hard"))
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint(op.f("ck_seats_bot"), type_="check")
        batch.create_check_constraint("bot", "bot IN ('easy', 'normal', 'hard')")
