"""Rooms carry their owner's epoch; who owned each room at each epoch; the lease of a single server.

Revision ID: 0003
Revises: 0002
Created: 2026-12-02

``rooms.epoch`` is the fencing number of the room's current owner: every write
of a room names the epoch it was made under, and one with an older epoch is
refused. ``room_owners`` logs each epoch's owner (one row per room and epoch).
``server_lease`` holds at most one row: the server process that may restore
and run the rooms of a database without a cluster.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("epoch", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "room_owners",
        sa.Column("room_code", sa.String(32), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("taken_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(["room_code"], ["rooms.code"], name=op.f("fk_room_owners_room_code_rooms"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("room_code", "epoch", name=op.f("pk_room_owners")),
    )
    op.create_table(
        "server_lease",
        sa.Column("id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_server_lease_single")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_lease")),
    )


def downgrade() -> None:
    op.drop_table("server_lease")
    op.drop_table("room_owners")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("epoch")
