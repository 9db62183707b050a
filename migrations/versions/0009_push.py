"""Web Push: the server's VAPID key pair and the players' push subscriptions.

Revision ID: 0009
Revises: 0008
Created: 2026-12-06

``vapid_keys`` holds at most one row (``id`` 1), made at the first start with
push on. ``push_subscriptions`` holds each browser's subscription for a seat
(the player's token hash at a room), one per room and endpoint.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "vapid_keys",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("private_key", sa.String(64), nullable=False),
        sa.Column("public_key", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_vapid_keys_single")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vapid_keys")),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room_code", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.String(2000), nullable=False),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("renewed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint("room_code", "endpoint", name=op.f("uq_push_subscriptions_room_code_endpoint")),
    )
    op.create_index("ix_push_subscriptions_room_code_token_hash", "push_subscriptions", ["room_code", "token_hash"])
    op.create_index("ix_push_subscriptions_renewed_at", "push_subscriptions", ["renewed_at"])


def downgrade() -> None:
    op.drop_index("ix_push_subscriptions_renewed_at", table_name="push_subscriptions")
    op.drop_index("ix_push_subscriptions_room_code_token_hash", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
    op.drop_table("vapid_keys")
