"""``cucumber serve`` sets the garbage collector for a long-running server before it serves."""

from __future__ import annotations

import gc

from app.tools import serve


def test_settling_the_collector_sets_its_thresholds_and_moves_what_is_loaded_out_of_its_sight():
    thresholds = gc.get_threshold()
    try:
        serve.settle_collector()
        assert gc.get_threshold() == serve.GC_THRESHOLDS
        assert gc.get_freeze_count() > 1000  # the modules and everything else loaded so far
        assert serve.GC_THRESHOLDS[2] > thresholds[2]  # full collections wait longer than Python's default
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
    assert gc.get_freeze_count() == 0
