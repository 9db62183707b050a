"""The coach's labels as people read them (docs/coach.md, "Labels")."""

from __future__ import annotations

from app.wording.language import noted_in, say_in

LABEL_CONTEXT = "coach label"

# Translators: the coach's grade of one play of a card game, shown beside the card, like chess's "!" and "??".
LABEL_WORDS = {
    "best": noted_in("coach label", "best"),
    "good": noted_in("coach label", "good"),
    "inaccuracy": noted_in("coach label", "inaccuracy"),
    "mistake": noted_in("coach label", "mistake"),
    "blunder": noted_in("coach label", "blunder"),
    "forced": noted_in("coach label", "forced"),
}
"""The word for each label of :data:`app.coach.analysis.LABELS`."""


def coach_label(label: str) -> str:
    """The coach's ``label`` (``"mistake"``) in the language spoken; ``KeyError`` for an unknown label."""
    return say_in(LABEL_CONTEXT, LABEL_WORDS[label])
