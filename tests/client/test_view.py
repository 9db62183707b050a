"""The client's view of a room, from frames in order: versions, the score sheet, lean reading."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.client import Frame, ProtocolViolation, Refused, Table, View, follow

DEAL_1 = {"deal": 1, "dealer": 0, "trick_winner": 1, "last_trick": [], "seats": []}
DEAL_2 = {"deal": 2, "dealer": 1, "trick_winner": 0, "last_trick": [], "seats": []}


def state(version: int, **fields: Any) -> dict[str, Any]:
    """A ``state`` frame of ``version`` whose state holds ``fields`` (and a table of two in play)."""
    table = {"phase": "playing", "match_id": "m1", "deal": 1, "turn": 0,
             "seats": [{"seat": 0, "played": ["3C"]}, {"seat": 1, "played": ["5H"]}],
             "trick": [{"seat": 1, "card": "8S"}],
             "you": {"seat": 0, "hand": ["4D", "9C"], "legal": ["9C"]}}
    return {"type": "state", "version": version, "state": {**table, **fields}}


def text(frame: dict[str, Any]) -> str:
    """A frame as the server writes it: compact JSON."""
    return json.dumps(frame, separators=(",", ":"))


def test_deals_added_go_at_the_end_of_the_sheet_held():
    frames = [state(5, score_sheet=[DEAL_1]), state(6, score_sheet_added=[]), state(7, score_sheet_added=[DEAL_2])]
    sheets = [seen["score_sheet"] for seen in follow(frames)]
    assert sheets == [[DEAL_1], [DEAL_1], [DEAL_1, DEAL_2]]


def test_a_whole_sheet_replaces_the_one_held():
    frames = [state(5, score_sheet=[DEAL_1, DEAL_2]), state(6, score_sheet=[])]
    assert [seen["score_sheet"] for seen in follow(frames)][-1] == []
    assert all("score_sheet_added" not in seen for seen in follow(frames))


def test_deals_added_in_a_first_state_break_the_protocol():
    with pytest.raises(ProtocolViolation):
        list(follow([state(5, score_sheet_added=[DEAL_1])]))
    view = View(strict=True)
    view.apply(state(5, score_sheet=[]))
    view.reconnected()
    with pytest.raises(ProtocolViolation):
        view.apply(state(6, score_sheet_added=[DEAL_1]))


def test_a_lenient_view_adds_deals_even_to_a_sheet_never_sent():
    assert [seen["score_sheet"] for seen in follow([state(5, score_sheet_added=[])], strict=False)] == [[]]


def test_a_strict_view_refuses_a_version_that_does_not_grow():
    with pytest.raises(ProtocolViolation, match="version 5 after 6"):
        list(follow([state(6, score_sheet=[]), state(5, score_sheet_added=[])]))


def test_a_lenient_view_ignores_an_older_state():
    view = View()
    view.apply(state(6, score_sheet=[], turn=1))
    frame = view.apply(state(5, score_sheet_added=[], turn=0))
    assert (frame.fresh, view.version, view.state and view.state["turn"]) == (False, 6, 1)


def test_only_the_answer_to_a_sync_repeats_the_version():
    view = View(strict=True)
    view.apply(state(6, score_sheet=[DEAL_1]))
    view.expect_sync()
    assert not view.apply(state(6, score_sheet=[DEAL_1])).fresh
    with pytest.raises(ProtocolViolation):
        view.apply(state(6, score_sheet=[DEAL_1]))


def test_a_new_socket_may_start_at_the_version_held():
    view = View(strict=True)
    view.apply(state(6, score_sheet=[DEAL_1]))
    view.reconnected()
    assert view.apply(state(6, score_sheet=[DEAL_1])).fresh


def test_the_table_reads_the_state():
    view = View()
    view.apply(state(3, score_sheet=[]))
    table = view.table
    assert isinstance(table, Table)
    assert (table.phase, table.seat, table.hand, table.legal, table.my_turn, table.cards_played) == (
        "playing", 0, ["4D", "9C"], ["9C"], True, 3)
    assert table.moment() == {"match": "m1", "deal": 1, "played": 3}


def test_a_refusal_carries_its_code():
    frame = View().take(text({"type": "error", "code": "not_your_turn", "message": "it is Ben's turn"}))
    assert (frame.kind, frame.code, frame.text) == ("error", "not_your_turn", "it is Ben's turn")
    refusal = frame.refusal()
    assert isinstance(refusal, Refused) and refusal.code == "not_your_turn"


def test_a_frame_that_is_not_a_message_breaks_the_protocol():
    for bad in ("[1, 2]", "not json", '{"code": "x"}'):
        with pytest.raises(ProtocolViolation):
            View().take(bad)


def test_a_lean_view_holds_what_a_full_one_holds():
    frames = [state(5, score_sheet=[DEAL_1]), {"type": "chat", "id": 1, "text": "hi"}, state(6, score_sheet_added=[]),
              {"type": "error", "code": "stale_play", "message": "late"}, state(7, score_sheet_added=[DEAL_2], turn=1)]
    full, lean = View(strict=True), View(strict=True, lean=True)
    for frame in frames:
        seen_full, seen_lean = full.take(text(frame)), lean.take(text(frame))
        assert (seen_lean.kind, seen_lean.version, seen_lean.fresh, seen_lean.code) == (
            seen_full.kind, seen_full.version, seen_full.fresh, seen_full.code)
        assert lean.state == full.state
    assert lean.version == 7 and lean.state is not None and lean.state["score_sheet"] == [DEAL_1, DEAL_2]


def test_a_lean_view_decodes_no_chat():
    assert View(lean=True).take(text({"type": "chat", "id": 1, "text": "hi"})) == Frame("chat")
