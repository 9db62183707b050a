"""Rooms, seats, matches, deals and plays.

Revision ID: 0001
Revises:
Created: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Types are spelled out here, not taken from the models, so that later changes
# to the models do not change what this revision creates. Names are final
# (op.f): the naming convention of the models' metadata must not rename them.
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("host_token_hash", sa.String(64), nullable=True),
        sa.Column("turn_seconds", sa.Integer(), nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("closed_at", TIMESTAMP, nullable=True),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_rooms")),
    )
    op.create_index(op.f("ix_rooms_closed_at"), "rooms", ["closed_at"])

    op.create_table(
        "seats",
        sa.Column("room_code", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("bot", sa.String(8), nullable=True),
        sa.PrimaryKeyConstraint("room_code", "seat", name=op.f("pk_seats")),
        sa.ForeignKeyConstraint(["room_code"], ["rooms.code"], name=op.f("fk_seats_room_code_rooms"),
                                ondelete="CASCADE"),
        sa.CheckConstraint("seat >= 0", name=op.f("ck_seats_seat")),
        sa.CheckConstraint("bot IN ('easy', 'normal', 'hard')", name=op.f("ck_seats_bot")),
    )

    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("room_code", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("imported", sa.Boolean(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("preset", sa.String(16), nullable=True),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("ended_at", TIMESTAMP, nullable=True),
        sa.Column("deal_count", sa.Integer(), nullable=True),
        sa.Column("winners", sa.JSON(), nullable=True),
        sa.Column("placings", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.ForeignKeyConstraint(["room_code"], ["rooms.code"], name=op.f("fk_matches_room_code_rooms"),
                                ondelete="SET NULL"),
        sa.CheckConstraint("status IN ('in_progress', 'finished', 'abandoned')", name=op.f("ck_matches_status")),
    )
    # Finished matches are listed newest first: WHERE status ORDER BY ended_at, id.
    op.create_index(op.f("ix_matches_status_ended_at_id"), "matches", ["status", "ended_at", "id"])
    op.create_index(op.f("ix_matches_room_code_status"), "matches", ["room_code", "status"])

    op.create_table(
        "deals",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("hands", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "deal", name=op.f("pk_deals")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], name=op.f("fk_deals_match_id_matches"),
                                ondelete="CASCADE"),
        sa.CheckConstraint("deal >= 0", name=op.f("ck_deals_deal")),
    )

    op.create_table(
        "plays",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("play", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("card", sa.String(2), nullable=False),
        sa.Column("played_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "deal", "play", name=op.f("pk_plays")),
        sa.ForeignKeyConstraint(["match_id", "deal"], ["deals.match_id", "deals.deal"],
                                name=op.f("fk_plays_match_id_deal_deals"), ondelete="CASCADE"),
        sa.CheckConstraint("play >= 0", name=op.f("ck_plays_play")),
    )


def downgrade() -> None:
    op.drop_table("plays")
    op.drop_table("deals")
    op.drop_index(op.f("ix_matches_room_code_status"), table_name="matches")
    op.drop_index(op.f("ix_matches_status_ended_at_id"), table_name="matches")
    op.drop_table("matches")
    op.drop_table("seats")
    op.drop_index(op.f("ix_rooms_closed_at"), table_name="rooms")
    op.drop_table("rooms")
