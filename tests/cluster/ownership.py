"""Who owned each room, read from the cluster's database: the rooms' fencing epochs and the owners' log."""

from __future__ import annotations

import itertools
import re
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, create_engine, text
from sqlalchemy.exc import ProgrammingError
from sqlalchemy.pool import NullPool

from bench.cluster import Cluster

_LATEST = text("SELECT DISTINCT ON (room_code) room_code, owner FROM room_owners WHERE room_code IN :codes "
               "ORDER BY room_code, epoch DESC").bindparams(bindparam("codes", expanding=True))
_LOG = text("SELECT r.code, r.epoch, o.epoch, o.owner, o.taken_at FROM rooms r "
            "LEFT JOIN room_owners o ON o.room_code = r.code WHERE r.code IN :codes "
            "ORDER BY r.code, o.epoch").bindparams(bindparam("codes", expanding=True))
_PID = re.compile(r"\b(\d{2,7})\b")

SLACK_SECONDS = 2.0
"""Clock slack between the database's ``taken_at`` and this process's view of when a process ran."""


def _rows(database_url: str, query: Any, codes: list[str]) -> list[Any]:
    engine = create_engine(database_url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(query, {"codes": codes}))
    finally:
        engine.dispose()


def current_owners(database_url: str, codes: list[str]) -> dict[str, str]:
    """The owner id of each room's newest epoch, by room code (empty on a build without the log)."""
    try:
        return {row[0]: row[1] for row in _rows(database_url, _LATEST, codes)}
    except ProgrammingError:
        return {}


def ownership_problems(cluster: Cluster, codes: list[str]) -> list[str]:
    """What the database says went wrong with the ownership of rooms ``codes`` (empty when nothing).

    Each room's epochs in ``room_owners`` run one by one without a gap, the
    room's ``epoch`` is the newest of them, each owner is a process of the
    cluster, and each epoch was taken while that process ran (by its pid, when
    the owner id holds one) and no earlier than the epoch before it.
    """
    problems: list[str] = []
    log: dict[str, tuple[int, list[tuple[int, str, datetime]]]] = {}
    for code, room_epoch, epoch, owner, taken_at in _rows(cluster.database_url, _LOG, codes):
        entries = log.setdefault(code, (room_epoch, []))[1]
        if epoch is not None:
            entries.append((epoch, owner, taken_at))
    for code in codes:
        if code not in log:
            problems.append(f"{code}: the room is not stored")
            continue
        room_epoch, entries = log[code]
        if not entries:
            problems.append(f"{code}: no owner was ever logged (epoch {room_epoch})")
            continue
        epochs = [epoch for epoch, _, _ in entries]
        if epochs != list(range(epochs[0], epochs[0] + len(epochs))):
            problems.append(f"{code}: the owners' epochs are not one after another: {epochs}")
        if room_epoch != epochs[-1]:
            problems.append(f"{code}: the room is at epoch {room_epoch} but its newest owner at {epochs[-1]}")
        for (_, _, before), (epoch, _, taken_at) in itertools.pairwise(entries):
            if taken_at < before:
                problems.append(f"{code}: epoch {epoch} was taken before the epoch ahead of it")
        for epoch, owner, taken_at in entries:
            app = cluster.app_named(owner)
            if app is None:
                problems.append(f"{code}: epoch {epoch}'s owner {owner!r} is none of the cluster's processes")
                continue
            moment = taken_at.timestamp()
            pids = {int(found) for found in _PID.findall(owner)}
            lives = [life for life in app.lives if not pids or life[0] in pids]
            if not any(started - SLACK_SECONDS <= moment <= (ended or float("inf")) + SLACK_SECONDS
                       for _, started, ended in lives):
                problems.append(f"{code}: epoch {epoch} was taken by {owner!r} when that process did not run")
    return problems
