"""Cucumber: the card game Agurk, played online in real time."""

__version__ = "0.1.0"
