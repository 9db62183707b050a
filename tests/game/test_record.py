"""Match records (docs/rules.md §4): export, replay, and the first fault of a faulty record."""

import copy
import json
import random

import pytest

from app.game import NotARecord, RecordFault, Rules, check_record, deal_cards, play, replay, to_record
from app.game.record import FORMAT, outcome
from app.game.simulate import play_random_match
from tests.game.helpers import play_codes, start, table

EXAMPLE_HANDS = ("4S 5S 6C 7S 9C QC AH", "2S 5C 6D 8S KC AC AD", "2C 4D 5D 7C 7H 9H JC")
EXAMPLE_PLAYS = "6C 6D 2C  AD 4D 4S  AC 5D AH  7S KC 7H  8S 7C 5S  5C JC QC  9C 2S 9H"


def finished_match(players=3, seed=1, rules=None):
    return play_random_match(players, rules or Rules(), random.Random(seed))


def record_of(match):
    """The record, through JSON text as a file would hold it."""
    return json.loads(json.dumps(to_record(match)))


def fault(record, **expected):
    """Check the record fails with the given fields, both from replay and from check_record."""
    with pytest.raises(RecordFault) as caught:
        replay(record)
    result = check_record(record)
    assert result == caught.value.to_dict()
    assert result["ok"] is False
    for key, value in expected.items():
        assert result[key] == value, (key, result)
    return result


# ---------------------------------------------------------------------------
# Export


def test_a_record_lists_rules_players_and_deals_as_dealt_and_played():
    match, _ = play_codes(start(*EXAMPLE_HANDS, dealer=2), EXAMPLE_PLAYS)
    record = to_record(match)
    assert record["format"] == FORMAT == "cucumber-match/1"
    assert record["rules"] == Rules().to_dict()
    assert record["players"] == ["Ana", "Ben", "Cy"]
    assert record["deals"] == [{
        "dealer": 2,
        "hands": [hand.split() for hand in EXAMPLE_HANDS],
        "plays": EXAMPLE_PLAYS.split(),
    }]
    assert json.loads(json.dumps(record)) == record


def test_a_match_before_its_first_deal_has_no_deals():
    assert to_record(table(4))["deals"] == []


def test_a_deal_in_progress_is_the_last_deal_of_the_record():
    match, _ = play_codes(start(*EXAMPLE_HANDS, dealer=2), "6C 6D 2C AD")
    assert to_record(match)["deals"][0]["plays"] == ["6C", "6D", "2C", "AD"]


def test_an_eliminated_seat_has_an_empty_hand_in_later_deals():
    match = finished_match(4, seed=3)
    record = to_record(match)
    out = [seat for seat in range(4) if match.lives[seat] == 0]
    last = record["deals"][-1]
    assert all(last["hands"][seat] == [] for seat in out if match.history[-1].dealt[seat] == 0)
    assert any(deal["hands"][seat] == [] for deal in record["deals"] for seat in out)


# ---------------------------------------------------------------------------
# Replay


@pytest.mark.parametrize("players", range(2, 8))
def test_replaying_the_record_of_a_finished_match_gives_the_same_match(players):
    match = finished_match(players, seed=players)
    assert match.finished
    assert replay(record_of(match)) == match


@pytest.mark.parametrize("rules", [
    Rules(hand_size=3, follow="must_match", ace_lead="forces_lowest"),
    Rules(last_trick_tie="all_tied", lives=1, threshold=15),
    Rules(penalty_to="lowest", match_length=4, ace_lead="forces_lowest_last_trick"),
    Rules(lives=3, second_life_min_opponents=3, threshold=30),
])
def test_replay_round_trips_every_kind_of_rules(rules):
    match = finished_match(5, seed=7, rules=rules)
    again = replay(record_of(match))
    assert again == match
    assert again.rules == rules


def test_replaying_a_match_in_progress_gives_the_same_match():
    rng = random.Random(5)
    match, _ = deal_cards(table(4), rng)
    for _ in range(12):
        assert replay(record_of(match)) == match
        match, _ = play(match, rng.choice(match.legal_cards(match.turn)))
    assert replay(record_of(table(4))) == table(4)


def test_omitted_rules_take_their_defaults():
    record = record_of(finished_match())
    del record["rules"]
    assert replay(record).rules == Rules()
    record["rules"] = {"threshold": 21}
    assert replay(record).rules == Rules()


def test_a_valid_record_gives_its_outcome():
    match = finished_match(4, seed=2)
    result = check_record(record_of(match))
    assert result == {
        "ok": True, "finished": True, "scores": list(match.scores), "lives": list(match.lives),
        "eliminated": [lives == 0 for lives in match.lives], "winners": list(match.winners),
        "deals": match.deals_completed,
    }
    assert result == outcome(match)


def test_a_record_in_progress_gives_an_unfinished_outcome():
    match, _ = play_codes(start(*EXAMPLE_HANDS, dealer=2), "6C 6D 2C AD")
    result = check_record(to_record(match))
    assert result["ok"] and not result["finished"] and result["deals"] == 0 and result["winners"] == []


# ---------------------------------------------------------------------------
# Faults, reported at the first one with its deal and play index


@pytest.fixture
def record():
    """A finished 3-player match under the house rules, as a record."""
    return record_of(finished_match(3, seed=1))


def test_the_wrong_dealer(record):
    first = record["deals"][1]["dealer"]
    record["deals"][1]["dealer"] = (first + 1) % 3
    fault(record, deal=1, play=None, seat=(first + 1) % 3, card=None, reason=f"wrong dealer, expected seat {first}")


@pytest.mark.parametrize("dealer", [3, -1, "0", None, True, 1.0])
def test_a_first_dealer_that_is_not_a_seat(record, dealer):
    record["deals"][0]["dealer"] = dealer
    fault(record, deal=0, play=None)


def test_a_hand_of_the_wrong_size(record):
    record["deals"][2]["hands"][1].pop()
    fault(record, deal=2, play=None, seat=1, reason="hand has 6 cards, expected 7")


def test_a_card_dealt_twice(record):
    deal = record["deals"][0]
    deal["hands"][2][3] = deal["hands"][0][0]
    fault(record, deal=0, play=None, seat=2, card=deal["hands"][0][0], reason="card dealt twice")


def test_a_hand_with_a_bad_code(record):
    record["deals"][1]["hands"][0][0] = "1X"
    fault(record, deal=1, play=None, seat=0, card="1X")


@pytest.mark.parametrize("written", [" {}", "{}\n", "\u00a0{}", "{}\u2003", "long s"])
def test_a_hand_with_space_around_a_code_or_a_letter_that_only_upper_cases_to_a_suit(record, written):
    hand = record["deals"][0]["hands"][1]
    index = next(index for index, code in enumerate(hand) if code.endswith("S"))
    # "ſ" (long s) upper-cases to "S": 5ſ would be read as 5S.
    hand[index] = hand[index][0] + "\u017f" if written == "long s" else written.format(hand[index])
    fault(record, deal=0, play=None, seat=1, card=hand[index][:8])


@pytest.mark.parametrize("entry", [None, True, 1.0, ["9C"], {"r": "9"}])
def test_a_hand_entry_that_is_not_text_names_no_card(record, entry):
    record["deals"][1]["hands"][0][0] = entry
    fault(record, deal=1, play=None, seat=0, card=None)


def test_a_huge_value_is_not_written_back_in_full(record):
    record["deals"][0]["dealer"] = [0] * 300_000
    assert len(fault(record, deal=0, play=None)["reason"]) < 100
    with pytest.raises(NotARecord) as refused:
        replay({**record, "format": "x" * 300_000})
    assert len(str(refused.value)) < 150
    with pytest.raises(NotARecord) as refused:
        replay({**record, "rules": {"y" * 300_000: 1}})
    assert len(str(refused.value)) < 150


@pytest.mark.parametrize("hands", ["9C", None, [["2C"]], {"0": []}])
def test_hands_that_are_not_a_list_per_seat(record, hands):
    record["deals"][0]["hands"] = hands
    fault(record, deal=0, play=None)


def test_a_card_not_in_the_players_hand(record):
    deal = record["deals"][0]
    match = replay({**record, "deals": [{**deal, "plays": deal["plays"][:4]}]})
    seat = match.turn
    other = next(code for code in deal["hands"][(seat + 1) % 3] if code not in deal["plays"][:4])
    deal["plays"][4] = other
    result = fault(record, deal=0, play=4, seat=seat, card=other)
    assert result["reason"] == f"card not in hand: {other}"


def test_an_illegal_play(record):
    # Find the first play where the player held a card they could not play, and play it.
    deal = record["deals"][0]
    match = replay({**record, "deals": [{**deal, "plays": []}]})
    for index, code in enumerate(deal["plays"]):
        illegal = [card for card in match.hand(match.turn) if card not in match.legal_cards(match.turn)]
        if illegal:
            seat = match.turn
            deal["plays"][index] = illegal[0].code
            result = fault(record, deal=0, play=index, seat=seat, card=illegal[0].code)
            assert result["reason"] == f"illegal play: {match.refusal(seat, illegal[0])}"
            return
        match, _ = play(match, code)
    pytest.fail("no illegal play was possible in this deal")


def test_a_bad_code_among_the_plays(record):
    record["deals"][1]["plays"][5] = "XYZXYZXYZXYZ"
    result = fault(record, deal=1, play=5, card="XYZXYZXY")
    assert result["seat"] is not None


@pytest.mark.parametrize("code", [5, None, ["9C"]])
def test_a_play_that_is_not_text(record, code):
    record["deals"][0]["plays"][0] = code
    fault(record, deal=0, play=0, card=None)


def test_plays_after_the_deal_is_complete(record):
    deal = record["deals"][0]
    assert len(deal["plays"]) == 21
    deal["plays"].append(deal["plays"][0])
    fault(record, deal=0, play=21, reason="more plays than cards dealt")


def test_an_unfinished_deal_that_is_not_the_last(record):
    record["deals"][1]["plays"] = record["deals"][1]["plays"][:10]
    result = fault(record, deal=1, play=10)
    assert "only the last deal may be unfinished" in result["reason"]
    del record["deals"][2:]
    assert check_record(record)["ok"]


def test_a_deal_after_the_match_is_over(record):
    record["deals"].append(copy.deepcopy(record["deals"][-1]))
    fault(record, deal=len(record["deals"]) - 1, play=None, reason="the match was already over before this deal")


@pytest.mark.parametrize("deal", [None, [], "deal", 3])
def test_a_deal_that_is_not_an_object(record, deal):
    record["deals"][1] = deal
    fault(record, deal=1, play=None)


@pytest.mark.parametrize("plays", [None, "9C 2S", {"0": "9C"}])
def test_plays_that_are_not_a_list(record, plays):
    record["deals"][0]["plays"] = plays
    fault(record, deal=0, play=None)


def test_the_dealer_is_checked_before_the_hands_and_the_hands_before_the_plays(record):
    deal = record["deals"][1]
    deal["plays"][0] = "XX"
    deal["hands"][0].pop()
    fault(record, deal=1, play=None, seat=0)
    deal["dealer"] = (deal["dealer"] + 1) % 3
    result = fault(record, deal=1, play=None)
    assert result["reason"].startswith("wrong dealer")


def test_the_first_fault_is_reported():
    match = finished_match(3, seed=4)
    record = record_of(match)
    record["deals"][3]["plays"][2] = "XX"
    record["deals"][1]["plays"][7] = "YY"
    fault(record, deal=1, play=7)


# ---------------------------------------------------------------------------
# Not a record at all


@pytest.mark.parametrize("data", [None, [], "record", 3, [{"format": FORMAT}]])
def test_data_that_is_not_an_object(data):
    with pytest.raises(NotARecord) as caught:
        check_record(data)
    assert caught.value.code == "not_a_record"


@pytest.mark.parametrize(("change", "value"), [
    ("format", "cucumber-match/2"), ("format", None), ("rules", {"threshold": 5}), ("rules", {"jokers": 1}),
    ("rules", "agurk"), ("rules", [1]), ("rules", None), ("players", "Ana Ben"), ("players", ["Ana"]),
    ("players", ["Ana", 3]),
    ("players", [f"P{seat}" for seat in range(8)]), ("players", None), ("deals", None), ("deals", {"0": {}}),
])
def test_a_record_with_a_bad_format_rules_players_or_deals(record, change, value):
    record[change] = value
    with pytest.raises(NotARecord):
        replay(record)
    with pytest.raises(NotARecord):
        check_record(record)


def test_a_record_without_rules_plays_by_the_defaults():
    data = record_of(finished_match())
    del data["rules"]
    assert replay(data).rules == Rules()


def test_a_missing_format_or_players():
    for key in ("format", "players", "deals"):
        data = record_of(finished_match())
        del data[key]
        with pytest.raises(NotARecord):
            replay(data)


def test_a_fault_as_a_dict():
    error = RecordFault("illegal play: x", deal=2, play=5, seat=1, card="9C")
    assert error.to_dict() == {"ok": False, "deal": 2, "play": 5, "seat": 1, "card": "9C", "reason": "illegal play: x"}
    assert error.code == "record_fault"


def test_the_players_names_are_labels():
    # docs/rules.md §4: checking a record takes any strings as names, the same twice or an empty one too.
    match = play_random_match(3, Rules(hand_size=3), random.Random(11))
    record = to_record(match)
    record["players"] = ["", "Ana", "Ana"]
    assert check_record(record) == check_record(to_record(match))
    assert replay(record).players == ("", "Ana", "Ana")
