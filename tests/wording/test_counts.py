"""Counted phrases: 0, 1, 2 and 5 of each."""

import pytest

from app.wording.counts import lives, lives_left, points


@pytest.mark.parametrize(("count", "expected"), [
    (0, ["0 points", "0 lives", "0 lives left"]),
    (1, ["1 point", "1 life", "1 life left"]),
    (2, ["2 points", "2 lives", "2 lives left"]),
    (5, ["5 points", "5 lives", "5 lives left"]),
])
def test_counted_phrases_take_the_right_form(count, expected):
    assert [points(count), lives(count), lives_left(count)] == expected
