"""How long the coach takes to grade a whole match: a 4-player match of 10 deals.

Prints one JSON line: ``cpu_s`` (seconds of CPU time of this one process, so
of one core), ``wall_s``, the plays and graded (not forced) plays, and the
worlds sampled per graded play. Pin it to one core (``taskset -c 1``).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from app.bots.arena import play_match
from app.coach.analysis import WORLDS, analyse_record
from app.game.record import to_record
from app.game.rules import Rules

LINEUP = ("easy", "normal", "normal", "normal")
"""Bots without a time budget, so the match (and the figures) depend on the seed alone."""


def run(seed: int = 1, deals: int = 10, worlds: int = WORLDS) -> dict[str, Any]:
    """Play a 4-player match of ``deals`` deals from ``seed`` and time the coach grading every play."""
    match = play_match(LINEUP, Rules(match_length=deals), random.Random(f"deals/{seed}"),
                       random.Random(f"bots/{seed}"))
    record = to_record(match)
    started_cpu, started = time.process_time(), time.perf_counter()
    grades = analyse_record(record, worlds=worlds)
    cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
    graded = sum(grade.label != "forced" for grade in grades)
    return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "players": len(LINEUP), "deals": deals,
            "plays": len(grades), "graded_plays": graded, "worlds": worlds,
            "ms_per_graded_play": round(1000 * cpu / max(graded, 1), 1), "seed": seed}


def main(seed: int = 1) -> None:
    """Print the figures of :func:`run` as one JSON line."""
    print(json.dumps(run(seed=seed)))


if __name__ == "__main__":
    main()
