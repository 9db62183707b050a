"""Sampled hidden hands and the matches rebuilt from them (docs/rules.md §2.2–2.5)."""

import random

import pytest

from app.bots.knowledge import DealKnowledge, read_knowledge
from app.bots.worlds import _matched_hands, rebuild_match, sample_hands, with_hands
from app.game.cards import mask_of, parse_cards
from app.game.match import play_out_deal
from app.game.views import view_for
from tests.bots.helpers import VARIANTS, random_states


def mask(codes):
    return mask_of(parse_cards(codes.split()))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_rebuilt_match_for_the_real_hands_is_the_real_match(name):
    rng = random.Random(name)
    for players in (2, 3, 5, 7):
        for match in random_states(VARIANTS[name], players, rng, 25):
            view = view_for(match, match.turn)
            known = read_knowledge(view)
            rebuilt = rebuild_match(view, known, match.deal.hands)
            assert rebuilt.deal == match.deal
            assert rebuilt[:5] == match[:5]  # rules, players, scores, lives, dealer
            assert rebuilt[6:] == match[6:]  # deal, winners, finished
            assert len(rebuilt.history) == len(match.history)
            # A rebuild from a guessed world, given the real hands, is the real state too.
            guessed = rebuild_match(view, known, sample_hands(known, rng))
            assert with_hands(guessed, known, match.deal.hands).deal == match.deal


def test_a_rebuilt_match_plays_out_like_the_real_one():
    rng = random.Random(11)
    for match in random_states(VARIANTS["fixed_length"], 4, rng, 50):
        view = view_for(match, match.turn)
        rebuilt = rebuild_match(view, read_knowledge(view), match.deal.hands)
        seed = rng.random()
        real, _ = play_out_deal(match, rng=random.Random(seed))
        guess, _ = play_out_deal(rebuilt, rng=random.Random(seed))
        assert guess[2:4] == real[2:4]  # scores, lives
        assert (guess.winners, guess.finished) == (real.winners, real.finished)


@pytest.mark.parametrize("name", ["agurk", "gurka", "must_match", "inverse"])
def test_sampled_hands_fit_the_knowledge(name):
    rng = random.Random(name)
    for match in random_states(VARIANTS[name], 6, rng, 60):
        known = read_knowledge(view_for(match, match.turn))
        hands = sample_hands(known, rng)
        assert hands[known.viewer] == known.hand
        taken = 0
        for seat, hand in enumerate(hands):
            assert hand.bit_count() == known.cards_left[seat]
            assert not hand & taken
            taken |= hand
            if seat != known.viewer:
                assert hand & ~known.possible[seat] == 0
                assert hand & known.unseen == hand


def test_sampling_is_reproducible_from_the_generator():
    match = next(random_states(VARIANTS["agurk"], 4, random.Random(2), 1))
    known = read_knowledge(view_for(match, match.turn))
    assert sample_hands(known, random.Random(5)) == sample_hands(known, random.Random(5))


def tight_knowledge(**changes):
    # Seat 3 can only hold AC, seat 2 only an ace of clubs or diamonds,
    # seat 1 two of AC AD KC KD: one assignment fits.
    fields = {"viewer": 0, "order": (1, 2, 3, 0), "plays": (), "hand": mask("2C 2D"),
                  "played": (0, 0, 0, 0), "cards_left": (2, 2, 1, 1), "unseen": mask("AC AD KC KD 5S 6S"),
                  "possible": (mask("2C 2D"), mask("AC AD KC KD"), mask("AC AD"), mask("AC"))}
    fields.update(changes)
    return DealKnowledge(**fields)


def test_matching_finds_the_only_fitting_hands():
    expected = (mask("2C 2D"), mask("KC KD"), mask("AD"), mask("AC"))
    for seed in range(10):
        assert _matched_hands(tight_knowledge(), random.Random(seed), [mask("2C 2D"), 0, 0, 0]) == expected
        assert sample_hands(tight_knowledge(), random.Random(seed)) == expected


def test_knowledge_that_no_hands_fit_is_an_error():
    known = tight_knowledge(possible=(mask("2C 2D"), mask("AC AD KC KD"), mask("AC"), mask("AC")))
    with pytest.raises(ValueError):
        sample_hands(known, random.Random(1))
