"""Every shared record case agrees with the engine's check (docs/rules.md §4)."""

import json
from pathlib import Path

import pytest

from app.game.record import check_record

CASES = sorted((Path(__file__).parent.parent / "data" / "records").glob("*.json"))


def test_cases_are_present():
    assert len(CASES) >= 66


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_case_agrees_with_expectation(path):
    case = json.loads(path.read_text())
    expect = case["expect"]
    result = check_record(case["record"])
    if expect["ok"]:
        keys = ["ok", "finished", "scores", "lives", "eliminated", "winners", "deals"]
    else:
        keys = ["ok", "deal", "play"]
    assert {key: result.get(key) for key in keys} == {key: expect[key] for key in keys}
