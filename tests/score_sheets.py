"""What a JSON client does with a state's score sheet (docs/protocol.md, "WebSocket"): keeps it whole."""

from __future__ import annotations

from typing import Any


def whole_sheet(state: dict[str, Any], held: list[dict[str, Any]] | None) -> dict[str, Any]:
    """``state``, as a connection received it, with its ``score_sheet`` whole: its own, or ``held`` (the sheet
    of the connection's previous state; ``None`` before the first) with the deals of its ``score_sheet_added``
    added (the state is changed and returned)."""
    added = state.pop("score_sheet_added", None)
    if added is not None:
        assert held is not None, "a connection's first state has the whole score sheet"
        state["score_sheet"] = [*held, *added]
    return state
