"""``cucumber bench coach`` reports the coach's time for a whole match (figures, never a verdict on them)."""

from bench import coach


def test_the_bench_reports_the_cpu_time_and_the_plays_graded():
    figures = coach.run(seed=3, deals=1, worlds=10)
    assert figures["players"] == 4 and figures["deals"] == 1 and figures["worlds"] == 10
    assert figures["plays"] == 28 and 0 < figures["graded_plays"] < 28
    assert figures["cpu_s"] >= 0 and figures["wall_s"] >= 0 and figures["ms_per_graded_play"] >= 0
