"""Count how the ``hard`` bot plays, for the ``expert``'s play-outs: makes ``app/bots/play_model.json``.

``python -m bench.learn_play [--heads-up DEALS] [--more DEALS] [--seed N] [--workers N] [--out PATH]``

Plays the first deal of matches of ``hard`` against ``hard`` (house rules,
docs/rules.md §2), heads-up and at four seats, and counts the kind of each
card played with a choice of rank (:func:`app.bots.play_model.kind_of`) by
the number of cards the seat held. Every deal has its own seeded
generators, so the counts depend on the seed and the number of deals
alone, not on ``--workers`` (the ``hard`` bot's time budget aside: it is
given a number of worlds instead, :data:`WORLDS`). The defaults take about
ten minutes with two workers on a machine of two cores.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from app.bots.play_model import FOLLOW_KINDS, MAX_CARDS, kind_of
from app.bots.search import search_card
from app.game.cards import mask_of
from app.game.fast import table_for, trick_state
from app.game.match import deal_cards, new_match, play
from app.game.rules import Rules
from app.game.views import view_for

WORLDS = 150
"""Worlds the ``hard`` bot samples a decision here at most (it may stop sooner on a clear result, as in play),
instead of its time budget, so that the counts do not depend on the machine's speed."""

OUT = Path(__file__).resolve().parent.parent / "app" / "bots" / "play_model.json"


def count_deal(seats: int, number: int, seed: int) -> dict[str, Any]:
    """The kinds of the cards ``hard`` played with a choice in deal ``number`` of ``seats`` seats.

    Returns counts as :func:`app.bots.play_model.from_counts` reads them.
    """
    rules = Rules()
    table = table_for(rules)
    rng = random.Random(f"{seed}/learn/{seats}/{number}")
    counts = empty_counts()
    match, _ = deal_cards(new_match([f"P{seat}" for seat in range(seats)], rules), rng)
    while not match.needs_deal and not match.finished:
        deal = match.deal
        assert deal is not None and deal.turn is not None, "a deal in progress has a seat to play"
        view = view_for(match, deal.turn)
        card = search_card(view, rng, budget_s=60.0, max_worlds=WORLDS)
        assert view.you is not None, "a seat's view shows its hand"
        legal = mask_of(view.you.legal)
        if len({legal_card.rank for legal_card in view.you.legal}) > 1:
            hand = mask_of(view.you.hand)
            trick = [int(played.card) for played in view.trick]
            seats_in_trick = tuple(played.seat for played in view.trick) or (deal.turn,)
            _, bar = trick_state(table, seats_in_trick, trick, view.trick_number - 1)
            kind = kind_of(hand, legal, bar, not trick, int(card))
            size = str(hand.bit_count())
            if trick:
                counts["follow"][size][int(len(trick) == len(deal.order) - 1)][kind] += 1
            else:
                counts["lead"][size][kind] += 1
        match, _ = play(match, card)
    return counts


def empty_counts() -> dict[str, Any]:
    """Counts of nothing yet, in the file's shape."""
    return {
        "lead": {str(size): [0] * size for size in range(2, MAX_CARDS + 1)},
        "follow": {str(size): [[0] * len(FOLLOW_KINDS), [0] * len(FOLLOW_KINDS)] for size in range(2, MAX_CARDS + 1)},
    }


def add(total: dict[str, Any], counts: dict[str, Any]) -> None:
    """Add ``counts`` into ``total`` (both in the file's shape)."""
    for size, row in counts["lead"].items():
        total["lead"][size] = [a + b for a, b in zip(total["lead"][size], row, strict=True)]
    for size, rows in counts["follow"].items():
        total["follow"][size] = [[a + b for a, b in zip(old, new, strict=True)]
                                 for old, new in zip(total["follow"][size], rows, strict=True)]


def learn(heads_up: int, more: int, seed: int, workers: int) -> dict[str, Any]:
    """The model file's content: counts from ``heads_up`` deals of two seats and ``more`` of four."""
    tables = {"heads_up": empty_counts(), "more": empty_counts()}
    jobs = [("heads_up", 2, number) for number in range(heads_up)] + [("more", 4, number) for number in range(more)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [(name, pool.submit(count_deal, seats, number, seed)) for name, seats, number in jobs]
        for name, future in futures:
            add(tables[name], future.result())
    return {
        "about": "How often the hard bot played each kind of card (app/bots/play_model.py), "
                 f"from python -m bench.learn_play --heads-up {heads_up} --more {more} --seed {seed}",
        "follow_kinds": list(FOLLOW_KINDS),
        "tables": tables,
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, count, write the model file; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bench.learn_play", description=__doc__.splitlines()[0])
    parser.add_argument("--heads-up", type=int, default=500, help="deals of two seats (default 500)")
    parser.add_argument("--more", type=int, default=500, help="deals of four seats (default 500)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT.name} in app/bots)")
    args = parser.parse_args(argv)
    if min(args.heads_up, args.more) < 1 or args.workers < 1:
        parser.error("count at least one deal of each kind, with at least one worker")
    model = learn(args.heads_up, args.more, args.seed, args.workers)
    args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
