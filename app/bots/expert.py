"""The ``expert`` bot: the ``hard`` search, played out by a model of play, with an exact endgame heads-up.

Like ``hard`` it samples the hands it cannot see and plays every candidate
out in each sampled world. Four things set it apart:

- **A model of play.** Under the default penalty every seat's later cards
  in a play-out are drawn from :mod:`app.bots.play_model`, counted from the
  ``hard`` bot's self-play, instead of the rule of thumb: the deal is
  played out the way a searching player plays it, the expert's own later
  cards included.
- **Exact endgame.** Heads-up, once hands are down to
  :data:`SOLVE_AT_HEADS_UP` cards, the rest of the deal in each world is
  played exactly (:func:`~app.bots.endgame.solve`: every seat minimises its
  own penalty).
- **Inference (heads-up).** A world in which the other player's earlier
  plays of this deal were likely counts for more (with more seats every
  world counts alike, :data:`INFER_UP_TO_SEATS`). Each world is weighted by
  the chance of every earlier card of the other seat as a legal card at
  random (:data:`INFERENCE_NOISE`): a world in which the player had fewer
  choices explains the card they played better.
- **Speed.** Deals are played out on :mod:`app.game.fast`, several times
  faster than through the readable engine, so many more worlds fit in the
  same time.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.bots.endgame import play_then_solve
from app.bots.heuristic import sheds_high
from app.bots.knowledge import DealKnowledge, read_knowledge
from app.bots.play_model import PlayModel, model_for
from app.bots.search import one_per_rank
from app.bots.value import share_of
from app.bots.worlds import sample_hands
from app.game.cards import Card
from app.game.fast import Table, followers_of, legal_of, settle, table_for, trick_state
from app.game.views import MatchView

EXPERT_BUDGET_S = 0.12
"""Seconds of search per decision when the caller gives no budget."""

MAX_WORLDS = 600
"""Worlds sampled at most per decision."""

ROLLOUT_EPSILON = 0.1
"""Chance that a simulated player plays a random legal card instead of the rule of thumb."""

INFERENCE_NOISE = 1.0
"""In the model of the other players' earlier plays, the chance that a card was
random among the legal ones rather than the rule of thumb's rank. Measured
against ``hard`` (docs/bots.md), a model that trusts the rule of thumb
(0.3, 0.7) made the expert worse: ``hard`` players do not play by it. At 1
each earlier card weighs ``1 / (legal cards then)``: a world in which the
player had fewer choices explains the card better."""

INFER_UP_TO_SEATS = 2
"""Worlds are weighted by the plays they explain (:func:`world_weight`) only in deals of at most this many
seats. With three `hard` players the weights made the expert pay more than `hard`; counting every world
alike, it paid as much (docs/bots.md): with three hidden hands the weights multiply, and few worlds keep any."""

SOLVE_AT_HEADS_UP = 4
"""In a deal of two seats, hands of at most this many cards are played out
exactly (:func:`~app.bots.endgame.solve`). Measured against ``hard``
(docs/bots.md), 4 beat 5 (fewer worlds in the budget). With more seats
only the last trick is (which is no choice): solving 3 or 4 cards a hand
there made the expert clearly worse, 2 made no difference."""

SOLVE_AT_MORE = 1
""":data:`SOLVE_AT_HEADS_UP` for a deal of three seats or more."""

MIN_WORLDS = 192
CHECK_EVERY = 32
CLEAR_Z = 4.0
NEGLIGIBLE = 0.002
"""Early stop: after at least ``MIN_WORLDS`` worlds, once the best candidate leads every other by ``CLEAR_Z``
standard errors, or the difference is surely below ``NEGLIGIBLE``. Play-outs drawn from the model of play
vary more than the rule of thumb's; with three `hard` seats, stopping later (192 worlds and 4 standard errors
against 64 and 3) doubled what the expert saved on the same 300 deals: −0.29 against −0.14 a deal (docs/bots.md)."""


@dataclass(frozen=True, slots=True)
class PlayOuts:
    """What every play-out of one decision shares, read from the deciding seat's view.

    ``table`` and ``followers`` as :mod:`app.game.fast` takes them; ``leader``,
    ``trick`` (card numbers so far) and ``trick_index`` (from 0) the trick under
    way; ``scores`` and ``lives`` every seat's at the start of the deal,
    ``deals`` the deals played including this one; ``seat`` the one deciding;
    ``high_first`` whether the highest card pays (docs/rules.md §2.7, §3);
    ``solve_at`` the hand size from which the deal is played exactly; ``model``
    the model of play, or ``None`` for the rule of thumb.
    """

    table: Table
    followers: tuple[tuple[int, ...], ...]
    leader: int
    trick: tuple[int, ...]
    trick_index: int
    scores: tuple[int, ...]
    lives: tuple[int, ...]
    deals: int
    seat: int
    high_first: bool
    solve_at: int
    model: PlayModel | None

    @classmethod
    def of(cls, view: MatchView, knowledge: DealKnowledge) -> PlayOuts:
        """The play-outs for the seat of ``view`` (a player's view on their turn) with ``knowledge`` of it.

        Heads-up the deal is played exactly from :data:`SOLVE_AT_HEADS_UP` cards a hand, else from
        :data:`SOLVE_AT_MORE`; the model of play serves under the default penalty only.
        """
        assert view.leader is not None, "a deal in progress has a leader"
        high_first = sheds_high(view.rules)
        seats = len(knowledge.order)
        return cls(table_for(view.rules), followers_of(knowledge.order), view.leader,
                   tuple(int(played.card) for played in view.trick), view.trick_number - 1,
                   tuple(seat_view.score for seat_view in view.seats),
                   tuple(seat_view.lives for seat_view in view.seats), view.deal_number, knowledge.viewer,
                   high_first, SOLVE_AT_HEADS_UP if seats == 2 else SOLVE_AT_MORE,
                   model_for(seats) if high_first else None)

    def play(self, hands: tuple[int, ...], card: int, rand: Callable[[], float]) -> tuple[float, float]:
        """Play ``card`` for :attr:`seat` in the world ``hands`` (bit sets per seat) and the deal out.

        The rest is :func:`~app.bots.endgame.play_then_solve`'s, chance from ``rand``. Returns the
        penalty points the seat pays in the deal (§2.7) and its share of the match win after it
        (:func:`~app.bots.value.share_of`, 0 to 1).
        """
        payers, points = play_then_solve(self.table, list(hands), self.followers, self.leader, list(self.trick),
                                         self.trick_index, card, rand, ROLLOUT_EPSILON, self.high_first,
                                         self.solve_at, self.model)
        after, left, winners = settle(self.table, self.followers, self.scores, self.lives, payers, points, self.deals)
        return (float(points) if self.seat in payers else 0.0,
                share_of(self.table.threshold, after, left, self.seat, winners))


@dataclass(frozen=True, slots=True)
class EarlierPlay:
    """One earlier card of another seat in this deal, as the inference needs it.

    ``bar`` is what a card had to reach when it was played (from
    :func:`~app.game.fast.trick_state`); ``later`` the cards that seat
    played from this card on (this one included), so that its hand then was
    its hand now plus ``later``.
    """

    seat: int
    card: int
    bar: int
    later: int


def expert_card(view: MatchView, rng: random.Random, budget_s: float | None = None,
                max_worlds: int | None = None) -> Card:
    """The ``expert`` bot's card for the seat of ``view``: always one of ``view.you.legal``.

    Candidates are the legal cards, one per rank (docs/rules.md §1); with a
    single one it is returned at once. Otherwise worlds are sampled from
    what the public plays reveal (:func:`~app.bots.worlds.sample_hands`,
    §2.4 and §3), each weighted by :func:`world_weight` of the plays
    :func:`inferred_from` gives; in each world every
    candidate is played and the deal played out by
    :func:`~app.bots.endgame.play_then_solve` (every seat's cards drawn from
    :func:`~app.bots.play_model.model_for`'s model under the default penalty,
    else the rule of thumb with some random play; heads-up exact play from
    :data:`SOLVE_AT_HEADS_UP` cards a hand on), scored under the match's rules (§2.7–2.10) and rated
    by :func:`~app.bots.value.share_of`. The candidate with the best
    weighted mean wins.

    ``budget_s`` (wall-clock seconds, default :data:`EXPERT_BUDGET_S`) and
    ``max_worlds`` (default :data:`MAX_WORLDS`) bound the search; it may
    stop sooner once one candidate is clearly best. Chance comes only from
    ``rng``. Raises ``ValueError`` when the viewer has no legal card.
    """
    if view.you is None or not view.you.legal:
        raise ValueError("the viewer has no legal card to play")
    candidates = one_per_rank(view.you.legal)
    if len(candidates) == 1:
        return candidates[0]
    deadline = time.perf_counter() + (EXPERT_BUDGET_S if budget_s is None else budget_s)
    limit = MAX_WORLDS if max_worlds is None else max(max_worlds, 1)
    knowledge = read_knowledge(view)
    outs = PlayOuts.of(view, knowledge)
    earlier = inferred_from(outs.table, knowledge)
    rand = rng.random
    results: list[list[float]] = [[] for _ in candidates]
    weights: list[float] = []
    while len(weights) < limit:
        hands = sample_hands(knowledge, rng)
        weight = world_weight(outs.table, earlier, hands, outs.high_first)
        weights.append(weight)
        for index, card in enumerate(candidates):
            results[index].append(outs.play(hands, int(card), rand)[1])
        if time.perf_counter() >= deadline:
            break
        count = len(weights)
        if count >= MIN_WORLDS and count % CHECK_EVERY == 0 and _settled(results, weights):
            break
    total = sum(weights)
    if total <= 0:  # no world explains the plays (cannot happen with noise > 0): count them alike
        weights = [1.0] * len(weights)
        total = float(len(weights))
    means = [sum(w * value for w, value in zip(weights, values, strict=True)) / total for values in results]
    return candidates[max(range(len(candidates)), key=means.__getitem__)]


def inferred_from(table: Table, knowledge: DealKnowledge) -> list[EarlierPlay]:
    """The earlier plays the worlds are weighted by: :func:`earlier_plays` in a deal of at most
    :data:`INFER_UP_TO_SEATS` seats, else none (every world then weighs 1)."""
    return earlier_plays(table, knowledge) if len(knowledge.order) <= INFER_UP_TO_SEATS else []


def earlier_plays(table: Table, knowledge: DealKnowledge) -> list[EarlierPlay]:
    """The cards other seats played so far in this deal, with what each had to reach (docs/rules.md §2.3–2.5).

    Replays the public plays trick by trick from the first active seat left
    of the dealer, each trick's winner leading the next. Cards with no
    choice of rank in any world are kept too; :func:`world_weight` finds
    them to weigh 1.
    """
    order = knowledge.order
    followers = followers_of(order)
    width = len(order)
    plays = [int(card) for card in knowledge.plays]
    seats: list[int] = []
    bars: list[int] = []
    leader = order[0]
    for start in range(0, len(plays), width):
        trick_seats = (leader, *followers[leader])
        cards = plays[start:start + width]
        for position in range(len(cards)):
            seats.append(trick_seats[position])
            bars.append(trick_state(table, trick_seats, cards[:position], start // width)[1])
        leader = trick_state(table, trick_seats, cards, start // width)[0]
    out: list[EarlierPlay] = []
    later = [0] * len(knowledge.cards_left)
    for index in range(len(plays) - 1, -1, -1):
        seat = seats[index]
        later[seat] |= 1 << plays[index]
        if seat != knowledge.viewer:
            out.append(EarlierPlay(seat, plays[index], bars[index], later[seat]))
    out.reverse()
    return out


def world_weight(table: Table, earlier: list[EarlierPlay], hands: tuple[int, ...], high_first: bool) -> float:
    """How likely the other seats' earlier plays were if they held ``hands`` (bit sets per seat, now).

    The product over ``earlier`` of the chance of each card's rank under
    the model of :data:`INFERENCE_NOISE`: the rule of thumb's rank (the
    highest legal rank when ``high_first``, else the lowest), or any legal
    card at random. A card whose hand then had one legal rank weighs 1.
    Returns a number from 0 to 1 (never 0 while the noise is above 0).
    """
    weight = 1.0
    keep = 1.0 - INFERENCE_NOISE
    for play in earlier:
        legal = legal_of(table, hands[play.seat] | play.later, play.bar)
        top = legal.bit_length() - 1
        low = (legal & -legal).bit_length() - 1
        if top >> 2 == low >> 2:
            continue
        rank = play.card >> 2
        same = (legal >> (rank << 2) & 0xF).bit_count()
        chance = INFERENCE_NOISE * same / legal.bit_count()
        if rank == (top >> 2 if high_first else low >> 2):
            chance += keep
        weight *= chance
    return weight


def _settled(results: list[list[float]], weights: list[float]) -> bool:
    """Whether more worlds are unlikely to change the choice (weighted paired differences).

    The effective number of worlds ``(Σw)² / Σw²`` stands in for the count.
    """
    total = sum(weights)
    if total <= 0:
        return False
    effective = total * total / sum(w * w for w in weights)
    if effective < 2:
        return False
    mean_of: Callable[[list[float]], float] = lambda values: (  # noqa: E731
        sum(w * v for w, v in zip(weights, values, strict=True)) / total)
    means = [mean_of(values) for values in results]
    best = max(range(len(results)), key=means.__getitem__)
    for index, values in enumerate(results):
        if index == best:
            continue
        diffs = [a - b for a, b in zip(results[best], values, strict=True)]
        mean = mean_of(diffs)
        spread = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
        error = math.sqrt(spread / effective)
        if mean - CLEAR_Z * error > 0 or mean + CLEAR_Z * error < NEGLIGIBLE:
            continue
        return False
    return True
