"""Seats name their occupant by a public player id.

Revision ID: 0002
Revises: 0001
Created: 2026-11-30

Every seat gets a ``player`` column, unique in its room. Seats stored before
this revision get a new random id each, as a person joining would.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Spelled out here rather than imported from app.common.identity: what this revision writes must not change later.
PLAYER_ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
PLAYER_ID_LENGTH = 10

SEATS = sa.table("seats", sa.column("room_code", sa.String(32)), sa.column("seat", sa.Integer()),
                 sa.column("player", sa.String(16)))


def _new_player_id() -> str:
    return "".join(secrets.choice(PLAYER_ID_ALPHABET) for _ in range(PLAYER_ID_LENGTH))


def upgrade() -> None:
    # SQLite cannot make a column NOT NULL in place: batch mode rebuilds the table there
    # (keeping its named constraints) and alters it in place on PostgreSQL.
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player", sa.String(16), nullable=True))
    connection = op.get_bind()
    seats = connection.execute(sa.select(SEATS.c.room_code, SEATS.c.seat)).all()
    if seats:
        # A seat's id only has to differ from the others of its room; 49 random bits make a clash
        # at one table too unlikely to handle.
        connection.execute(
            SEATS.update().where(SEATS.c.room_code == sa.bindparam("b_room"), SEATS.c.seat == sa.bindparam("b_seat"))
            .values(player=sa.bindparam("b_player")),
            [{"b_room": room, "b_seat": seat, "b_player": _new_player_id()} for room, seat in seats])
    with op.batch_alter_table("seats") as batch:
        batch.alter_column("player", existing_type=sa.String(16), nullable=False)
        batch.create_unique_constraint(op.f("uq_seats_room_code_player"), ["room_code", "player"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint(op.f("uq_seats_room_code_player"), type_="unique")
        batch.drop_column("player")
