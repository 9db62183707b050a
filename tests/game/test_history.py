"""A finished match told deal by deal and trick by trick, from its record."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.game import Rules, to_record
from app.game.history import deal_by_deal
from app.game.record import RecordFault
from app.game.simulate import play_random_match

CASES = Path(__file__).parent.parent / "data" / "records"


def test_every_deal_and_trick_of_a_match_is_told():
    match = play_random_match(4, Rules(hand_size=5), random.Random(8))
    record = to_record(match)
    steps = deal_by_deal(record)
    assert len(steps) == len(record["deals"]) == match.deals_completed
    for step, deal in zip(steps, record["deals"]):
        assert step.dealer == deal["dealer"]
        assert [sorted(card.code for card in hand) for hand in step.hands] == [sorted(h) for h in deal["hands"]]
        assert [card.code for trick in step.tricks for _, card in trick.plays] == deal["plays"]
        assert all(trick.winner in {seat for seat, _ in trick.plays} for trick in step.tricks)
        assert step.summary is not None
    assert steps[-1].scores == match.scores and steps[-1].lives == match.lives
    assert steps[-1].summary.winners == match.winners


def test_an_unfinished_deal_has_no_summary():
    case = json.loads((CASES / "case0000.json").read_text())
    steps = deal_by_deal(case["record"])
    assert case["expect"]["finished"] is False
    assert len(steps) == case["expect"]["deals"] + (1 if steps[-1].summary is None else 0)


def test_a_faulty_record_is_refused():
    case = json.loads((CASES / "case0001.json").read_text())
    with pytest.raises(RecordFault):
        deal_by_deal(case["record"])
