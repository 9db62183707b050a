"""Bots against bots: seating, summaries, the command, and which strength wins."""

import json
import random

import pytest

from app.bots import BotStrength
from app.bots.arena import parse_seats, play_duplicate_deal, play_match, run_arena, seating
from app.cli import main
from app.game.rules import Rules

# Shallow but real searches keep these runs reproducible and quick.
HARD = {"budget_s": 30.0, "max_worlds": 24}


def test_seats_are_parsed_and_checked():
    assert parse_seats(" Hard, easy ,NORMAL") == (BotStrength.HARD, BotStrength.EASY, BotStrength.NORMAL)
    with pytest.raises(ValueError):
        parse_seats("hard,master")
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


def test_a_duplicate_deal_gives_every_strength_every_hand():
    lineup = ["normal", "easy", "easy"]
    rows = play_duplicate_deal(lineup, Rules(hand_size=4), 5, seed=8)
    assert len(rows) == 3 and all(len(row) == 3 for row in rows)
    # Exactly one seat pays in each rotation (docs/rules.md §2.7), the value of a card.
    assert all(sum(1 for points in row if points) == 1 and 2 <= max(row) <= 14 for row in rows)
    assert play_duplicate_deal(lineup, Rules(hand_size=4), 5, seed=8) == rows
    # With one strength in every seat the rotations play the same deal the same way but for the bots' chance:
    # the normal bot has none, so all rotations agree.
    same = play_duplicate_deal(["normal"] * 3, Rules(hand_size=4), 5, seed=8)
    assert same[0] == same[1] == same[2]


def test_duplicate_deals_report_paired_differences_and_keep_the_match_keys():
    report = run_arena(["normal", "easy"], matches=4, duplicate=30, seed=3, rules=Rules(hand_size=4))
    assert report["duplicate_deals"] == 30 and report["matches"] == 4
    normal, easy = report["strategies"]["normal"], report["strategies"]["easy"]
    for stats in (normal, easy):
        assert set(stats) >= {"win_rate", "penalty_per_deal", "choice_ms", "duplicate_penalty"}
        assert stats["duplicate_penalty"]["low"] <= stats["duplicate_penalty"]["mean"] <= \
            stats["duplicate_penalty"]["high"]
    difference = report["differences"]["normal-easy"]
    assert difference["mean"] == pytest.approx(normal["duplicate_penalty"]["mean"] - easy["duplicate_penalty"]["mean"],
                                               abs=1e-3)
    assert difference["high"] < 0  # normal pays less than easy on the same hands


def test_workers_give_the_same_report():
    one = run_arena(["normal", "easy"], matches=3, duplicate=4, seed=6, rules=Rules(hand_size=3))
    two = run_arena(["normal", "easy"], matches=3, duplicate=4, seed=6, rules=Rules(hand_size=3), workers=2)
    assert two["workers"] == 2
    for report in (one, two):
        for stats in report["strategies"].values():
            del stats["decision_ms"], stats["choice_ms"]
        del report["seconds"], report["workers"]
    assert one == two


def test_command_plays_duplicate_deals_alone(capsys):
    assert main(["arena", "--seats", "expert,normal", "--duplicate", "3", "--worlds", "4", "--rules", "quick",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matches"] == 0 and report["duplicate_deals"] == 3
    assert set(report["differences"]) == {"expert-normal"}


@pytest.mark.parametrize("argv", [["--seats", "hard,wizard"], ["--matches", "0"], ["--rules", "nope"],
                                  ["--budget", "0"], ["--worlds", "0"], ["--workers", "0"],
                                  ["--duplicate", "-1"]])
def test_command_refuses_bad_options(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["arena", *argv])
    assert exit_info.value.code == 2
