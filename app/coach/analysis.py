"""The coach: every play of a match record graded from what its player knew.

For a play with more than one legal rank, the coach samples worlds (hands of
the others that fit the seat's own hand and the public plays, never the real
ones), plays every candidate rank out in each of the same worlds, and
compares the candidates' expected penalty points for the deal and expected
share of the match win (docs/coach.md).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.bots.expert import PlayOuts
from app.bots.knowledge import read_knowledge
from app.bots.worlds import sample_hands
from app.game.cards import Card
from app.game.match import Match, deal_hands, new_match, play
from app.game.record import PLAYER, deciders, replay
from app.game.rules import Rules
from app.game.views import view_for

WORLDS = 400
"""Worlds sampled per graded play; every candidate is played out in each."""

DRAWS_PER_WORLD = 128
"""Random numbers drawn per world and shared by every candidate's play-out (common random numbers)."""

TIE_POINTS = 1e-9
"""Candidates whose expected points differ by less than this are equally best."""

SE_GOOD = 2.0
"""A loss within this many standard errors of zero is ``good`` (below :data:`MISTAKE_POINTS`)."""

GOOD_POINTS = 1.0
INACCURACY_POINTS = GOOD_POINTS
MISTAKE_POINTS = 4.0
BLUNDER_POINTS = 10.0
"""Label thresholds in expected penalty points lost: below ``GOOD_POINTS`` is ``good``, from
``INACCURACY_POINTS`` an ``inaccuracy``, from ``MISTAKE_POINTS`` a ``mistake`` and from
``BLUNDER_POINTS`` a ``blunder`` (docs/coach.md, "Labels")."""

ACCURACY_SCALE = BLUNDER_POINTS
"""A play's accuracy is ``1 - loss_points / ACCURACY_SCALE``, at least 0."""

LABELS = ("best", "good", "inaccuracy", "mistake", "blunder", "forced")
"""Every label, best first; ``forced`` is a play with one legal rank."""


@dataclass(frozen=True, slots=True)
class Grade:
    """The coach's verdict on one play (docs/coach.md).

    ``deal`` and ``play`` count from 0 (as ``verify``'s faults); ``card`` is
    the card code played by ``seat``. ``best`` holds every legal card of the
    best rank or ranks (lowest expected penalty points). ``loss_points``
    (expected penalty points, ≥ 0) and ``loss_win_share`` (0 to 1) are what
    the play lost against the best candidate; both ``None`` for a ``forced``
    play. ``worlds`` is the number of worlds sampled (0 when forced).
    """

    deal: int
    play: int
    seat: int
    card: str
    label: str
    best: tuple[str, ...]
    loss_points: float | None
    loss_win_share: float | None
    worlds: int

    def to_dict(self) -> dict[str, Any]:
        """The grade as ``cucumber analyse --json`` prints it (losses rounded to 3 decimals)."""
        return {"deal": self.deal, "play": self.play, "seat": self.seat, "card": self.card, "label": self.label,
                "best": list(self.best),
                "loss_points": None if self.loss_points is None else round(self.loss_points, 3),
                "loss_win_share": None if self.loss_win_share is None else round(self.loss_win_share, 4)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Grade:
        """A grade from :meth:`to_dict`'s output (as stored with a match)."""
        return cls(deal=int(data["deal"]), play=int(data["play"]), seat=int(data["seat"]), card=str(data["card"]),
                   label=str(data["label"]), best=tuple(str(code) for code in data["best"]),
                   loss_points=data["loss_points"], loss_win_share=data["loss_win_share"],
                   worlds=int(data.get("worlds", 0)))


def record_seed(record: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of the record's checked part: format, rules, players, and each deal's dealer,
    hands and plays, as compact JSON with sorted keys. Optional fields (``decided_by``) leave it alone."""
    core = {"format": record.get("format"), "rules": record.get("rules"), "players": record.get("players"),
            "deals": [{"dealer": deal.get("dealer"), "hands": deal.get("hands"), "plays": deal.get("plays")}
                      for deal in record.get("deals", []) if isinstance(deal, Mapping)]}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def stand_ins(record: Mapping[str, Any]) -> set[tuple[int, int]]:
    """The ``(deal, play)`` of every play a stand-in bot made for a person (docs/rules.md §4 ``decided_by``).

    A deal without a well-formed ``decided_by``
    (:func:`~app.game.record.deciders`) counts as its players' own.
    """
    return {(index, number) for index, given in enumerate(deciders(record)) if given is not None
            for number, who in enumerate(given) if who != PLAYER}


def analyse_record(record: Any, *, seats: Collection[int] | None = None, worlds: int = WORLDS) -> list[Grade]:
    """Grade the plays of ``record`` (docs/coach.md): every seat's, or only those in ``seats``.

    The record is checked first (:func:`~app.game.record.replay`), which
    raises ``NotARecord`` or ``RecordFault`` for a bad one. An unfinished
    record is graded up to its last play. Plays made by a stand-in bot
    (:func:`stand_ins`) are left out. Each play is graded by :func:`grade_play`
    from its seat's view only, with chance seeded by :func:`record_seed`, the
    deal and the play: the same record always gives the same grades, and
    grading one seat gives that seat's grades of grading all. Returns the
    grades in order of play.
    """
    replay(record)
    seed = record_seed(record)
    skipped = stand_ins(record)
    grades = []
    for deal_index, play_index, match in positions(record):
        seat = match.turn
        assert seat is not None, "a position is a seat's turn"
        if (seats is not None and seat not in seats) or (deal_index, play_index) in skipped:
            continue
        card = Card.parse(record["deals"][deal_index]["plays"][play_index])
        rng = random.Random(f"{seed}/{deal_index}/{play_index}")
        grades.append(grade_play(match, card, rng, worlds=worlds, deal=deal_index, play_index=play_index))
    return grades


def positions(record: Mapping[str, Any]) -> Iterator[tuple[int, int, Match]]:
    """Each play of a valid record as ``(deal, play, match just before it)``, in order of play."""
    match = new_match(record["players"], Rules.from_dict(record.get("rules", {})))
    for deal_index, deal in enumerate(record["deals"]):
        match, _ = deal_hands(match, deal["hands"], dealer=deal["dealer"])
        for play_index, code in enumerate(deal["plays"]):
            yield deal_index, play_index, match
            match, _ = play(match, code)


def grade_play(match: Match, card: Card, rng: random.Random, *, worlds: int = WORLDS, deal: int = 0,
               play_index: int = 0) -> Grade:
    """Grade ``card`` played by the seat to play in ``match`` (docs/coach.md).

    Only the seat's view is used (:func:`~app.game.views.view_for`): its
    hand, the public plays and the rules (§2.4 and §3 reveal what others
    cannot hold). One legal rank is ``forced``. Otherwise ``worlds`` worlds
    are sampled (:func:`~app.bots.worlds.sample_hands`); in each, every
    legal rank is played and the deal played out as the ``expert`` bot
    plays its worlds out (:func:`~app.bots.endgame.play_then_solve`: every
    seat's cards drawn from the model of play under the default penalty,
    else the rule of thumb with some random play; heads-up exact from
    4 cards a hand), the same random numbers for every candidate. Per
    candidate the coach takes the mean penalty points the seat scores in
    the deal (§2.7) and the mean share of the match win
    (:func:`~app.bots.value.share_of`). Raises ``ValueError`` when
    ``card`` is not legal for the seat to play.
    """
    seat = match.turn
    view = view_for(match, seat)
    if seat is None or view.you is None or card not in view.you.legal:
        raise ValueError(f"{card.code} is not a legal card for the seat to play")
    legal = view.you.legal
    candidates = sorted({legal_card.rank for legal_card in legal})
    if len(candidates) == 1:
        return Grade(deal, play_index, seat, card.code, "forced", tuple(c.code for c in legal), None, None, 0)
    knowledge = read_knowledge(view)
    first_of = {rank: int(next(c for c in legal if c.rank == rank)) for rank in candidates}
    outs = PlayOuts.of(view, knowledge)
    points: list[list[float]] = [[] for _ in candidates]
    shares: list[list[float]] = [[] for _ in candidates]
    for _ in range(max(worlds, 2)):
        hands = sample_hands(knowledge, rng)
        draws = [rng.random() for _ in range(DRAWS_PER_WORLD)]
        for index, rank in enumerate(candidates):
            paid, share = outs.play(hands, first_of[rank], _cycling(draws))
            points[index].append(paid)
            shares[index].append(share)
    mean_points = [sum(values) / len(values) for values in points]
    mean_shares = [sum(values) / len(values) for values in shares]
    lowest = min(mean_points)
    best_ranks = {rank for rank, mean in zip(candidates, mean_points, strict=True) if mean - lowest < TIE_POINTS}
    played = candidates.index(card.rank)
    loss_points = max(mean_points[played] - lowest, 0.0)
    loss_share = max(max(mean_shares) - mean_shares[played], 0.0)
    best_index = candidates.index(min(best_ranks))
    spread = _paired_error(points[played], points[best_index])
    label = label_for(loss_points, spread, card.rank in best_ranks)
    best = tuple(c.code for c in legal if c.rank in best_ranks)
    return Grade(deal, play_index, seat, card.code, label, best, loss_points, loss_share, len(points[0]))


def label_for(loss_points: float, standard_error: float, is_best: bool) -> str:
    """The label of a non-forced play from its expected loss in points and that loss's standard error.

    ``best`` for a best rank; below :data:`MISTAKE_POINTS`, a loss within
    :data:`SE_GOOD` standard errors of zero or below :data:`GOOD_POINTS` is
    ``good``; then ``inaccuracy``, ``mistake`` from :data:`MISTAKE_POINTS`,
    ``blunder`` from :data:`BLUNDER_POINTS` (docs/coach.md, "Labels").
    """
    if is_best:
        return "best"
    if loss_points >= BLUNDER_POINTS:
        return "blunder"
    if loss_points >= MISTAKE_POINTS:
        return "mistake"
    if loss_points < GOOD_POINTS or loss_points <= SE_GOOD * standard_error:
        return "good"
    return "inaccuracy"


def play_accuracy(grade: Grade) -> float | None:
    """One play's accuracy from 0 to 1: ``1 - loss_points / ACCURACY_SCALE`` (at least 0); ``None`` when forced."""
    if grade.loss_points is None:
        return None
    return max(0.0, 1.0 - grade.loss_points / ACCURACY_SCALE)


def accuracy(grades: Collection[Grade], seat: int) -> float | None:
    """``seat``'s accuracy in percent: the mean :func:`play_accuracy` of its graded (not forced) plays × 100.

    ``None`` when the seat has no graded play.
    """
    values = [value for grade in grades if grade.seat == seat
              if (value := play_accuracy(grade)) is not None]
    return 100 * sum(values) / len(values) if values else None


def _paired_error(first: list[float], second: list[float]) -> float:
    """The standard error of the mean of ``first[i] - second[i]``."""
    count = len(first)
    diffs = [a - b for a, b in zip(first, second, strict=True)]
    mean = sum(diffs) / count
    variance = sum((d - mean) ** 2 for d in diffs) / (count - 1)
    return math.sqrt(max(variance, 0.0) / count)


def _cycling(draws: list[float]) -> Callable[[], float]:
    """A stand-in for ``random.random`` that returns ``draws`` in order, starting over at the end."""
    position = [0]
    size = len(draws)

    def rand() -> float:
        value = draws[position[0] % size]
        position[0] += 1
        return value

    return rand
