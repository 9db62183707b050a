"""``cucumber analyse``: the coach's grade of every play of a match record (docs/coach.md)."""

from __future__ import annotations

import json
from typing import TextIO

from app.coach.analysis import accuracy, analyse_record
from app.game.record import NotARecord, RecordFault, replay
from app.tools.verify import UnreadableRecord, failure, read_record


def analyse_file(path: str, *, seat: int | None, as_json: bool, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    """Grade the plays of the record file at ``path`` (``-``: ``stdin``) and print them on ``out``.

    ``seat`` (from 0) keeps only that seat's plays. With ``as_json`` each
    graded play is one JSON line (``deal``, ``play``, ``seat``, ``card``,
    ``label``, ``best``, ``loss_points``, ``loss_win_share``); otherwise a
    line per play for people, then each seat's accuracy. A record that does
    not verify gets the line ``cucumber verify`` prints for it on ``out``
    (and a message on ``err``), and nothing is graded. Returns 0, or 1 for
    such a record, or 2 for a seat not in the match.
    """
    try:
        record = read_record(path, stdin)
        match = replay(record)
    except (UnreadableRecord, NotARecord) as error:
        reason = error.reason if isinstance(error, UnreadableRecord) else f"not a cucumber-match/1 record: {error}"
        print(f"cucumber analyse: {path}: {reason}", file=err)
        print(json.dumps(failure(reason)), file=out)
        return 1
    except RecordFault as fault:
        print(f"cucumber analyse: {path}: the record does not verify: {fault.message}", file=err)
        print(json.dumps(fault.to_dict()), file=out)
        return 1
    if seat is not None and not 0 <= seat < match.seat_count:
        print(f"cucumber analyse: {path}: no seat {seat} in this match", file=err)
        return 2
    grades = analyse_record(record, seats=None if seat is None else {seat})
    players = record["players"]
    for grade in grades:
        if as_json:
            print(json.dumps(grade.to_dict()), file=out)
            continue
        line = f"deal {grade.deal + 1} play {grade.play + 1:>2}  {players[grade.seat]}: {grade.card}  {grade.label}"
        if grade.label not in ("best", "forced"):
            line += f"  (best {' '.join(grade.best)}, {grade.loss_points:.1f} points lost)"
        print(line, file=out)
    if not as_json:
        for number, name in enumerate(players):
            if seat is not None and number != seat:
                continue
            value = accuracy(grades, number)
            print(f"accuracy of {name}: {'no graded play' if value is None else f'{value:.1f} %'}", file=out)
    return 0

