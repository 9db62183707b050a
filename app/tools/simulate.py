"""``cucumber simulate``: many matches between random-legal players, summarised.

Shows what a set of rules does to the length of matches and to each seat's chances.
"""

from __future__ import annotations

import random
import time
from typing import Any, TextIO

from app.game.match import Match, last_trick_payers
from app.game.rules import Rules
from app.game.simulate import play_random_match


def simulate(players: int, rules: Rules, seed: int, count: int) -> dict[str, Any]:
    """Play ``count`` matches between random-legal players and summarise them.

    ``players`` 2 to 7; every match deals from one generator seeded with
    ``seed``. Returns a JSON-ready dict: the rules, the number of matches,
    deals and plays per match (mean), each seat's share of wins (ties
    split), penalty points per deal (mean) and the time taken in seconds.
    """
    rng = random.Random(seed)
    wins = [0.0] * players
    deals = plays = points = 0
    started = time.perf_counter()
    for _ in range(count):
        match = play_random_match(players, rules, rng)
        for seat in match.winners:
            wins[seat] += 1 / len(match.winners)
        deals += match.deals_completed
        plays += sum(len(deal.plays) for deal in match.history)
        points += _penalty_points(match)
    elapsed = time.perf_counter() - started
    return {
        "matches": count,
        "players": players,
        "seed": seed,
        "rules": rules.to_dict(),
        "deals_per_match": round(deals / count, 2),
        "plays_per_match": round(plays / count, 2),
        "win_share": [round(won / count, 4) for won in wins],
        "penalty_per_deal": round(points / deals, 2) if deals else 0.0,
        "seconds": round(elapsed, 3),
    }


def _penalty_points(match: Match) -> int:
    total = 0
    for deal in match.history:
        payers, value, _ = last_trick_payers(match.rules, deal)
        total += value * len(payers)
    return total


def print_simulation(summary: dict[str, Any], out: TextIO) -> None:
    """Print :func:`simulate`'s summary on ``out`` as a few lines for people."""
    print(f"{summary['matches']} matches, {summary['players']} players, seed {summary['seed']}", file=out)
    print("rules: " + ", ".join(f"{key}={value}" for key, value in summary["rules"].items()), file=out)
    print(f"deals per match: {summary['deals_per_match']}, plays per match: {summary['plays_per_match']}",
          file=out)
    print(f"penalty points per deal: {summary['penalty_per_deal']}", file=out)
    for seat, share in enumerate(summary["win_share"]):
        print(f"seat {seat}: wins {share:.1%}", file=out)
    print(f"time: {summary['seconds']} s", file=out)
