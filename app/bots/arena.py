"""Bots against bots: play many matches and measure each strength.

Backs ``cucumber arena``: seats rotate between matches, every bot sees only
its own seat's view, and the report gives win rates, penalties and thinking
times with 95% confidence intervals.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from app.bots.choose import choose_card
from app.bots.search import DEFAULT_BUDGET_S
from app.bots.strength import BotStrength
from app.game.match import Match, deal_cards, new_match, play
from app.game.rules import Rules, preset_name
from app.game.standings import penalties_per_deal
from app.game.views import view_for

Z95 = 1.96
"""Normal quantile of a two-sided 95% confidence interval."""


def parse_seats(text: str) -> tuple[BotStrength, ...]:
    """The strengths of a comma-separated list, one per seat: ``"hard,easy,easy"``.

    Case and spaces are ignored. Raises ``ValueError`` for an unknown
    strength or fewer than 2 or more than 7 seats (docs/rules.md §1).
    """
    seats = tuple(BotStrength.parse(part.strip().lower()) for part in text.split(","))
    if not 2 <= len(seats) <= 7:
        raise ValueError(f"a match needs 2 to 7 seats, not {len(seats)}")
    return seats


def seating(lineup: Sequence[str], number: int) -> list[str]:
    """The strength in each seat for match ``number`` (from 0): ``lineup`` turned by ``number`` seats.

    The strength listed ``j``-th sits in seat ``(j + number) % len(lineup)``,
    so over ``len(lineup)`` matches in a row every strength sits in every seat once.
    """
    count = len(lineup)
    return [lineup[(seat - number) % count] for seat in range(count)]


def play_match(lineup: Sequence[str], rules: Rules, deal_rng: random.Random, bot_rng: random.Random,
               budget_s: float | None = None, max_worlds: int | None = None,
               timings: dict[str, list[tuple[float, bool]]] | None = None) -> Match:
    """Play one whole match with the bot of strength ``lineup[s]`` in seat ``s``.

    Deals come from ``deal_rng`` (docs/rules.md §2.1–2.2), every bot's chance from
    ``bot_rng``. Each bot gets only ``view_for(match, seat)``; its card is
    played through the engine, which would raise on an illegal play. When
    ``timings`` is given, each decision appends ``(seconds, had_choice)``
    to ``timings[strength]``, ``had_choice`` meaning more than one legal
    rank. Returns the finished match.
    """
    match = new_match([f"{name} {seat}" for seat, name in enumerate(lineup)], rules)
    while not match.finished:
        if match.needs_deal:
            match, _ = deal_cards(match, deal_rng)
            continue
        seat = match.turn
        assert seat is not None, "a match that goes on and needs no deal has a seat to play"
        view = view_for(match, seat)
        started = time.perf_counter()
        card = choose_card(view, lineup[seat], bot_rng, budget_s, max_worlds=max_worlds)
        elapsed = time.perf_counter() - started
        if timings is not None:
            assert view.you is not None, "a seat's view shows its hand"
            ranks = {legal.rank for legal in view.you.legal}
            timings.setdefault(lineup[seat], []).append((elapsed, len(ranks) > 1))
        match, _ = play(match, card, seat)
    return match


def run_arena(seats: Sequence[str], *, matches: int, seed: int, rules: Rules | None = None,
              budget_s: float | None = None, max_worlds: int | None = None,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play ``matches`` matches between the strengths in ``seats`` and report on them.

    In match ``m`` (from 0) the strength listed ``j``-th sits in seat
    ``(j + m) % len(seats)``, so no strength keeps a position. Match ``m``
    deals from ``random.Random(f"{seed}/{m}")``; the bots draw from one
    generator seeded from ``seed`` (the ``hard`` bot's time budget still
    makes long runs vary a little). ``budget_s`` and ``max_worlds`` go to
    the ``hard`` bot (see :func:`~app.bots.choose.choose_card`).
    ``progress(done, total)`` is called after each match.

    Returns a JSON-ready dict: ``matches``, ``seats``, ``seed``, ``rules``
    (all options), ``budget_s``, ``max_worlds``, ``seconds`` (wall-clock) and
    ``strategies``: per strength, ``seats`` (how many), ``win_rate`` (share
    of wins per seat, ties shared, docs/rules.md §2.10), ``penalty_per_deal``
    (points per seat per deal it was dealt into, §2.7), each as
    ``{"mean", "low", "high"}`` for a 95% confidence interval over matches,
    and ``decision_ms`` / ``choice_ms`` (all decisions / those with more
    than one legal rank) as ``{"count", "mean", "median", "p95", "max"}``
    in milliseconds. Raises ``ValueError`` for bad seats or ``matches < 1``.
    """
    lineup = parse_seats(",".join(seats))
    if matches < 1:
        raise ValueError("matches must be at least 1")
    rules = rules or Rules()
    names = list(dict.fromkeys(lineup))
    per_match: dict[str, list[tuple[float, int, int]]] = {name: [] for name in names}
    timings: dict[str, list[tuple[float, bool]]] = {name: [] for name in names}
    bot_rng = random.Random(f"{seed}/bots")
    count = len(lineup)
    started = time.perf_counter()
    for number in range(matches):
        placed = seating(lineup, number)
        match = play_match(placed, rules, random.Random(f"{seed}/{number}"), bot_rng, budget_s, max_worlds,
                           timings)
        penalties = penalties_per_deal(match)
        for name in names:
            mine = [seat for seat in range(count) if placed[seat] == name]
            won = sum(1 / len(match.winners) for seat in mine if seat in match.winners) / len(mine)
            points = sum(row[seat] for row in penalties for seat in mine)
            dealt = sum(1 for deal in match.history for seat in mine if deal.dealt[seat])
            per_match[name].append((won, points, dealt))
        if progress is not None:
            progress(number + 1, matches)
    elapsed = time.perf_counter() - started
    return {
        "matches": matches,
        "seats": list(lineup),
        "seed": seed,
        "rules": rules.to_dict(),
        "preset": preset_name(rules),
        "budget_s": DEFAULT_BUDGET_S if budget_s is None else budget_s,
        "max_worlds": max_worlds,
        "seconds": round(elapsed, 1),
        "strategies": {
            name: {
                "seats": lineup.count(name),
                "win_rate": _mean_interval([won for won, _, _ in per_match[name]]),
                "penalty_per_deal": _ratio_interval([(p, d) for _, p, d in per_match[name]]),
                "decision_ms": _time_stats([s for s, _ in timings[name]]),
                "choice_ms": _time_stats([s for s, choice in timings[name] if choice]),
            }
            for name in names
        },
    }


def _mean_interval(values: list[float]) -> dict[str, float]:
    """Mean of shares (0–1) with a normal-approximation 95% interval, kept within 0–1.

    Per-match values are independent, so their spread gives the interval.
    """
    mean = sum(values) / len(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {"mean": round(mean, 4), "low": round(max(mean - half, 0.0), 4),
            "high": round(min(mean + half, 1.0), 4)}


def _ratio_interval(pairs: list[tuple[int, int]]) -> dict[str, float]:
    """Ratio of sums (points per deal) with a 95% interval by the delta method over matches."""
    total = sum(d for _, d in pairs)
    if not total:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    ratio = sum(p for p, _ in pairs) / total
    count = len(pairs)
    half = 0.0
    if count > 1:
        spread = sum((p - ratio * d) ** 2 for p, d in pairs) / (count * (count - 1))
        half = Z95 * math.sqrt(spread) / (total / count)
    return {"mean": round(ratio, 3), "low": round(max(ratio - half, 0.0), 3), "high": round(ratio + half, 3)}


def _time_stats(seconds: list[float]) -> dict[str, float]:
    """Count, mean, median, 95th percentile and maximum of decision times, in milliseconds."""
    if not seconds:
        return {"count": 0, "mean": 0.0, "median": 0.0, "p95": 0.0, "max": 0.0}
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return {"count": len(ordered), "mean": round(1000 * statistics.fmean(ordered), 3),
            "median": round(1000 * statistics.median(ordered), 3), "p95": round(1000 * p95, 3),
            "max": round(1000 * ordered[-1], 3)}


def print_arena(report: dict[str, Any], out: TextIO) -> None:
    """Print :func:`run_arena`'s report as a small table for people."""
    rules = report["preset"] or json.dumps(report["rules"])
    worlds = f", at most {report['max_worlds']} worlds" if report["max_worlds"] else ""
    print(f"{report['matches']} matches, seats {','.join(report['seats'])} (rotating), rules {rules}, "
          f"seed {report['seed']}, hard budget {report['budget_s']} s{worlds}", file=out)
    rows = [("strength", "seats", "win rate (95% CI)", "penalty/deal (95% CI)",
             "ms per decision: mean, median, p95", "with a choice: mean, median, p95")]
    for name, stats in report["strategies"].items():
        win, pen = stats["win_rate"], stats["penalty_per_deal"]
        every, choice = stats["decision_ms"], stats["choice_ms"]
        rows.append((name, str(stats["seats"]),
                     f"{win['mean']:.1%} ({win['low']:.1%} to {win['high']:.1%})",
                     f"{pen['mean']:.2f} ({pen['low']:.2f} to {pen['high']:.2f})",
                     f"{every['mean']:.2f}, {every['median']:.2f}, {every['p95']:.2f}",
                     f"{choice['mean']:.2f}, {choice['median']:.2f}, {choice['p95']:.2f}"))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)).rstrip(), file=out)
    print(f"fair share per seat: {1 / len(report['seats']):.1%}; time: {report['seconds']} s", file=out)


def arena_command(seats: Sequence[str], *, rules: Rules, matches: int, seed: int, budget_s: float | None,
                  max_worlds: int | None, as_json: bool, out: TextIO, err: TextIO) -> int:
    """Run ``cucumber arena``: :func:`run_arena` with progress on ``err``; return the exit status (0).

    ``seats``, ``matches``, ``seed``, ``budget_s`` and ``max_worlds`` are
    :func:`run_arena`'s. Prints the table (:func:`print_arena`), or with
    ``as_json`` the summary as one JSON object, on ``out``. Raises
    ``ValueError`` as :func:`run_arena` does.
    """
    step = max(1, matches // 20)

    def progress(done: int, total: int) -> None:
        if done % step == 0 or done == total:
            print(f"cucumber arena: {done}/{total} matches", file=err, flush=True)

    report = run_arena(seats, matches=matches, seed=seed, rules=rules, budget_s=budget_s, max_worlds=max_worlds,
                        progress=progress)
    if as_json:
        print(json.dumps(report), file=out)
    else:
        print_arena(report, out)
    return 0
