"""Alembic migrations of the Cucumber database, written by hand.

Run them with ``cucumber db upgrade`` or ``alembic upgrade head`` (repository root).
"""
