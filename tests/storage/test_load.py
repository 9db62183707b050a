"""The load that opens the commit window (app/storage/load.py)."""

from __future__ import annotations

import pytest

from app.storage.load import LOAD_HYSTERESIS, LOAD_PERIOD_SECONDS, LoadGate


class Clocks:
    """A wall clock and a CPU clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.wall = 100.0
        self.cpu = 5.0

    def spend(self, seconds: float, load: float) -> None:
        """Let ``seconds`` of wall time pass with the process using ``load`` of a core."""
        self.wall += seconds
        self.cpu += seconds * load


def gate(opens_at: float, clocks: Clocks) -> LoadGate:
    return LoadGate(opens_at, wall=lambda: clocks.wall, cpu=lambda: clocks.cpu)


def test_the_gate_opens_once_a_period_is_busy_enough_and_closes_only_well_below_it():
    clocks = Clocks()
    window = gate(0.7, clocks)
    assert not window.is_open()  # nothing measured yet
    clocks.spend(LOAD_PERIOD_SECONDS, 0.65)
    assert not window.is_open() and window.load == pytest.approx(0.65)
    clocks.spend(LOAD_PERIOD_SECONDS / 2, 0.9)
    assert not window.is_open()  # half a period: not measured again yet
    clocks.spend(LOAD_PERIOD_SECONDS / 2, 0.9)
    assert window.is_open() and window.load == pytest.approx(0.9)
    clocks.spend(LOAD_PERIOD_SECONDS, 0.7 - LOAD_HYSTERESIS / 2)  # the window lowers the load a little
    assert window.is_open()
    clocks.spend(LOAD_PERIOD_SECONDS, 0.7 - LOAD_HYSTERESIS * 1.5)
    assert not window.is_open()
    clocks.spend(LOAD_PERIOD_SECONDS, 0.7 - LOAD_HYSTERESIS / 2)
    assert not window.is_open()  # closed, it opens again only at 0.7


def test_a_long_quiet_spell_is_measured_as_a_whole():
    clocks = Clocks()
    window = gate(0.5, clocks)
    clocks.spend(LOAD_PERIOD_SECONDS, 1.0)
    assert window.is_open()
    clocks.spend(60 * LOAD_PERIOD_SECONDS, 0.01)  # no write came for a minute
    assert not window.is_open() and window.load == pytest.approx(0.01)


def test_a_gate_opening_at_no_load_is_always_open():
    clocks = Clocks()
    window = gate(0, clocks)
    assert window.is_open()
    clocks.spend(LOAD_PERIOD_SECONDS * 3, 0.0)
    assert window.is_open()


@pytest.mark.parametrize("opens_at", [-0.1, float("nan")])
def test_a_negative_load_is_refused(opens_at):
    with pytest.raises(ValueError, match="0 or more"):
        LoadGate(opens_at)
