"""Bots against bots: play many matches and measure each strength.

Backs ``cucumber arena``: seats rotate between matches, every bot sees only
its own seat's view, and the report gives win rates, penalties and thinking
times with 95% confidence intervals. With duplicate deals each deal is also
played once per rotation of the strengths over the seats, so that every
strength holds every hand and the luck of the cards cancels out. Matches
and deals may be spread over several worker processes; each has its own
seeded generators, so the report does not depend on how many.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

from app.bots.choose import choose_card
from app.bots.search import DEFAULT_BUDGET_S
from app.bots.strength import BotStrength
from app.game.match import Match, deal_cards, deal_hands, new_match, play
from app.game.rules import Rules, preset_name
from app.game.standings import penalties_per_deal
from app.game.views import view_for

Timings = dict[str, list[tuple[float, bool]]]
"""Per strength, every decision's ``(seconds, had_choice)``."""

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
        match = _play_turn(match, lineup, bot_rng, budget_s, max_worlds, timings)
    return match


def _play_turn(match: Match, lineup: Sequence[str], bot_rng: random.Random, budget_s: float | None,
               max_worlds: int | None, timings: Timings | None) -> Match:
    """Let the bot whose turn it is choose from its view and play its card; return the new match."""
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


def play_duplicate_deal(lineup: Sequence[str], rules: Rules, number: int, seed: int, budget_s: float | None = None,
                        max_worlds: int | None = None,
                        timings: Timings | None = None) -> list[list[int]]:
    """Play duplicate deal ``number`` once per rotation of ``lineup`` over the seats.

    The deal is the first deal of a match dealt from
    ``random.Random(f"{seed}/deal/{number}")`` (dealer by lot and hands,
    docs/rules.md §2.1–2.2). In rotation ``r`` (from 0) the seats hold
    :func:`seating` ``(lineup, r)`` and play that deal to its end, the bots
    drawing from ``random.Random(f"{seed}/deal/{number}/{r}")``. Returns,
    per rotation, the penalty points of each seat (§2.7). ``timings`` as in
    :func:`play_match`.
    """
    names = [f"seat {seat}" for seat in range(len(lineup))]
    dealt, _ = deal_cards(new_match(names, rules), random.Random(f"{seed}/deal/{number}"))
    deal = dealt.deal
    assert deal is not None, "a match just dealt has a deal"
    hands = [deal.dealt_hand(seat) for seat in range(len(lineup))]
    rows = []
    for rotation in range(len(lineup)):
        placed = seating(lineup, rotation)
        match, _ = deal_hands(new_match(names, rules), hands, dealer=deal.dealer)
        bot_rng = random.Random(f"{seed}/deal/{number}/{rotation}")
        while not match.needs_deal and not match.finished:
            match = _play_turn(match, placed, bot_rng, budget_s, max_worlds, timings)
        rows.append(penalties_per_deal(match)[0])
    return rows


def run_arena(seats: Sequence[str], *, matches: int, seed: int, rules: Rules | None = None,
              budget_s: float | None = None, max_worlds: int | None = None, duplicate: int = 0, workers: int = 1,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play ``matches`` matches (and ``duplicate`` duplicate deals) between the strengths in ``seats``; report.

    In match ``m`` (from 0) the strength listed ``j``-th sits in seat
    ``(j + m) % len(seats)``, so no strength keeps a position. Match ``m``
    deals from ``random.Random(f"{seed}/{m}")`` and its bots draw from
    ``random.Random(f"{seed}/bots/{m}")`` (the time budget of the searching
    bots still makes long runs vary a little). Duplicate deal ``d`` is
    :func:`play_duplicate_deal` ``(…, d, seed)``: once per rotation of the
    strengths over the seats. ``budget_s`` and ``max_worlds`` go to the
    ``hard`` and ``expert`` bots (see :func:`~app.bots.choose.choose_card`).
    ``workers`` processes share the matches and deals (1: this process
    only); the report is the same for any number, timings aside.
    ``progress(done, total)`` is called after each match and each deal.

    Returns a JSON-ready dict: ``matches``, ``duplicate_deals``, ``workers``,
    ``seats``, ``seed``, ``rules`` (all options), ``preset``, ``budget_s``,
    ``max_worlds``, ``seconds`` (wall-clock) and ``strategies``: per
    strength, ``seats`` (how many), ``win_rate`` (share of wins per seat,
    ties shared, docs/rules.md §2.10), ``penalty_per_deal`` (points per
    seat per deal it was dealt into, §2.7), each as ``{"mean", "low",
    "high"}`` for a 95% confidence interval over matches (zeros without
    matches), ``decision_ms`` / ``choice_ms`` (all decisions / those with
    more than one legal rank, of matches and deals) as ``{"count", "mean",
    "median", "p95", "max"}`` in milliseconds, and with duplicate deals
    ``duplicate_penalty``: the mean penalty a deal per seat of that
    strength, over deals, with its 95% interval. With duplicate deals the
    report also has ``differences``: for each pair of strengths ``"a-b"``,
    the mean over deals of a's penalty a deal minus b's, with its 95%
    interval (the deals are paired, so the cards' luck cancels). Raises
    ``ValueError`` for bad seats, ``matches < 0``, ``duplicate < 0``,
    neither matches nor deals, or ``workers < 1``.
    """
    lineup = parse_seats(",".join(seats))
    if matches < 0 or duplicate < 0 or not matches + duplicate:
        raise ValueError("play at least one match or duplicate deal, and no negative number of either")
    if workers < 1:
        raise ValueError("workers must be at least 1")
    rules = rules or Rules()
    names = list(dict.fromkeys(lineup))
    per_match: dict[str, list[tuple[float, int, int]]] = {name: [] for name in names}
    per_deal: dict[str, list[float]] = {name: [] for name in names}
    timings: Timings = {name: [] for name in names}
    count = len(lineup)
    tasks = [("match", number) for number in range(matches)] + [("deal", number) for number in range(duplicate)]
    started = time.perf_counter()
    results = _run_tasks(tasks, lineup, rules, seed, budget_s, max_worlds, workers)
    for done, ((kind, _), (result, times)) in enumerate(zip(tasks, results, strict=True), start=1):
        for name, seconds in times.items():
            timings[name] += seconds
        if kind == "match":
            placed, penalties, winners, dealt_rows = result
            for name in names:
                mine = [seat for seat in range(count) if placed[seat] == name]
                won = sum(1 / len(winners) for seat in mine if seat in winners) / len(mine)
                points = sum(row[seat] for row in penalties for seat in mine)
                dealt = sum(1 for row in dealt_rows for seat in mine if row[seat])
                per_match[name].append((won, points, dealt))
        else:
            for name in names:
                points = [row[seat] for rotation, row in enumerate(result)
                          for seat, placed_name in enumerate(seating(lineup, rotation)) if placed_name == name]
                per_deal[name].append(sum(points) / len(points))
        if progress is not None:
            progress(done, len(tasks))
    elapsed = time.perf_counter() - started
    report: dict[str, Any] = {
        "matches": matches,
        "duplicate_deals": duplicate,
        "workers": workers,
        "seats": list(lineup),
        "seed": seed,
        "rules": rules.to_dict(),
        "preset": preset_name(rules),
        "budget_s": DEFAULT_BUDGET_S if budget_s is None else budget_s,
        "max_worlds": max_worlds,
        "seconds": round(elapsed, 1),
        "strategies": {},
    }
    for name in names:
        stats: dict[str, Any] = {
            "seats": lineup.count(name),
            "win_rate": _mean_interval([won for won, _, _ in per_match[name]]),
            "penalty_per_deal": _ratio_interval([(p, d) for _, p, d in per_match[name]]),
            "decision_ms": _time_stats([s for s, _ in timings[name]]),
            "choice_ms": _time_stats([s for s, choice in timings[name] if choice]),
        }
        if duplicate:
            stats["duplicate_penalty"] = _mean_interval(per_deal[name], bounded=False)
        report["strategies"][name] = stats
    if duplicate:
        report["differences"] = {
            f"{first}-{second}": _mean_interval([a - b for a, b in zip(per_deal[first], per_deal[second],
                                                                        strict=True)], bounded=False)
            for index, first in enumerate(names) for second in names[index + 1:]}
    return report


def _run_task(task: tuple[str, int], lineup: Sequence[str], rules: Rules, seed: int, budget_s: float | None,
              max_worlds: int | None) -> tuple[Any, Timings]:
    """One match or one duplicate deal of :func:`run_arena`, and its decision times.

    A match gives ``(seating, penalties per deal, winners, seats dealt in per
    deal)``; a deal gives :func:`play_duplicate_deal`'s rows. Plain values
    only: it may run in a worker process.
    """
    kind, number = task
    timings: Timings = {}
    if kind == "match":
        placed = seating(lineup, number)
        match = play_match(placed, rules, random.Random(f"{seed}/{number}"), random.Random(f"{seed}/bots/{number}"),
                           budget_s, max_worlds, timings)
        dealt = [[bool(hand) for hand in deal.dealt] for deal in match.history]
        return (placed, penalties_per_deal(match), match.winners, dealt), timings
    return play_duplicate_deal(lineup, rules, number, seed, budget_s, max_worlds, timings), timings


def _run_tasks(tasks: list[tuple[str, int]], lineup: Sequence[str], rules: Rules, seed: int, budget_s: float | None,
               max_worlds: int | None, workers: int) -> Iterator[tuple[Any, Timings]]:
    """The results of :func:`_run_task` for each of ``tasks``, in order, from ``workers`` processes."""
    if workers == 1:
        for task in tasks:
            yield _run_task(task, lineup, rules, seed, budget_s, max_worlds)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_run_task, tasks, *_repeat(len(tasks), list(lineup), rules, seed, budget_s, max_worlds))


def _repeat(times: int, *values: Any) -> list[Iterable[Any]]:
    """Each of ``values`` repeated ``times`` times, one list per value (arguments for ``map``)."""
    return [[value] * times for value in values]


def _mean_interval(values: list[float], bounded: bool = True) -> dict[str, float]:
    """Mean with a normal-approximation 95% interval; with ``bounded``, shares kept within 0–1.

    The values (one per match or deal) are independent, so their spread
    gives the interval. No values give zeros.
    """
    if not values:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    mean = sum(values) / len(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    if not bounded:
        return {"mean": round(mean, 4), "low": round(mean - half, 4), "high": round(mean + half, 4)}
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
    """Print :func:`run_arena`'s report as small tables for people."""
    rules = report["preset"] or json.dumps(report["rules"])
    worlds = f", at most {report['max_worlds']} worlds" if report["max_worlds"] else ""
    print(f"{report['matches']} matches and {report['duplicate_deals']} duplicate deals, "
          f"seats {','.join(report['seats'])} (rotating), rules {rules}, seed {report['seed']}, "
          f"search budget {report['budget_s']} s{worlds}", file=out)
    rows: list[tuple[str, ...]] = [("strength", "seats", "win rate (95% CI)", "penalty/deal (95% CI)",
             "ms per decision: mean, median, p95", "with a choice: mean, median, p95")]
    for name, stats in report["strategies"].items():
        win, pen = stats["win_rate"], stats["penalty_per_deal"]
        every, choice = stats["decision_ms"], stats["choice_ms"]
        rows.append((name, str(stats["seats"]), _interval(win, ".1%"), _interval(pen, ".2f"),
                     f"{every['mean']:.2f}, {every['median']:.2f}, {every['p95']:.2f}",
                     f"{choice['mean']:.2f}, {choice['median']:.2f}, {choice['p95']:.2f}"))
    _print_rows(rows, out)
    if report["duplicate_deals"]:
        rows = [("duplicate deals", "penalty a deal (95% CI)")]
        rows += [(name, _interval(stats["duplicate_penalty"], ".3f")) for name, stats in report["strategies"].items()]
        rows += [(f"difference {pair}", _interval(diff, "+.3f")) for pair, diff in report["differences"].items()]
        _print_rows(rows, out)
    print(f"fair share per seat: {1 / len(report['seats']):.1%}; time: {report['seconds']} s", file=out)


def _interval(stats: dict[str, float], form: str) -> str:
    return f"{stats['mean']:{form}} ({stats['low']:{form}} to {stats['high']:{form}})"


def _print_rows(rows: list[tuple[str, ...]], out: TextIO) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)).rstrip(), file=out)


def arena_command(seats: Sequence[str], *, rules: Rules, matches: int, seed: int, budget_s: float | None,
                  max_worlds: int | None, as_json: bool, out: TextIO, err: TextIO, duplicate: int = 0,
                  workers: int = 1) -> int:
    """Run ``cucumber arena``: :func:`run_arena` with progress on ``err``; return the exit status (0).

    ``seats``, ``matches``, ``seed``, ``budget_s``, ``max_worlds``,
    ``duplicate`` and ``workers`` are :func:`run_arena`'s. Prints the
    tables (:func:`print_arena`), or with ``as_json`` the summary as one
    JSON object, on ``out``. Raises ``ValueError`` as :func:`run_arena` does.
    """
    total = matches + duplicate
    step = max(1, total // 20)

    def progress(done: int, total: int) -> None:
        if done % step == 0 or done == total:
            print(f"cucumber arena: {done}/{total} matches and deals", file=err, flush=True)

    report = run_arena(seats, matches=matches, seed=seed, rules=rules, budget_s=budget_s, max_worlds=max_worlds,
                       duplicate=duplicate, workers=workers, progress=progress)
    if as_json:
        print(json.dumps(report), file=out)
    else:
        print_arena(report, out)
    return 0
