"""How fast the rules engine plays complete matches between random-legal players.

Prints one JSON line: ``matches_per_s`` and ``plays_per_s`` for complete
5-player matches under the house rules, on one core (one process). The
matches are played by the engine's fast path (:mod:`app.game.fast`, the one
the searches use), which plays the same matches as the readable engine
(:func:`app.game.simulate.play_random_match`) for the same seed.
"""

from __future__ import annotations

import json
import random
import time

from app.game.fast import play_random_match
from app.game.rules import Rules


def run(matches: int = 2000, players: int = 5, seed: int = 1, rounds: int = 3) -> dict[str, float]:
    """Play ``rounds`` batches of ``matches`` matches and report the fastest batch.

    Returns ``{"matches_per_s", "plays_per_s", "plays_per_match", "matches",
    "players", "rounds"}`` (rates per second of wall-clock time).
    """
    rules = Rules()
    best: tuple[float, int] | None = None  # (seconds, plays) of the fastest batch
    for batch in range(rounds):
        rng = random.Random(seed + batch)
        plays = 0
        started = time.perf_counter()
        for _ in range(matches):
            plays += play_random_match(players, rules, rng).plays
        elapsed = time.perf_counter() - started
        if best is None or elapsed < best[0]:
            best = (elapsed, plays)
    assert best is not None, "rounds must be at least 1"
    elapsed, plays = best
    return {
        "matches_per_s": round(matches / elapsed, 1),
        "plays_per_s": round(plays / elapsed, 1),
        "plays_per_match": round(plays / matches, 1),
        "matches": matches,
        "players": players,
        "rounds": rounds,
    }


def main(matches: int = 2000, seed: int = 1, rounds: int = 3) -> None:
    """Print the figures of :func:`run` as one JSON line."""
    print(json.dumps(run(matches=matches, seed=seed, rounds=rounds)))


if __name__ == "__main__":
    main()
