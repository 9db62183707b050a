"""Every bot plays only legal cards and sees only its own seat's view (docs/rules.md §2.4, §2.6)."""

import dataclasses
import random

import pytest

from app.bots import BotStrength, choose_card
from app.bots.arena import play_match
from app.game.cards import Card
from app.game.errors import GameError
from app.game.match import deal_hands, play
from app.game.views import MatchView, view_for
from tests.bots.helpers import VARIANTS, random_states, scenario

# The hard bot is searched shallowly here: the code path is the same.
WORLDS = 6


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_bot_plays_a_legal_card(name):
    rng = random.Random(name)
    for players in (2, 3, 4, 7):
        for match in random_states(VARIANTS[name], players, rng, 12):
            view = view_for(match, match.turn)
            for strength in BotStrength:
                card = choose_card(view, strength, rng, budget_s=5, max_worlds=WORLDS)
                assert card in view.you.legal
                assert match.is_legal(match.turn, card)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_whole_matches_between_bots_are_legal(name):
    # play_match plays every card through the engine, which raises on an illegal one.
    lineup = ["hard", "normal", "easy", "normal", "easy"]
    match = play_match(lineup, VARIANTS[name], random.Random(name), random.Random(1), budget_s=5, max_worlds=3)
    assert match.finished


def test_unknown_strength_and_wrong_input_are_refused():
    match = scenario(VARIANTS["quick"], ["2C 9D KS", "3C TD AS", "4C JD QS"])
    with pytest.raises(ValueError):
        choose_card(view_for(match, 1), "grandmaster", random.Random(1))
    with pytest.raises(TypeError):
        choose_card(match, "easy", random.Random(1))
    with pytest.raises(ValueError):
        choose_card(view_for(match, 2), "easy", random.Random(1))


def cards_in(value):
    """Every card anywhere inside a view (dataclasses, tuples, scalars)."""
    if isinstance(value, Card):
        yield value
    elif dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            yield from cards_in(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from cards_in(item)


def test_a_bot_is_given_no_card_of_another_hand():
    rng = random.Random(8)
    for name in ("agurk", "gurka", "inverse"):
        for match in random_states(VARIANTS[name], 4, rng, 30):
            seat = match.turn
            view = view_for(match, seat)
            assert isinstance(view, MatchView)
            hidden = {card for other in range(4) if other != seat for card in match.hand(other)}
            undealt = set(range(52)) - {card for dealt in match.deal.dealt for card in _cards(dealt)}
            seen = set(cards_in(view))
            assert not seen & hidden
            assert not seen & undealt
            assert set(match.hand(seat)) <= seen


def _cards(mask):
    return [card for card in range(52) if mask >> card & 1]


def swap_hidden(match, seat, rng):
    """The same deal with one unplayed card of ``seat`` swapped for an undealt one, if the plays allow."""
    deal = match.deal
    held = _cards(deal.hands[seat])
    free = [card for card in range(52) if not any(dealt >> card & 1 for dealt in deal.dealt)]
    for _ in range(50):
        out, into = rng.choice(held), rng.choice(free)
        hands = [list(map(Card, _cards(dealt))) for dealt in deal.dealt]
        hands[seat] = [card for card in hands[seat] if card != out] + [Card(into)]
        before = match._replace(deal=None, dealer=None)
        try:
            other, _ = deal_hands(before, hands, dealer=deal.dealer)
            for card in deal.plays:
                other, _ = play(other, card)
        except GameError:
            continue  # the swap would have made an earlier play illegal
        return other
    return None


@pytest.mark.parametrize("strength", list(BotStrength))
def test_other_hidden_cards_change_nothing_a_bot_receives_or_does(strength):
    rng = random.Random(strength)
    compared = 0
    for name in ("agurk", "must_match", "forces_lowest", "inverse"):
        for match in random_states(VARIANTS[name], 4, rng, 12):
            viewer = match.turn
            for other_seat in match.deal.order:
                if other_seat == viewer or not match.deal.hands[other_seat]:
                    continue
                other = swap_hidden(match, other_seat, rng)
                if other is None:
                    continue
                assert other.deal.hands[other_seat] != match.deal.hands[other_seat]
                view = view_for(match, viewer)
                assert view_for(other, viewer) == view
                seed = rng.random()
                assert (choose_card(view, strength, random.Random(seed), budget_s=30, max_worlds=WORLDS)
                        == choose_card(view_for(other, viewer), strength, random.Random(seed), budget_s=30,
                                       max_worlds=WORLDS))
                compared += 1
    assert compared >= 20
