"""View objects for the match history pages: standings per deal, a chart, a replay.

Built from a stored record by replaying it through the engine
(:func:`app.game.history.deal_by_deal`); templates get these objects only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.coach.analysis import LABELS
from app.coach.analysis import stand_ins as stand_in_plays
from app.coach.hindsight import Hindsight, hindsight
from app.game.history import deal_by_deal
from app.game.rules import Rules
from app.storage.values import FinishedMatch
from app.wording import card_faces, deal_sentences, describe_rules
from app.wording.players import player_name


@dataclass(frozen=True, slots=True)
class ChartLine:
    """One player's totals over the deals, as SVG polyline points."""

    seat: int
    name: str
    points: str


@dataclass(frozen=True, slots=True)
class CoachSummary:
    """The coach's analysis of a match as the page shows it (docs/coach.md).

    ``status``: ``"done"``, ``"running"``, ``"failed"`` or ``"waiting"`` (not
    taken up yet, or the analysis is off); ``accuracy[s]``: seat s's accuracy
    in percent, ``None`` without a graded play; ``labels[s]``: how many of
    seat s's plays got each label of :data:`~app.coach.analysis.LABELS`.
    """

    status: str
    accuracy: list[float | None]
    labels: list[dict[str, int]]


@dataclass(frozen=True, slots=True)
class MatchDetail:
    """Everything the page of one finished match shows.

    ``match`` is the stored listing of the match (players, placings, winners,
    when it ended); ``coach`` the coach's analysis (:class:`CoachSummary`);
    ``totals[d][s]`` is seat s's total after deal d+1
    (``lives`` likewise; ``lost_life[d][s]`` says whether seat s lost a life
    in that deal); ``replay`` is JSON-ready data for the replay script: the
    players' names as shown, per deal the dealer, hands as dealt, tricks and
    the deal summary sentences, and every card's corner label, suit symbol
    and name, all in the language spoken when it was built; per deal also
    ``coach[p]`` (the coach's grade of play p, or ``None``: not graded),
    ``hindsight[p]`` (:mod:`app.coach.hindsight`, ``None`` with one legal
    rank) and ``stand_in[p]`` (a stand-in bot made play p).
    """

    match: FinishedMatch
    coach: CoachSummary
    rules_text: list[str]
    totals: list[list[int]]
    lives: list[list[int]]
    lost_life: list[list[bool]]
    chart: list[ChartLine]
    chart_max: int
    replay: dict[str, Any]


CHART_WIDTH = 600
CHART_HEIGHT = 200


def match_detail(match: FinishedMatch, record: dict[str, Any], analysis: dict[str, Any] | None = None) -> MatchDetail:
    """The detail view of a finished match from the match as listed, its stored record (docs/rules.md §4)
    and the coach's ``analysis`` as stored (``Storage.match_analysis``; ``None`` when there is none yet).

    Raises the errors of :func:`app.game.record.replay` for a record that
    does not check (storage keeps only records that do).
    """
    steps = deal_by_deal(record)
    names = list(record["players"])
    totals = [list(step.scores) for step in steps]
    top = max([Rules.from_dict(record.get("rules", {})).threshold, *(max(row) for row in totals)])
    width = CHART_WIDTH / max(1, len(steps))
    chart = []
    for seat, name in enumerate(names):
        points = [(0.0, CHART_HEIGHT)] + [((index + 1) * width, CHART_HEIGHT - row[seat] * CHART_HEIGHT / top)
                                          for index, row in enumerate(totals)]
        chart.append(ChartLine(seat, name, " ".join(f"{x:.1f},{y:.1f}" for x, y in points)))
    grades = {(grade["deal"], grade["play"]): grade for grade in (analysis or {}).get("grades") or []}
    seen = hindsight(record)
    substituted = stand_in_plays(record)
    replay = {
        "players": [player_name(name) for name in names],
        "cards": card_faces(),
        "deals": [
            {
                "number": step.number,
                "dealer": step.dealer,
                "hands": [[card.code for card in hand] for hand in step.hands],
                "tricks": [{"plays": [[seat, card.code] for seat, card in trick.plays], "winner": trick.winner}
                           for trick in step.tricks],
                "scores": list(step.scores),
                "lives": list(step.lives),
                "summary": deal_sentences(step.summary, names) if step.summary else [],
                "coach": [_coach_entry(grades.get((index, number))) for number in range(len(plays))],
                "hindsight": [_hindsight_entry(seen.get((index, number))) for number in range(len(plays))],
                "stand_in": [(index, number) in substituted for number in range(len(plays))],
            }
            for index, (step, plays) in enumerate(zip(steps, (deal["plays"] for deal in record["deals"]),
                                                      strict=True))
        ],
    }
    rules = Rules.from_dict(record.get("rules", {}))
    lives = [list(step.lives) for step in steps]
    before = [[rules.lives] * len(names), *lives]
    lost_life = [[now < was for now, was in zip(row, previous, strict=True)]
                 for row, previous in zip(lives, before, strict=False)]
    return MatchDetail(match=match, coach=_summary(analysis, len(names)), rules_text=describe_rules(rules),
                       totals=totals, lives=lives, lost_life=lost_life, chart=chart, chart_max=top, replay=replay)


def _summary(analysis: dict[str, Any] | None, seats: int) -> CoachSummary:
    """The page's summary of a stored analysis (see :class:`CoachSummary`)."""
    labels = [dict.fromkeys(LABELS, 0) for _ in range(seats)]
    if analysis is None or analysis.get("status") != "done":
        return CoachSummary(status=(analysis or {}).get("status") or "waiting", accuracy=[None] * seats,
                            labels=labels)
    for grade in analysis.get("grades") or []:
        labels[grade["seat"]][grade["label"]] += 1
    return CoachSummary(status="done", accuracy=list(analysis.get("accuracy") or [None] * seats), labels=labels)


def _coach_entry(grade: dict[str, Any] | None) -> dict[str, Any] | None:
    """A play's grade as the replay script takes it: its label, the coach's cards and the points they save."""
    if grade is None:
        return None
    return {"label": grade["label"], "best": grade["best"], "saved": grade["loss_points"]}


def _hindsight_entry(seen: Hindsight | None) -> dict[str, Any] | None:
    """A play in hindsight as the replay script takes it."""
    if seen is None:
        return None
    return {"points": seen.points, "best_points": seen.best_points, "best": list(seen.best)}
