"""The ``cucumber`` command: serve, verify, simulate, bench and the other tools.

Each subcommand parses its options here and calls one function elsewhere
(``app.tools``, ``app.bots.arena``, ``bench``) with plain values.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from app.game.errors import InvalidRules
from app.game.rules import CHOICE, MAX_PLAYERS, MIN_PLAYERS, NUMBER, OPTIONS, PRESETS, RuleOption, Rules, preset


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


RULES_HELP = f"a preset ({', '.join(PRESETS)}) or a JSON object of options (default agurk)"


def option_values(option: RuleOption) -> str:
    """The values a rules option takes, as the help lists them: ``3 … 7``, ``match_or_lowest, must_match``."""
    if option.kind == CHOICE:
        return ", ".join(option.choices)
    numbers = f"{option.low} … {option.high}"
    return numbers if option.kind == NUMBER else ", ".join([*option.choices, numbers])


def rules_epilog() -> str:
    """The rules options for ``--rules``, one line each with their values and default (docs/rules.md §3)."""
    width = max(len(option.name) for option in OPTIONS) + 2
    lines = [f"  {option.name:<{width}}{option_values(option)} (default {option.default})" for option in OPTIONS]
    return "rules options (a JSON object may give any of them; the others keep their default):\n" + "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cucumber`` command and its subcommands."""
    parser = argparse.ArgumentParser(prog="cucumber", description="Cucumber (Agurk), the card game, online.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    server = commands.add_parser("serve", help="run the web server (one process, one worker)")
    server.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1, or CUCUMBER_HOST)")
    server.add_argument("--port", type=int, default=None, help="port (default 8000, or CUCUMBER_PORT)")

    verify = commands.add_parser("verify", help="check match records; one JSON line per record")
    verify.add_argument("paths", nargs="+", metavar="PATH", help="record files (JSON); - reads standard input")

    analyse = commands.add_parser("analyse", help="grade every play of a match record from what its player knew")
    analyse.add_argument("path", metavar="RECORD", help="record file (JSON); - reads standard input")
    analyse.add_argument("--json", action="store_true", help="one JSON line per graded play")
    analyse.add_argument("--seat", type=int, default=None, metavar="N", help="grade only seat N's plays (from 0)")

    sim = commands.add_parser("simulate", help="play matches between random-legal players", epilog=rules_epilog(),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sim.add_argument("--players", type=int, default=4, choices=range(MIN_PLAYERS, MAX_PLAYERS + 1), metavar="N",
                     help=f"{MIN_PLAYERS} to {MAX_PLAYERS} (default 4)")
    sim.add_argument("--rules", default="agurk", help=RULES_HELP)
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument("--count", type=int, default=1000, help="number of matches (default 1000)")
    sim.add_argument("--json", action="store_true", help="print the report as one JSON line")

    bench = commands.add_parser("bench", help="run a benchmark and print its figures as one JSON line")
    bench.add_argument("name", choices=["engine", "storage", "load", "coach", "push", "slow"],
                       help="what to measure: the rules engine, storing plays (a commit each, or a group commit), "
                            "many tables against a real server (load: see docs/performance.md), the coach "
                            "grading a 4-player match of 10 deals, pushing turns to a push service on "
                            "loopback (push: see docs/slow-tables.md), or slow tables played over pushes "
                            "against a real server (slow: accepted play to the push service's 201)")
    bench.add_argument("--matches", type=int, default=2000, help="engine: matches per round (default 2000)")
    bench.add_argument("--rounds", type=int, default=3, help="engine: rounds; the fastest counts (default 3)")
    bench.add_argument("--seed", type=int, default=1, help="engine, load and coach: random seed (default 1)")
    bench.add_argument("--rooms", default="1,10,100",
                       help="storage: numbers of rooms playing at once, comma-separated (default 1,10,100)")
    bench.add_argument("--plays", type=int, default=35, help="storage: plays per room (default 35)")
    bench.add_argument("--dir", help="storage and push: folder for the SQLite files (default: the temporary folder)")
    bench.add_argument("--tables", type=int, default=1000, help="load: tables at human pace (default 1000)")
    bench.add_argument("--players", type=int, default=4, help="load: players per table (default 4)")
    bench.add_argument("--pace", type=float, default=3.0, help="load: seconds between a table's plays (default 3)")
    bench.add_argument("--duration", type=float, default=30.0, help="load: seconds at human pace (default 30)")
    bench.add_argument("--flat-tables", type=int, default=60, help="load: tables playing flat out (default 60)")
    bench.add_argument("--flat-duration", type=float, default=15.0, help="load: seconds flat out (default 15)")
    bench.add_argument("--page", action="store_true", help="load: also open the table page's sockets")
    bench.add_argument("--chat", action="store_true",
                       help="load: one table in ten also chats during the human-pace phase (a line every 4 s)")
    bench.add_argument("--skip-bare", action="store_true", help="load: leave out the bare yardstick server")
    bench.add_argument("--only-bare", action="store_true", help="load: run the bare yardstick server only")
    bench.add_argument("--push-tables", type=int, default=100,
                       help="push: tables whose turns are pushed at once (default 100)")
    bench.add_argument("--push-rounds", type=int, default=5, help="push: rounds of pushes (default 5)")
    bench.add_argument("--slow-tables", type=int, default=100,
                       help="slow: slow tables of four played over pushes at once (default 100)")
    bench.add_argument("--slow-plays", type=int, default=24, help="slow: plays per table (default 24)")
    bench.add_argument("--slow-think", type=float, default=1.0,
                       help="slow: seconds a player takes to answer their push, on average (default 1; 0: at once)")
    bench.add_argument("--port", type=int, default=0, help="load: the servers' port (default: a free one)")
    bench.add_argument("--preset", default="quick", help="load: the rooms' rules preset (default quick)")
    bench.add_argument("--languages", default="en", metavar="CODES",
                       help="load: languages the sockets of each table speak in turn, e.g. en,da,sv (default en)")
    bench.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                       help="load: a server setting for the run, e.g. CUCUMBER_SEND_QUEUE_SIZE=64 (repeatable)")
    bench.add_argument("--database", choices=["sqlite", "postgres"], default=None,
                       help="load: the server's database: a SQLite file (default) or a PostgreSQL database "
                            "created for the run and dropped after it")
    bench.add_argument("--cluster", choices=["owner", "relayed"], default=None,
                       help="load: a cluster on PostgreSQL and Redis instead of one process; each table's "
                            "requests and sockets go to the room's owner, or to another process that relays them")
    bench.add_argument("--processes", type=int, default=2, help="load: processes of the cluster (default 2)")
    bench.add_argument("--analyses", type=int, default=0, metavar="MATCHES",
                       help="load: store this many finished matches, waiting for the coach's analysis, before "
                            "our server starts, so that its analysis worker (one, at the lowest priority on the "
                            "server's core) is busy during the run; a last line says how many it analysed (default 0)")
    bench.add_argument("--postgres-url", default=None,
                       help="load: the PostgreSQL server for --database postgres and --cluster "
                            "(default postgresql+psycopg://postgres@127.0.0.1:5432/test)")
    bench.add_argument("--redis-url", default=None,
                       help="load: the Redis server for --cluster (default redis://127.0.0.1:6379/0)")

    arena = commands.add_parser("arena", help="play matches between bots and compare their strengths",
                                epilog=rules_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    arena.add_argument("--seats", default="hard,normal,normal,normal",
                       help="bot strength per seat, comma-separated: easy, normal, hard or expert "
                            "(default hard,normal,normal,normal); seats rotate between matches")
    arena.add_argument("--matches", type=int, default=None,
                       help="number of matches (default 100, or 0 with --duplicate)")
    arena.add_argument("--duplicate", type=int, default=0, metavar="DEALS",
                       help="also play this many duplicate deals, each once per rotation of the strengths over "
                            "the seats, and report the mean penalty a deal per strength (default 0)")
    arena.add_argument("--workers", type=int, default=1, help="processes that play the matches and deals (default 1)")
    arena.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    arena.add_argument("--rules", default="agurk", help=RULES_HELP)
    arena.add_argument("--budget", type=float, default=None,
                       help="seconds of thought per hard or expert decision (default 0.15 and 0.12)")
    arena.add_argument("--worlds", type=int, default=None,
                       help="at most this many sampled worlds per hard or expert decision")
    arena.add_argument("--json", action="store_true", help="print the report as one JSON object")

    db = commands.add_parser("db", help="manage the database")
    db_actions = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_upgrade = db_actions.add_parser("upgrade", help="apply the pending migrations")
    db_upgrade.add_argument("--database-url", help="SQLAlchemy URL (default: DATABASE_URL or the settings)")

    imports = commands.add_parser("import", help="check a match record and store it as a finished match")
    imports.add_argument("path", metavar="FILE", help="record file (JSON); - reads standard input")
    imports.add_argument("--database-url", help="SQLAlchemy URL (default: DATABASE_URL or the settings)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``cucumber`` command with ``argv`` (default: the process arguments); return the exit status.

    Bad options print the usage and exit with status 2 (``SystemExit``). When the reader of the output goes
    away first (``cucumber analyse RECORD | head -1``), the command stops without a traceback, with status 1.
    """
    try:
        return _run(argv)
    except BrokenPipeError:
        # What is still buffered for the closed pipe would fail again at exit: send it nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _run(argv: Sequence[str] | None) -> int:
    """The command of ``argv``, run; its exit status (:func:`main`)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        from app.tools.serve import serve

        return serve(host=args.host, port=args.port)
    if args.command == "verify":
        from app.tools.verify import verify_files

        return verify_files(args.paths, out=sys.stdout, err=sys.stderr, stdin=sys.stdin)
    if args.command == "analyse":
        from app.tools.analyse import analyse_file

        return analyse_file(args.path, seat=args.seat, as_json=args.json, out=sys.stdout, err=sys.stderr,
                            stdin=sys.stdin)
    if args.command == "simulate":
        from app.tools.simulate import print_simulation, simulate

        if args.count < 1:
            parser.error("--count must be at least 1")
        rules = _rules_option(parser, args.rules)
        report = simulate(args.players, rules, args.seed, args.count)
        if args.json:
            print(json.dumps(report))
        else:
            print_simulation(report, sys.stdout)
        return 0
    if args.command == "bench" and args.name == "storage":
        from bench import storage

        try:
            rooms = [int(count) for count in args.rooms.split(",")]
        except ValueError:
            rooms = []
        if not rooms or min(rooms) < 1 or args.plays < 1:
            parser.error("--rooms must list whole numbers of at least 1, and --plays must be at least 1")
        storage.main(rooms=rooms, plays=args.plays, folder=args.dir)
        return 0
    if args.command == "bench" and args.name == "load":
        from bench import load

        return load.main(tables=args.tables, players=args.players, pace=args.pace, duration=args.duration,
                         flat_tables=args.flat_tables, flat_duration=args.flat_duration, page=args.page,
                         skip_bare=args.skip_bare, only_bare=args.only_bare, port=args.port, preset=args.preset,
                         seed=args.seed, env=args.env, languages=args.languages, chat=args.chat,
                         database=args.database, cluster=args.cluster, processes=args.processes,
                         postgres_url=args.postgres_url, redis_url=args.redis_url, analyses=args.analyses)
    if args.command == "bench" and args.name == "slow":
        from bench import slow

        if args.slow_tables < 1 or args.slow_plays < 1 or not args.slow_think >= 0:
            parser.error("--slow-tables and --slow-plays must be at least 1, and --slow-think not negative")
        slow.main(tables=args.slow_tables, plays=args.slow_plays, folder=args.dir, think=args.slow_think)
        return 0
    if args.command == "bench" and args.name == "push":
        from bench import push

        if args.push_tables < 1 or args.push_rounds < 1:
            parser.error("--push-tables and --push-rounds must be at least 1")
        push.main(tables=args.push_tables, rounds=args.push_rounds, folder=args.dir)
        return 0
    if args.command == "bench" and args.name == "coach":
        from bench import coach

        coach.main(seed=args.seed)
        return 0
    if args.command == "bench":
        from bench import engine

        if args.matches < 1 or args.rounds < 1:
            parser.error("--matches and --rounds must be at least 1")
        engine.main(matches=args.matches, seed=args.seed, rounds=args.rounds)
        return 0
    if args.command == "arena":
        from app.bots.arena import arena_command, parse_seats

        rules = _rules_option(parser, args.rules)
        try:
            seats = parse_seats(args.seats)
        except ValueError as error:
            parser.error(str(error))
        matches = args.matches if args.matches is not None else (0 if args.duplicate else 100)
        if matches < 0 or args.duplicate < 0 or not matches + args.duplicate:
            parser.error("--matches and --duplicate must not be negative, and one must be at least 1")
        if args.workers < 1:
            parser.error("--workers must be at least 1")
        if args.budget is not None and not args.budget > 0:
            parser.error("--budget must be a positive number of seconds")
        if args.worlds is not None and args.worlds < 1:
            parser.error("--worlds must be at least 1")
        return arena_command(seats, rules=rules, matches=matches, seed=args.seed, budget_s=args.budget,
                             max_worlds=args.worlds, as_json=args.json, out=sys.stdout, err=sys.stderr,
                             duplicate=args.duplicate, workers=args.workers)
    if args.command in ("db", "import"):
        from app.config.settings import Settings
        from app.tools.database import db_upgrade, import_file

        database_url = args.database_url or Settings().database_url
        if args.command == "db":
            return db_upgrade(database_url=database_url, out=sys.stdout, err=sys.stderr)
        return import_file(args.path, database_url=database_url, out=sys.stdout, err=sys.stderr, stdin=sys.stdin)
    parser.error(f"unknown command {args.command}")
    return 2


def _rules_option(parser: argparse.ArgumentParser, text: str) -> Rules:
    try:
        return rules_from_text(text)
    except InvalidRules as error:
        parser.error(str(error))
