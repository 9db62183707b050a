"""Does the coach agree with the arena? Its accuracy per bot strength over arena matches.

A report run, not part of the tests: ``python -m bench.coach_arena --matches 100``
plays arena matches (strengths rotating over the seats, as ``cucumber arena``
does), grades every play with the coach and prints, per strength, the mean
accuracy over matches with a 95 % interval, the share of each label among
graded plays and the arena's win share, as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from app.bots.arena import Z95, parse_seats, play_match, seating
from app.coach.analysis import LABELS, WORLDS, accuracy, analyse_record
from app.game.record import to_record
from app.game.rules import Rules


def run(seats: str, matches: int, seed: int, hard_worlds: int, worlds: int,
        progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play ``matches`` matches of ``seats`` (rotating) and grade them; see the module docstring.

    The ``hard`` and ``expert`` bots think with at most ``hard_worlds``
    worlds and no time limit that matters, so the run depends on ``seed``
    alone. ``progress`` gets the report so far after every tenth match.
    """
    lineup = [str(strength) for strength in parse_seats(seats)]
    names = list(dict.fromkeys(lineup))
    per_match: dict[str, list[float]] = {name: [] for name in names}
    wins: dict[str, list[float]] = {name: [] for name in names}
    labels: dict[str, Counter[str]] = {name: Counter() for name in names}
    bot_rng = random.Random(f"bots/{seed}")
    for number in range(matches):
        placed = seating(lineup, number)
        match = play_match(placed, Rules(), random.Random(f"{seed}/{number}"), bot_rng, budget_s=60.0,
                           max_worlds=hard_worlds)
        grades = analyse_record(to_record(match), worlds=worlds)
        for name in names:
            mine = [seat for seat in range(len(placed)) if placed[seat] == name]
            values = [value for seat in mine if (value := accuracy(grades, seat)) is not None]
            if values:
                per_match[name].append(sum(values) / len(values))
            wins[name].append(sum(1 / len(match.winners) for seat in mine if seat in match.winners) / len(mine))
            labels[name].update(grade.label for grade in grades if grade.seat in mine)
        if progress is not None and (number + 1) % 10 == 0 and number + 1 < matches:
            progress(_report(number + 1, lineup, seed, hard_worlds, worlds, per_match, wins, labels))
    return _report(matches, lineup, seed, hard_worlds, worlds, per_match, wins, labels)


def _report(matches: int, lineup: list[str], seed: int, hard_worlds: int, worlds: int,
            per_match: dict[str, list[float]], wins: dict[str, list[float]],
            labels: dict[str, Counter[str]]) -> dict[str, Any]:
    names = list(per_match)
    report: dict[str, Any] = {"matches": matches, "seats": lineup, "seed": seed, "hard_worlds": hard_worlds,
                              "worlds": worlds, "strengths": {}}
    for name in names:
        graded = sum(count for label, count in labels[name].items() if label != "forced")
        report["strengths"][name] = {
            "accuracy": _interval(per_match[name]),
            "win_share": _interval(wins[name]),
            "labels": {label: round(labels[name][label] / max(graded, 1), 4) for label in LABELS if label != "forced"},
            "graded_plays": graded,
        }
    return report


def _interval(values: list[float]) -> dict[str, float]:
    mean = statistics.fmean(values) if values else 0.0
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {"mean": round(mean, 3), "low": round(mean - half, 3), "high": round(mean + half, 3)}


def main() -> None:
    """Parse the options and print :func:`run`'s report as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", default="easy,normal,hard")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hard-worlds", type=int, default=200)
    parser.add_argument("--worlds", type=int, default=WORLDS)
    args = parser.parse_args()
    print(json.dumps(run(args.seats, args.matches, args.seed, args.hard_worlds, args.worlds,
                         progress=lambda report: print(json.dumps(report), file=sys.stderr, flush=True))))


if __name__ == "__main__":
    main()
