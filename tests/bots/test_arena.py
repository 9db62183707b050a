"""Bots against bots: seating, summaries, the command, and which strength wins."""

import json
import random

import pytest

from app.bots import BotStrength
from app.bots.arena import parse_seats, play_match, run_arena, seating
from app.cli import main
from app.game.rules import Rules

# Shallow but real searches keep these runs reproducible and quick.
HARD = {"budget_s": 30.0, "max_worlds": 24}


def test_seats_are_parsed_and_checked():
    assert parse_seats(" Hard, easy ,NORMAL") == (BotStrength.HARD, BotStrength.EASY, BotStrength.NORMAL)
    with pytest.raises(ValueError):
        parse_seats("hard,expert")
    with pytest.raises(ValueError):
        parse_seats("hard")
    with pytest.raises(ValueError):
        parse_seats(",".join(["easy"] * 8))


def test_every_strength_sits_in_every_seat_in_turn():
    lineup = ["hard", "normal", "easy", "easy"]
    seen = {(seat, name) for number in range(4) for seat, name in enumerate(seating(lineup, number))}
    assert seen == {(seat, name) for seat in range(4) for name in lineup}
    assert seating(lineup, 0) == lineup


def test_a_match_is_played_to_its_end_with_timings():
    timings = {}
    match = play_match(["normal", "easy", "hard"], Rules(hand_size=4), random.Random(1), random.Random(2),
                       timings=timings, **HARD)
    assert match.finished and match.winners
    assert set(timings) == {"normal", "easy", "hard"}


def test_the_report_holds_intervals_and_timings():
    report = run_arena(["normal", "easy", "easy"], matches=30, seed=3, rules=Rules(hand_size=4))
    assert report["matches"] == 30 and report["seats"] == ["normal", "easy", "easy"]
    normal, easy = report["strategies"]["normal"], report["strategies"]["easy"]
    assert (normal["seats"], easy["seats"]) == (1, 2)
    # One seat of each match wins, ties shared: the per-seat rates average to the fair share.
    assert normal["win_rate"]["mean"] + 2 * easy["win_rate"]["mean"] == pytest.approx(1.0, abs=1e-3)
    for stats in (normal, easy):
        for key in ("win_rate", "penalty_per_deal"):
            assert stats[key]["low"] <= stats[key]["mean"] <= stats[key]["high"]
        assert stats["decision_ms"]["count"] >= stats["choice_ms"]["count"] > 0
        assert stats["decision_ms"]["p95"] <= stats["decision_ms"]["max"]


def test_normal_beats_easy():
    report = run_arena(["normal", "easy", "easy", "easy"], matches=200, seed=1)
    rate = report["strategies"]["normal"]["win_rate"]
    assert rate["low"] > 0.6
    assert report["strategies"]["normal"]["penalty_per_deal"]["high"] < \
        report["strategies"]["easy"]["penalty_per_deal"]["low"]


def test_hard_beats_easy():
    report = run_arena(["hard", "easy", "easy", "easy"], matches=30, seed=1, **HARD)
    assert report["strategies"]["hard"]["win_rate"]["low"] > 0.6


def test_hard_beats_normal():
    report = run_arena(["hard", "normal", "normal", "normal"], matches=60, seed=1, **HARD)
    assert report["strategies"]["hard"]["win_rate"]["low"] > 0.4


def test_command_prints_one_json_object(capsys):
    assert main(["arena", "--seats", "normal,easy", "--matches", "4", "--seed", "2", "--rules", "quick",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["seats"] == ["normal", "easy"] and report["preset"] == "quick"


def test_command_prints_a_table(capsys):
    assert main(["arena", "--seats", "easy,hard", "--matches", "2", "--worlds", "4",
                 "--rules", '{"hand_size": 3}']) == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "hard" in out and "easy" in out


@pytest.mark.parametrize("argv", [["--seats", "hard,wizard"], ["--matches", "0"], ["--rules", "nope"],
                                  ["--budget", "0"], ["--worlds", "0"]])
def test_command_refuses_bad_options(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", *argv])
    assert exit_info.value.code == 2
