"""Invariants over random legal play, for the house rules and for random rules (Hypothesis).

Each example plays a whole match card by card through :func:`play`, every
card chosen among the legal ones by a seeded policy (uniform, lowest,
highest, or a mix), and checks one invariant along the way. A small
reference model written from docs/rules.md (legal cards, trick winner, who pays,
lives) is checked against the engine at every step.
"""

import dataclasses
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.game import Card, Rules, deal_cards, new_match, play, play_out_deal, replay, to_record, view_for
from app.game.cards import DECK
from app.game.events import PlayerEliminated, PlayerReinstated
from app.game.refusals import IllegalMove, Refusal
from app.game.rules import ACE_LEAD, FOLLOW, LAST_TRICK_TIE, PENALTY_TO

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ANY_RULES = st.builds(
    Rules,
    hand_size=st.integers(3, 7),
    follow=st.sampled_from(FOLLOW),
    ace_lead=st.sampled_from(ACE_LEAD),
    last_trick_tie=st.sampled_from(LAST_TRICK_TIE),
    threshold=st.integers(10, 100),
    lives=st.integers(1, 3),
    second_life_min_opponents=st.integers(1, 6),
    penalty_to=st.sampled_from(PENALTY_TO),
    match_length=st.one_of(st.just("elimination"), st.integers(1, 50)),
)
# Ties on the last trick with one life and a low threshold: deals that would leave
# nobody in, and so the revival rule of docs/rules.md §3, come up often.
REVIVAL_PRONE = st.builds(
    Rules,
    hand_size=st.integers(3, 4),
    ace_lead=st.sampled_from(ACE_LEAD),
    last_trick_tie=st.just("all_tied"),
    penalty_to=st.sampled_from(PENALTY_TO),
    threshold=st.integers(10, 15),
    lives=st.just(1),
    match_length=st.one_of(st.just("elimination"), st.integers(1, 6)),
)
RULES = st.one_of(st.just(Rules()), ANY_RULES, REVIVAL_PRONE)
PLAYERS = st.integers(2, 7)
SEEDS = st.integers(0, 2**32 - 1)
POLICIES = st.sampled_from(["uniform", "lowest", "highest", "mixed"])
MAX_DEALS = 3000  # far more than any match needs; a guard against a match that never ends


def choose(legal: tuple[Card, ...], policy: str, rng: random.Random) -> Card:
    if policy == "mixed":
        policy = rng.choice(["uniform", "lowest", "highest"])
    if policy == "lowest":
        return legal[0]
    if policy == "highest":
        return legal[-1]
    return rng.choice(legal)


def walk(rules: Rules, players: int, seed: int, policy: str):
    """Play a whole match; yield ``(before, after, events)`` for every deal dealt and every card played."""
    rng = random.Random(seed)
    match = fresh_match(rules, players)
    deals = 0
    while not match.finished:
        if match.needs_deal:
            deals += 1
            assert deals <= MAX_DEALS, "the match does not end"
            after, events = deal_cards(match, rng)
        else:
            after, events = play(match, choose(match.legal_cards(match.turn), policy, rng))
        yield match, after, events
        match = after


def fresh_match(rules: Rules, players: int):
    return new_match([f"P{seat}" for seat in range(players)], rules)


# ---------------------------------------------------------------------------
# A reference model of docs/rules.md §2.4–2.8 and §3, independent of the engine


def is_forced(rules: Rules, lead: Card, trick_index: int) -> bool:
    if lead.rank != 14:
        return False
    return rules.ace_lead == "forces_lowest" or (
        rules.ace_lead == "forces_lowest_last_trick" and trick_index == rules.hand_size - 1)


def expected_legal(rules: Rules, hand: tuple[Card, ...], trick: list[tuple[int, Card]], trick_index: int) -> set:
    if not trick:
        return set(hand)
    low = min(card.rank for card in hand)
    lowest = {card for card in hand if card.rank == low}
    if is_forced(rules, trick[0][1], trick_index):
        return lowest
    top = max(card.rank for _, card in trick)
    high = {card for card in hand if card.rank >= top}
    if rules.follow == "must_match":
        return high or lowest
    return high | lowest


def expected_winner(rules: Rules, trick: list[tuple[int, Card]], trick_index: int) -> int:
    if is_forced(rules, trick[0][1], trick_index):
        return trick[0][0]
    top = max(card.rank for _, card in trick)
    return [seat for seat, card in trick if card.rank == top][-1]


def expected_penalty(rules: Rules, trick: list[tuple[int, Card]]) -> tuple[list[int], int]:
    top = max(card.rank for _, card in trick)
    if rules.penalty_to == "lowest":
        low = min(card.rank for _, card in trick)
        lowest = [seat for seat, card in trick if card.rank == low]
        return (lowest if rules.last_trick_tie == "all_tied" else lowest[-1:]), top
    if rules.last_trick_tie == "all_tied":
        return [seat for seat, card in trick if card.rank == top], top
    return [expected_winner(rules, trick, rules.hand_size - 1)], top


def expected_end_of_deal(rules, scores, lives, order, payers, points):
    """Totals and lives after the penalty (§2.7–2.8 and the settled cases of §3)."""
    before, scores, lives = list(scores), list(scores), list(lives)
    out = []
    for seat in payers:
        scores[seat] += points
    for seat in payers:
        if scores[seat] < rules.threshold:
            continue
        if lives[seat] > 1 and len(order) - 1 >= rules.second_life_min_opponents:
            lives[seat] -= 1
            scores[seat] = max(before[other] for other in order if other != seat)
        else:
            lives[seat] = 0
            out.append(seat)
    if not any(lives):
        low = min(scores[seat] for seat in out)
        for seat in out:
            if scores[seat] == low:
                lives[seat] = 1
    return scores, lives


def expected_dealer(before, players):
    seat = before.dealer
    for _ in range(players):
        seat = (seat + 1) % players
        if before.lives[seat]:
            return seat
    raise AssertionError("nobody is left to deal")


# ---------------------------------------------------------------------------
# Properties


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_any_sequence_of_legal_plays_ends_in_a_finished_match(rules, players, seed, policy):
    for _, match, _ in walk(rules, players, seed, policy):
        pass
    assert match.finished and match.winners
    active = match.active_seats()
    assert set(match.winners) <= set(active)
    if rules.is_fixed_length:
        assert match.deals_completed == rules.match_length or len(active) == 1
        assert match.deals_completed <= rules.match_length
        best = min(match.scores[seat] for seat in active)
        assert len(active) == 1 or match.winners == tuple(seat for seat in active if match.scores[seat] == best)
    else:
        assert match.winners == active and len(active) == 1


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_the_engine_agrees_with_the_reference_model_at_every_step(rules, players, seed, policy):
    for before, after, _ in walk(rules, players, seed, policy):
        if before.needs_deal:
            if before.dealer is not None:
                assert after.deal.dealer == expected_dealer(before, players)
            assert after.deal.order[0] == after.turn
            continue
        deal = before.deal
        seat = deal.turn
        trick = list(deal.current_trick())
        assert set(before.legal_cards(seat)) == expected_legal(rules, before.hand(seat), trick, deal.trick_number)
        trick.append((seat, after.deal.plays[-1]))
        if len(trick) == len(deal.order):
            winner = expected_winner(rules, trick, deal.trick_number)
            if after.deal.turn is not None:
                assert after.deal.leader == winner == after.turn
            else:
                assert after.deal.winner == winner
                payers, points = expected_penalty(rules, trick)
                scores, lives = expected_end_of_deal(rules, before.scores, before.lives, deal.order, payers, points)
                assert (list(after.scores), list(after.lives)) == (scores, lives)


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_every_card_of_a_deal_is_played_exactly_once(rules, players, seed, policy):
    for _, match, _ in walk(rules, players, seed, policy):
        pass
    for deal in match.history:
        dealt = [set(deal.dealt_hand(seat)) for seat in range(players)]
        assert sum(len(hand) for hand in dealt) == len(set().union(*dealt))  # no card dealt twice
        assert [len(hand) for hand in dealt] == [rules.hand_size if seat in deal.order else 0
                                                 for seat in range(players)]
        counts = Counter(deal.plays)
        assert set(counts.values()) == {1}
        assert set(counts) == set().union(*dealt)
        for seat in range(players):
            assert {card for s, card in zip(deal.play_seats(), deal.plays) if s == seat} == dealt[seat]


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_players_still_in_are_below_the_threshold_after_every_deal_unless_reinstated(rules, players, seed, policy):
    # A player still in after a deal is below the threshold, with one exception (docs/rules.md §3):
    # when a deal would have left nobody in, the lowest of those just eliminated stay in on
    # their total, which may be at or above the threshold, with exactly one life, until
    # their next penalty eliminates them (or reinstates them again).
    reinstated: set[int] = set()
    for before, after, events in walk(rules, players, seed, policy):
        for event in events:
            if isinstance(event, PlayerEliminated):
                reinstated.discard(event.seat)
            elif isinstance(event, PlayerReinstated):
                reinstated.add(event.seat)
        if before.deal is None or after.deals_completed == before.deals_completed:
            continue
        for seat in after.active_seats():
            if seat in reinstated:
                assert after.lives[seat] == 1
            else:
                assert after.scores[seat] < rules.threshold
        # Lives never grow: a reinstated player was in the deal that eliminated them.
        assert all(0 <= after.lives[seat] <= before.lives[seat] for seat in range(players))


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES, stop=st.floats(0, 1))
def test_export_then_replay_gives_the_same_state(rules, players, seed, policy, stop):
    steps = list(walk(rules, players, seed, policy))
    middle = steps[int(stop * (len(steps) - 1))][1]
    for match in (middle, steps[-1][1]):
        assert replay(to_record(match)) == match


def cards_in(value) -> set[Card]:
    if isinstance(value, Card):
        return {value}
    if isinstance(value, str):
        try:
            return {Card.parse(value)} if len(value) <= 3 else set()
        except Exception:
            return set()
    if dataclasses.is_dataclass(value):
        return set().union(set(), *(cards_in(getattr(value, field.name)) for field in dataclasses.fields(value)))
    if isinstance(value, (tuple, list)):
        return set().union(set(), *(cards_in(item) for item in value))
    return set()


@settings(PROPERTY, max_examples=60)
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_a_view_never_shows_a_card_hidden_from_its_viewer(rules, players, seed, policy):
    rng = random.Random(seed ^ 0x5EED)
    for _, match, _ in walk(rules, players, seed, policy):
        if match.deal is None or rng.random() > 0.15:
            continue
        deal = match.deal
        face_up = set(deal.plays)
        for viewer in (None, *range(players)):
            own = set(match.hand(viewer)) if viewer is not None else set()
            seen = cards_in(view_for(match, viewer))
            hidden = set().union(*(match.hand(seat) for seat in range(players) if seat != viewer))
            unplayed_dealt = set().union(*(deal.dealt_hand(seat) for seat in range(players))) - face_up - own
            assert not seen & hidden
            assert not seen & unplayed_dealt
            assert seen <= face_up | own


@PROPERTY
@given(rules=RULES, players=PLAYERS, seed=SEEDS, already=st.integers(0, 60), pick=SEEDS)
def test_play_out_deal_is_the_same_as_playing_card_by_card(rules, players, seed, already, pick):
    rng = random.Random(seed)
    match, _ = deal_cards(fresh_match(rules, players), rng)
    for _ in range(min(already, players * rules.hand_size - 1)):
        match, _ = play(match, rng.choice(match.legal_cards(match.turn)))
    fast, fast_events = play_out_deal(match, rng=random.Random(pick))
    slow, events = match, []
    for card in fast.deal.plays[len(match.deal.plays):]:
        slow, new = play(slow, card)
        events += [event for event in new if type(event).__name__ != "CardPlayed"]
    assert fast == slow
    assert fast_events == events



def expected_refusal(match, seat: int, card: Card) -> Refusal | None:
    """Why the reference model refuses ``seat`` playing ``card`` (docs/rules.md §2.3–2.4, §2.10, §3)."""
    deal = match.deal
    if match.finished:
        return Refusal("match_over")
    if deal is None or deal.turn is None:
        return Refusal("deal_not_started")
    if seat != deal.turn:
        return Refusal("not_your_turn", seat=deal.turn, player=match.players[deal.turn])
    hand = match.hand(seat)
    if card not in hand:
        return Refusal("card_not_in_hand", card=card)
    trick = list(deal.current_trick())
    if card in expected_legal(match.rules, hand, trick, deal.trick_number):
        return None
    forced = is_forced(match.rules, trick[0][1], deal.trick_number)
    highest = trick[0][1] if forced else dict(trick)[expected_winner(match.rules, trick, deal.trick_number)]
    low = min(held.rank for held in hand)
    return Refusal("lowest_after_ace" if forced else match.rules.follow, card=card, highest=highest,
                   lowest=tuple(held for held in hand if held.rank == low))


@settings(PROPERTY, max_examples=40)
@given(rules=RULES, players=PLAYERS, seed=SEEDS, policy=POLICIES)
def test_a_refusal_is_the_reference_models_and_the_one_a_refused_play_raises_with(rules, players, seed, policy):
    """``Match.refusal`` works a refusal out without raising: it is the reference model's, and exactly the
    one ``play`` raises with (``None`` exactly where the play goes through), for every seat and card."""
    rng = random.Random(seed ^ 0xCAFE)
    for _, match, _ in walk(rules, players, seed, policy):
        if rng.random() > 0.2:
            continue
        for seat in range(players):
            for card in rng.sample(DECK, 8) + list(match.hand(seat)):
                try:
                    play(match, card, seat)
                    raised = None
                except IllegalMove as error:
                    raised = error.refusal
                assert match.refusal(seat, card) == raised == expected_refusal(match, seat, card)
