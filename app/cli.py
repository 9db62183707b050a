"""The ``cucumber`` command: serve, verify, simulate, bench and the other tools.

Each subcommand parses its options here and calls one function elsewhere.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from app.game.errors import InvalidRules
from app.game.record import NotARecord, check_record
from app.game.rules import PRESETS, Rules, preset
from app.game.simulate import play_random_match


def rules_from_text(text: str) -> Rules:
    """Rules from a preset name (``gurka``) or a JSON object of options.

    Raises :class:`InvalidRules` naming the problem.
    """
    text = text.strip()
    if not text.startswith("{"):
        return preset(text)
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidRules(f"rules are not valid JSON: {error.msg}") from None
    return Rules.from_dict(options)


def verify_files(paths: Sequence[str], out: TextIO, err: TextIO, stdin: TextIO) -> int:
    """Check each record file and print one JSON object per line, in input order.

    ``-`` reads standard input. A file that cannot be read, is not JSON or is
    not a record gets ``{"ok": false, …, "reason": …}`` on ``out`` and a
    one-line message on ``err``; the other files are still checked. Returns
    0 when every record is valid, 1 otherwise.
    """
    status = 0
    for path in paths:
        try:
            text = stdin.read() if path == "-" else _read_text(path)
            result = check_record(json.loads(text))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, NotARecord, RecursionError) as error:
            reason = _file_error(error)
            print(f"cucumber verify: {path}: {reason}", file=err)
            result = {"ok": False, "deal": None, "play": None, "seat": None, "card": None, "reason": reason}
        if not result["ok"]:
            status = 1
        print(json.dumps(result), file=out, flush=True)
    return status


def _read_text(path: str) -> str:
    # utf-8-sig: a byte-order mark some editors write is not part of the JSON.
    with open(path, encoding="utf-8-sig") as file:
        return file.read()


def _file_error(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at line {error.lineno} column {error.colno})"
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(error, OSError):
        return f"cannot read the file ({error.strerror or error})"
    if isinstance(error, RecursionError):
        return "not JSON (nested too deeply)"
    return f"not a cucumber-match/1 record: {error}"


def simulate(players: int, rules: Rules, seed: int, count: int) -> dict[str, Any]:
    """Play ``count`` matches between random-legal players and summarise them.

    Returns a JSON-ready dict: the rules, the number of matches, deals and
    plays per match (mean), each seat's share of wins (ties split), penalty
    points per deal (mean) and the time taken in seconds.
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


def _penalty_points(match: Any) -> int:
    from app.game.match import last_trick_payers

    total = 0
    for deal in match.history:
        payers, value, _ = last_trick_payers(match.rules, deal)
        total += value * len(payers)
    return total


def _print_simulation(summary: dict[str, Any], out: TextIO) -> None:
    print(f"{summary['matches']} matches, {summary['players']} players, seed {summary['seed']}", file=out)
    print("rules: " + ", ".join(f"{key}={value}" for key, value in summary["rules"].items()), file=out)
    print(f"deals per match: {summary['deals_per_match']}, plays per match: {summary['plays_per_match']}",
          file=out)
    print(f"penalty points per deal: {summary['penalty_per_deal']}", file=out)
    for seat, share in enumerate(summary["win_share"]):
        print(f"seat {seat}: wins {share:.1%}", file=out)
    print(f"time: {summary['seconds']} s", file=out)


def serve(host: str | None, port: int | None) -> int:
    """Run the server with uvicorn until interrupted; ``None`` takes the setting.

    One worker: rooms live in this process's memory. WebSocket frames over
    64 KiB are refused by the protocol layer; smaller oversized messages get
    the protocol's ``too_large`` error.
    """
    import uvicorn

    from app.main import create_app
    from app.settings import Settings

    settings = Settings()
    if host is not None:
        settings.host = host
    if port is not None:
        settings.port = port
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, workers=1,
                log_level=settings.log_level, proxy_headers=True, ws_max_size=64 * 1024)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cucumber`` command and its subcommands."""
    parser = argparse.ArgumentParser(prog="cucumber", description="Cucumber (Agurk), the card game, online.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    server = commands.add_parser("serve", help="run the web server (one process, one worker)")
    server.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1, or CUCUMBER_HOST)")
    server.add_argument("--port", type=int, default=None, help="port (default 8000, or CUCUMBER_PORT)")

    verify = commands.add_parser("verify", help="check match records; one JSON line per record")
    verify.add_argument("paths", nargs="+", metavar="PATH", help="record files (JSON); - reads standard input")

    sim = commands.add_parser("simulate", help="play matches between random-legal players")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 8), metavar="N", help="2 to 7 (default 4)")
    sim.add_argument("--rules", default="agurk",
                     help=f"a preset ({', '.join(PRESETS)}) or a JSON object of options (default agurk)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument("--count", type=int, default=1000, help="number of matches (default 1000)")
    sim.add_argument("--json", action="store_true", help="print the summary as one JSON line")

    bench = commands.add_parser("bench", help="run a benchmark and print its figures as one JSON line")
    bench.add_argument("name", choices=["engine", "load"], help="what to measure (load: see docs/performance.md)")
    bench.add_argument("--matches", type=int, default=2000, help="matches per round (default 2000)")
    bench.add_argument("--rounds", type=int, default=3, help="rounds; the fastest counts (default 3)")
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument("--tables", type=int, default=1000, help="load: tables at human pace (default 1000)")
    bench.add_argument("--players", type=int, default=4, help="load: players per table (default 4)")
    bench.add_argument("--pace", type=float, default=3.0, help="load: seconds between a table's plays (default 3)")
    bench.add_argument("--duration", type=float, default=30.0, help="load: seconds at human pace (default 30)")
    bench.add_argument("--flat-tables", type=int, default=60, help="load: tables playing flat out (default 60)")
    bench.add_argument("--flat-duration", type=float, default=15.0, help="load: seconds flat out (default 15)")
    bench.add_argument("--page", action="store_true", help="load: also open the table page's sockets")
    bench.add_argument("--skip-bare", action="store_true", help="load: leave out the bare yardstick server")
    bench.add_argument("--only-bare", action="store_true", help="load: run the bare yardstick server only")
    bench.add_argument("--port", type=int, default=0, help="load: the servers' port (default: a free one)")
    bench.add_argument("--preset", default="quick", help="load: the rooms' rules preset (default quick)")
    bench.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                       help="load: a server setting for the run, e.g. CUCUMBER_SEND_QUEUE_SIZE=64 (repeatable)")

    arena = commands.add_parser("arena", help="play matches between bots and compare their strengths")
    arena.add_argument("--seats", default="hard,normal,normal,normal",
                       help="bot strength per seat, comma-separated: easy, normal or hard "
                            "(default hard,normal,normal,normal); seats rotate between matches")
    arena.add_argument("--matches", type=int, default=100, help="number of matches (default 100)")
    arena.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    arena.add_argument("--rules", default="agurk",
                       help=f"a preset ({', '.join(PRESETS)}) or a JSON object of options (default agurk)")
    arena.add_argument("--budget", type=float, default=None,
                       help="seconds of thought per hard decision (default 0.15)")
    arena.add_argument("--worlds", type=int, default=None, help="at most this many sampled worlds per hard decision")
    arena.add_argument("--json", action="store_true", help="print the summary as one JSON object")

    db = commands.add_parser("db", help="manage the database")
    db_actions = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_upgrade = db_actions.add_parser("upgrade", help="apply the pending migrations")
    db_upgrade.add_argument("--database-url", help="SQLAlchemy URL (default: DATABASE_URL or the settings)")

    imports = commands.add_parser("import", help="check a match record and store it as a finished match")
    imports.add_argument("path", metavar="FILE", help="record file (JSON); - reads standard input")
    imports.add_argument("--database-url", help="SQLAlchemy URL (default: DATABASE_URL or the settings)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``cucumber`` command with ``argv`` (default: the process arguments); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        return serve(host=args.host, port=args.port)
    if args.command == "verify":
        return verify_files(args.paths, sys.stdout, sys.stderr, sys.stdin)
    if args.command == "simulate":
        if args.count < 1:
            parser.error("--count must be at least 1")
        try:
            rules = rules_from_text(args.rules)
        except InvalidRules as error:
            parser.error(str(error))
        summary = simulate(args.players, rules, args.seed, args.count)
        if args.json:
            print(json.dumps(summary))
        else:
            _print_simulation(summary, sys.stdout)
        return 0
    if args.command == "bench" and args.name == "load":
        from bench import load

        return load.main(tables=args.tables, players=args.players, pace=args.pace, duration=args.duration,
                         flat_tables=args.flat_tables, flat_duration=args.flat_duration, page=args.page,
                         skip_bare=args.skip_bare, only_bare=args.only_bare, port=args.port, preset=args.preset,
                         seed=args.seed, env=args.env)
    if args.command == "bench":
        from bench import engine

        if args.matches < 1 or args.rounds < 1:
            parser.error("--matches and --rounds must be at least 1")
        engine.main(matches=args.matches, seed=args.seed, rounds=args.rounds)
        return 0
    if args.command == "arena":
        from app.bots.arena import arena_command

        try:
            rules = rules_from_text(args.rules)
        except InvalidRules as error:
            parser.error(str(error))
        return arena_command(args, rules, sys.stdout, sys.stderr, parser.error)
    if args.command in ("db", "import"):
        from app.settings import Settings
        from app.storage.commands import db_upgrade, import_file

        database_url = args.database_url or Settings().database_url
        if args.command == "db":
            return db_upgrade(database_url=database_url, out=sys.stdout, err=sys.stderr)
        return import_file(args.path, database_url=database_url, out=sys.stdout, err=sys.stderr, stdin=sys.stdin)
    parser.error(f"unknown command {args.command}")
    return 2
