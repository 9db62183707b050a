"""A finished deal in sentences: who took the last trick, who paid, lives, the end.

Words for :class:`~app.game.summary.DealSummary`, the facts the engine gives
(docs/rules.md §2.7–2.10, §3).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from app.game.summary import DealSummary
from app.wording.cards import card_symbol
from app.wording.counts import lives_left, points
from app.wording.language import both, language, say, say_count
from app.wording.players import player_name


def deal_sentences(summary: DealSummary, names: Sequence[str]) -> list[str]:
    """The end of a deal in plain words, one sentence per fact, naming seats by ``names``.

    ``names[s]`` is seat s's player. In order: who took the last trick and
    with which card; each penalty (with the card whose value it is when that
    is not the taker's own card, as under inverse cucumber or a tie that all
    pay); each life lost with the lives left and the new total; each
    elimination and reinstatement; the winners, when the match ended.
    Names are shown as :func:`~app.wording.players.player_name` shows them.
    Raises ``IndexError`` when a seat has no name.
    """
    return list(_sentences(summary, tuple(names), language()))


@functools.lru_cache(maxsize=1024)
def _sentences(summary: DealSummary, stored_names: tuple[str, ...], code: str) -> tuple[str, ...]:
    # Said again for every state a room sends until its next deal ends, in the language ``code`` being
    # spoken: kept per summary, names and language.
    names = [player_name(name) for name in stored_names]
    lines = [say("{name} took the last trick with {card}.",
                 name=names[summary.trick_winner], card=card_symbol(summary.card))]
    for seat, paid, card, total in summary.penalties:
        if card == summary.card and seat == summary.trick_winner:
            lines.append(say_count("{name} scores {count} penalty point, now on {total}.",
                                   "{name} scores {count} penalty points, now on {total}.",
                                   paid, name=names[seat], total=total))
        else:
            lines.append(say_count("{name} scores {count} penalty point (the value of {card}), now on {total}.",
                                   "{name} scores {count} penalty points (the value of {card}), now on {total}.",
                                   paid, name=names[seat], card=card_symbol(card), total=total))
    for seat, left, total in summary.lives_lost:
        lines.append(say("{name} reached the threshold and loses a life ({lives_left}), continuing on {points}.",
                         name=names[seat], lives_left=lives_left(left), points=points(total)))
    for seat, total in summary.eliminated:
        lines.append(say_count("{name} is eliminated with {count} point.", "{name} is eliminated with {count} points.",
                               total, name=names[seat]))
    for seat, total in summary.reinstated:
        lines.append(say_count("Nobody would be left, so {name} stays in with one life on {count} point.",
                               "Nobody would be left, so {name} stays in with one life on {count} points.",
                               total, name=names[seat]))
    if len(summary.winners) == 1:
        lines.append(say("{name} wins the match!", name=names[summary.winners[0]]))
    elif summary.winners:
        lines.append(say("{names} share the win!", names=both([names[seat] for seat in summary.winners])))
    return tuple(lines)

