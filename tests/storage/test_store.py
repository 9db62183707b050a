"""Storage round trips on SQLite and PostgreSQL: rooms, matches, restart, listing, import, failures."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.pool import NullPool

from app.common.identity import hash_token
from app.game.match import Match
from app.game.record import NotARecord, check_record, replay, to_record
from app.game.rules import preset
from app.game.simulate import play_random_match
from app.game.standings import placings
from app.storage import (
    MAX_PAGE,
    FinishedMatch,
    RecordRejected,
    SeatRecord,
    Storage,
    StorageError,
)
from app.storage.models import DealRow, MatchRow, PlayRow, RoomRow
from tests.storage.writing import done

T0 = datetime(2026, 3, 14, 15, 9, 26, 535897, tzinfo=UTC)
T1 = datetime(2026, 3, 14, 16, 0, tzinfo=UTC)
RULES = preset("quick").to_dict()
SEATS = [
    SeatRecord(seat=0, name="Ana", token_hash=hash_token("ana-secret"), player="ana2345678"),
    SeatRecord(seat=1, name="Ben", token_hash=hash_token("ben-secret"), player="ben2345678"),
    SeatRecord(seat=3, name="Robo", bot="hard", player="r2b2345678"),
]


def played_match(seed: int = 7, players: int = 4, rules: str = "quick") -> Match:
    """A whole match between random-legal players."""
    return play_random_match(players, preset(rules), random.Random(seed))


def store_in_progress(storage: Storage, match_id: str, record: dict[str, Any], *, room_code: str | None = "ROOM1",
                      deals: int | None = None, plays: int | None = None) -> None:
    """Store a match deal by deal and play by play: the first ``deals`` deals, then ``plays`` plays of the next."""
    done(storage.start_match(match_id=match_id, room_code=room_code, rules=record["rules"], players=record["players"],
                             started_at=T0))
    chosen = record["deals"] if deals is None else record["deals"][:deals + (plays is not None)]
    for number, deal in enumerate(chosen):
        done(storage.record_deal(match_id=match_id, deal=number, dealer=deal["dealer"], hands=deal["hands"]))
        cards = deal["plays"] if deals is None or number < deals else deal["plays"][:plays]
        for index, card in enumerate(cards):
            done(storage.record_play(match_id=match_id, deal=number, play=index, card=card,
                                     played_at=T0 + timedelta(seconds=number * 60 + index)))


def save_room(storage: Storage, code: str = "ROOM1", **changes: Any) -> None:
    options: dict[str, Any] = {"code": code, "rules": RULES, "host_token_hash": SEATS[0].token_hash, "seats": SEATS,
                               "created_at": T0, "turn_seconds": 30}
    storage.save_room(**(options | changes))


def count(storage: Storage, model: Any) -> int:
    with storage.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(model)) or 0


# Rooms


def test_a_saved_room_is_restored_with_its_seats(storage):
    save_room(storage)
    [room] = storage.active_rooms()
    assert (room.code, room.rules, room.host_token_hash, room.turn_seconds, room.created_at) == (
        "ROOM1", RULES, SEATS[0].token_hash, 30, T0)
    assert room.seats == tuple(SEATS)
    assert room.match is None


def test_saving_a_room_again_replaces_its_seats(storage):
    save_room(storage)
    seats = [SeatRecord(seat=1, name="Cy", token_hash=hash_token("cy"), player="cy23456789"),
             SeatRecord(seat=0, name="Bot", bot="easy", player="b2t2345678")]
    save_room(storage, rules={"hand_size": 5}, host_token_hash=None, seats=seats, turn_seconds=None)
    [room] = storage.active_rooms()
    assert room.rules == {"hand_size": 5}
    assert room.host_token_hash is None
    assert room.turn_seconds is None
    assert room.seats == (seats[1], seats[0])


def test_a_seat_saved_stepped_away_is_restored_stepped_away(storage):
    ben = SeatRecord(seat=1, name="Ben", token_hash=hash_token("ben-secret"), player="ben2345678", stepped_away=True)
    save_room(storage, seats=[SEATS[0], ben, SEATS[2]])
    [room] = storage.active_rooms()
    assert [seat.stepped_away for seat in room.seats] == [False, True, False]
    save_room(storage)  # he came back
    [room] = storage.active_rooms()
    assert not any(seat.stepped_away for seat in room.seats)


def test_a_new_match_at_a_room_brings_everyone_back_to_their_seat(storage):
    seats = [SeatRecord(seat=0, name="Ana", token_hash=hash_token("ana-secret"), player="ana2345678",
                        stepped_away=True), *SEATS[1:]]
    save_room(storage, seats=seats)
    save_room(storage, "ROOM2", seats=seats)
    record = to_record(played_match())
    done(storage.start_match(match_id="new", room_code="ROOM1", rules=RULES, players=record["players"], started_at=T0))
    steps = {room.code: [seat.stepped_away for seat in room.seats] for room in storage.active_rooms()}
    assert steps == {"ROOM1": [False, False, False], "ROOM2": [True, False, False]}


def test_rooms_are_restored_oldest_first(storage):
    save_room(storage, "LATER", created_at=T0 + timedelta(minutes=1))
    save_room(storage, "FIRST")
    assert [room.code for room in storage.active_rooms()] == ["FIRST", "LATER"]


def test_a_closed_room_is_not_restored_until_saved_again(storage):
    save_room(storage)
    storage.close_room(code="ROOM1", closed_at=T0 + timedelta(hours=1))
    storage.close_room(code="ROOM1", closed_at=T0 + timedelta(hours=2))
    storage.close_room(code="NO-SUCH-ROOM", closed_at=T0)
    assert storage.active_rooms() == []
    save_room(storage)
    assert [room.code for room in storage.active_rooms()] == ["ROOM1"]


def test_closing_a_room_abandons_its_match_in_progress(storage):
    save_room(storage)
    record = to_record(played_match())
    store_in_progress(storage, "m1", record, deals=1, plays=2)
    storage.close_room(code="ROOM1", closed_at=T0 + timedelta(hours=1))
    save_room(storage)
    assert storage.active_rooms()[0].match is None
    assert storage.match_record("m1") is None
    assert storage.list_matches().total == 0


# Matches in progress and restart


def test_a_match_stored_play_by_play_is_rebuilt_exactly(storage):
    match = played_match(seed=3, players=4, rules="quick")
    record = to_record(match)
    save_room(storage)
    store_in_progress(storage, "m1", record)
    [room] = storage.active_rooms()
    assert room.match is not None
    assert (room.match.match_id, room.match.started_at) == ("m1", T0)
    assert room.match.record == record
    assert replay(room.match.record) == match


@pytest.mark.parametrize(("deals", "plays"), [(0, 0), (0, 1), (2, 5), (3, 0)])
def test_a_match_cut_short_is_rebuilt_up_to_its_last_play(storage, deals, plays):
    full = to_record(played_match(seed=11, players=3, rules="agurk"))
    assert len(full["deals"]) > deals
    expected = copy.deepcopy(full)
    cut = dict(full["deals"][deals], plays=full["deals"][deals]["plays"][:plays])
    expected["deals"] = [*full["deals"][:deals], cut]
    save_room(storage)
    store_in_progress(storage, "m1", full, deals=deals, plays=plays)
    [room] = storage.active_rooms()
    assert room.match is not None
    assert room.match.record == expected
    rebuilt = replay(room.match.record)
    assert to_record(rebuilt) == expected
    assert rebuilt.deal is not None and len(rebuilt.deal.plays) == plays


def test_a_match_between_deals_is_rebuilt_with_its_completed_deals(storage):
    full = to_record(played_match(seed=5))
    save_room(storage)
    store_in_progress(storage, "m1", full, deals=2)
    [room] = storage.active_rooms()
    assert room.match is not None
    assert room.match.record == dict(full, deals=full["deals"][:2])
    assert replay(room.match.record).needs_deal


def test_starting_a_match_abandons_the_rooms_previous_one(storage):
    save_room(storage)
    record = to_record(played_match())
    store_in_progress(storage, "old", record, deals=1, plays=3)
    done(storage.start_match(match_id="new", room_code="ROOM1", rules=RULES, players=record["players"],
                             started_at=T0 + timedelta(minutes=5)))
    [room] = storage.active_rooms()
    assert room.match is not None
    assert room.match.match_id == "new"
    assert room.match.record["deals"] == []


def test_plays_and_deals_must_come_in_order(storage):
    record = to_record(played_match())
    deal = record["deals"][0]
    done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=record["players"], started_at=T0))
    with pytest.raises(StorageError, match=r"deal 1 .* out of order"):
        done(storage.record_deal(match_id="m1", deal=1, dealer=deal["dealer"], hands=deal["hands"]))
    with pytest.raises(StorageError, match="no deal 0"):
        done(storage.record_play(match_id="m1", deal=0, play=0, card=deal["plays"][0], played_at=T0))
    done(storage.record_deal(match_id="m1", deal=0, dealer=deal["dealer"], hands=deal["hands"]))
    done(storage.record_play(match_id="m1", deal=0, play=0, card=deal["plays"][0], played_at=T0))
    with pytest.raises(StorageError, match=r"play 2 .* out of order"):
        done(storage.record_play(match_id="m1", deal=0, play=2, card=deal["plays"][2], played_at=T0))
    assert count(storage, PlayRow) == 1


def test_a_repeated_call_is_harmless_but_a_different_one_is_refused(storage):
    record = to_record(played_match())
    deal = record["deals"][0]
    for _ in range(2):
        done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=record["players"], started_at=T0))
        done(storage.record_deal(match_id="m1", deal=0, dealer=deal["dealer"], hands=deal["hands"]))
        done(storage.record_play(match_id="m1", deal=0, play=0, card=deal["plays"][0], played_at=T0))
    with pytest.raises(StorageError, match=r"deal 0 .* stored already"):
        done(storage.record_deal(match_id="m1", deal=0, dealer=deal["dealer"], hands=deal["hands"][::-1]))
    with pytest.raises(StorageError, match=r"play 0 .* stored already"):
        done(storage.record_play(match_id="m1", deal=0, play=0, card=deal["plays"][1], played_at=T0))
    with pytest.raises(StorageError, match="could not start match 'm1'"):
        done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=["X", "Y"], started_at=T0))
    assert (count(storage, MatchRow), count(storage, DealRow), count(storage, PlayRow)) == (1, 1, 1)


def test_a_deal_of_an_unknown_match_is_refused(storage):
    with pytest.raises(StorageError, match="no match 'ghost'"):
        done(storage.record_deal(match_id="ghost", deal=0, dealer=0, hands=[[], []]))


def test_a_match_at_an_unknown_room_is_refused(storage):
    with pytest.raises(StorageError, match="could not start match"):
        done(storage.start_match(match_id="m1", room_code="NOWHERE", rules=RULES, players=["A", "B"], started_at=T0))
    assert count(storage, MatchRow) == 0


# Finished and abandoned matches


def finish(storage: Storage, match_id: str, match: Match, ended_at: datetime, room_code: str | None = None) -> None:
    record = to_record(match)
    store_in_progress(storage, match_id, record, room_code=room_code, deals=1)
    done(storage.finish_match(match_id=match_id, record=record, placings=placings(match), winners=list(match.winners),
                              ended_at=ended_at))


def test_a_finished_match_gives_its_record_and_its_listing(storage):
    match = played_match(seed=21)
    save_room(storage)
    finish(storage, "m1", match, T0 + timedelta(minutes=30), room_code="ROOM1")
    assert storage.match_record("m1") == to_record(match)
    assert storage.finished_match("m1") == FinishedMatch(
        match_id="m1", room_code="ROOM1", started_at=T0, ended_at=T0 + timedelta(minutes=30),
        players=match.players, placings=tuple(placings(match)), winners=match.winners, preset="quick",
        rules=RULES, deals=match.deals_completed, imported=False)
    assert storage.active_rooms()[0].match is None


def test_a_match_whose_start_was_lost_can_still_finish(storage):
    match = played_match(seed=22)
    done(storage.finish_match(match_id="m1", record=to_record(match), placings=placings(match),
                              winners=list(match.winners), ended_at=T0))
    finished = storage.finished_match("m1")
    assert finished is not None
    assert (finished.players, finished.started_at, finished.preset) == (match.players, T0, "quick")


def test_an_abandoned_match_is_kept_but_not_listed(storage):
    record = to_record(played_match())
    save_room(storage)
    store_in_progress(storage, "m1", record, deals=1, plays=1)
    storage.abandon_match(match_id="m1", ended_at=T0 + timedelta(minutes=1))
    storage.abandon_match(match_id="ghost", ended_at=T0)
    assert storage.active_rooms()[0].match is None
    assert storage.match_record("m1") is None
    assert storage.finished_match("m1") is None
    assert storage.list_matches().total == 0
    with storage.engine.connect() as connection:
        assert connection.scalar(select(MatchRow.status).where(MatchRow.id == "m1")) == "abandoned"


def test_a_finished_match_is_not_abandoned_later(storage):
    match = played_match()
    finish(storage, "m1", match, T0)
    storage.abandon_match(match_id="m1", ended_at=T0 + timedelta(hours=1))
    assert storage.match_record("m1") == to_record(match)


def test_unknown_and_unfinished_matches_have_no_record(storage):
    done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=["A", "B"], started_at=T0))
    assert storage.match_record("m1") is None
    assert storage.match_record("nope") is None
    assert storage.finished_match("nope") is None


def test_finished_matches_are_listed_newest_first_a_page_at_a_time(storage):
    for number in range(5):
        finish(storage, f"m{number}", played_match(seed=number), T0 + timedelta(hours=number))
    done(storage.start_match(match_id="running", room_code=None, rules=RULES, players=["A", "B"], started_at=T0))
    pages = [storage.list_matches(page=page, per_page=2) for page in (1, 2, 3, 4)]
    assert [[item.match_id for item in page.items] for page in pages] == [["m4", "m3"], ["m2", "m1"], ["m0"], []]
    assert [(page.total, page.pages, page.page, page.per_page) for page in pages[:2]] == [(5, 3, 1, 2), (5, 3, 2, 2)]
    assert (pages[0].has_previous, pages[0].has_next, pages[2].has_next) == (False, True, False)
    assert storage.list_matches().items == pages[0].items + pages[1].items + pages[2].items


def test_matches_ending_together_are_listed_by_id(storage):
    for match_id in ("b", "c", "a"):
        finish(storage, match_id, played_match(), T0)
    assert [item.match_id for item in storage.list_matches().items] == ["c", "b", "a"]


def test_an_empty_list_has_one_page(storage):
    page = storage.list_matches()
    assert (page.items, page.total, page.pages) == ((), 0, 1)


@pytest.mark.parametrize(("page", "per_page"), [(0, 20), (1, 0), (1, 101), (True, 20), (MAX_PAGE + 1, 20),
                                               (10**20, 20)])
def test_pages_are_checked(page, per_page):
    with Storage("sqlite://") as storage, pytest.raises(ValueError):
        storage.list_matches(page=page, per_page=per_page)


# Import


def test_an_imported_record_is_stored_as_a_finished_match(storage):
    match = played_match(seed=9, players=3, rules="gurka")
    record = to_record(match)
    record["deals"][0]["plays"] = [card.lower() for card in record["deals"][0]["plays"]]
    record["rules"] = {key: value for key, value in record["rules"].items() if value != preset("agurk").to_dict()[key]}
    match_id, new = storage.import_record(record, imported_at=T0)
    assert len(match_id) == 12 and new
    assert storage.match_record(match_id) == to_record(match)
    finished = storage.finished_match(match_id)
    assert finished == FinishedMatch(
        match_id=match_id, room_code=None, started_at=T0, ended_at=T0, players=match.players,
        placings=tuple(placings(match)), winners=match.winners, preset="gurka", rules=preset("gurka").to_dict(),
        deals=match.deals_completed, imported=True)
    assert storage.list_matches().items == (finished,)


def faulty_record() -> dict[str, Any]:
    record = to_record(played_match(seed=4))
    plays = record["deals"][1]["plays"]
    plays[2], plays[3] = plays[3], plays[2]
    return record


@pytest.mark.parametrize("make", [
    faulty_record,
    lambda: {"format": "cucumber-match/1", "rules": {"hand_size": 2}, "players": ["A", "B"], "deals": []},
    lambda: dict(to_record(played_match(seed=6)), deals=to_record(played_match(seed=6))["deals"][:-1]),
    lambda: ["not", "a", "record"],
], ids=["faulty", "bad-rules", "unfinished", "not-an-object"])
def test_a_record_that_does_not_verify_is_refused_with_the_verify_result(storage, make):
    record = make()
    with pytest.raises(RecordRejected) as caught:
        storage.import_record(record, imported_at=T0)
    result = caught.value.result
    try:
        expected = check_record(record)
    except NotARecord as error:
        expected = {"ok": False, "deal": None, "play": None, "seat": None, "card": None,
                    "reason": f"not a cucumber-match/1 record: {error}"}
    assert result == expected
    assert result["ok"] is False or result["finished"] is False
    assert count(storage, MatchRow) == 0


def record_with_players(*names: str) -> dict[str, Any]:
    record = to_record(played_match(seed=8, players=len(names)))
    record["players"] = list(names)
    return record


@pytest.mark.parametrize(("names", "seat", "reason"), [
    (["Ana", "Ben", ""], 2, "enter a name"),
    (["Ana", "   ", "Cy"], 1, "enter a name"),
    (["Ana", "B" * 21, "Cy"], 1, "at most 20 characters"),
    (["Ana\x00", "Ben", "Cy"], 0, "only contain visible characters"),
    (["Ana", "Ben\u200b", "Cy"], 1, "only contain visible characters"),
    (["Ana", "Ben", "\u3164"], 2, "at least one visible"),
    (["Ana", " Ben", "Cy"], 1, "not written as the table writes it ('Ben'"),
    (["Ana", "Ben", "Cy  Dag"], 2, "not written as the table writes it ('Cy Dag'"),
    (["Ana", "Ben", "Cafe\u0301"], 2, "not written as the table writes it ('Café'"),
    (["Ana", "Ben", "ANA"], 2, "seats 0 and 2 have the same name ('Ana', 'ANA')"),
    (["Ａｎａ", "Ben", "Ana"], 2, "seats 0 and 2 have the same name"),
], ids=["empty", "spaces", "long", "nul", "invisible", "blank", "untrimmed", "two-spaces", "not-nfc", "case", "width"])
def test_an_imported_record_needs_names_the_table_accepts(storage, names, seat, reason):
    with pytest.raises(RecordRejected) as caught:
        storage.import_record(record_with_players(*names), imported_at=T0)
    result = caught.value.result
    assert reason in result["reason"] and reason in caught.value.message
    assert result == {"ok": False, "deal": None, "play": None, "seat": seat, "card": None, "reason": result["reason"]}
    assert count(storage, MatchRow) == 0


def test_an_imported_record_may_have_any_name_the_table_accepts(storage):
    names = ["Åse Øvrebø", "👨\u200d👩\u200d👧", "O'Brien-Smith", "B" * 20]
    match_id, _ = storage.import_record(record_with_players(*names), imported_at=T0)
    assert storage.match_record(match_id)["players"] == names


def test_a_record_stored_already_is_not_stored_again(storage):
    match = played_match(seed=9, players=3, rules="gurka")
    first, new = storage.import_record(to_record(match), imported_at=T0)
    assert new
    # The same match, written otherwise: keys in another order, cards in lower case, default rules left out.
    again = {key: to_record(match)[key] for key in reversed(list(to_record(match)))}
    again["deals"][0]["plays"] = [card.lower() for card in again["deals"][0]["plays"]]
    again["rules"] = {key: value for key, value in again["rules"].items()
                      if value != preset("agurk").to_dict()[key]}
    assert storage.import_record(again, imported_at=T1) == (first, False)
    assert count(storage, MatchRow) == 1
    other, new = storage.import_record(to_record(played_match(seed=10, players=3, rules="gurka")), imported_at=T1)
    assert new and other != first and count(storage, MatchRow) == 2


def test_the_record_of_a_match_played_here_is_not_imported_again(storage):
    match = played_match(seed=11, players=3)
    done(storage.finish_match(match_id="m1", record=to_record(match), placings=placings(match), winners=match.winners,
                         ended_at=T0))
    assert storage.import_record(storage.match_record("m1"), imported_at=T1) == ("m1", False)
    assert count(storage, MatchRow) == 1


# Time stamps


def test_times_come_back_in_utc(storage):
    oslo = datetime(2026, 6, 1, 12, 0, tzinfo=UTC).astimezone(ZoneInfo("Europe/Oslo"))
    save_room(storage, created_at=oslo)
    created = storage.active_rooms()[0].created_at
    assert created == oslo
    assert created.tzinfo is UTC
    assert created.hour == 12


def test_a_naive_time_is_refused(storage):
    with pytest.raises(StorageError, match="timezone-aware"):
        save_room(storage, created_at=datetime(2026, 1, 1, 12, 0))
    assert count(storage, RoomRow) == 0


# Values only one database could hold: refused alike, before the database sees them


@pytest.mark.parametrize(("changes", "reason"), [
    ({"code": "RO\x00M"}, "text holding NUL"),
    ({"code": "R" * 33}, "text of 33 characters cannot be stored where at most 32 fit"),
    ({"seats": [SeatRecord(seat=0, name="Ana\x00", player="ana2345678")]}, "text holding NUL"),
    ({"seats": [SeatRecord(seat=0, name="A" * 101, player="ana2345678")]}, "at most 100 fit"),
    ({"seats": [SeatRecord(seat=2**31, name="Ana", player="ana2345678")]},
     "only whole numbers from -2147483648 to 2147483647"),
    ({"turn_seconds": 2**63}, "only whole numbers"),
    ({"host_token_hash": "\ud800"}, "not valid Unicode"),
    ({"rules": {"threshold": float("nan")}}, "not JSON compliant"),
], ids=["code-nul", "code-long", "name-nul", "name-long", "seat-big", "clock-huge", "surrogate", "nan"])
def test_a_value_one_database_could_not_hold_is_refused_by_every_database(storage, changes, reason):
    with pytest.raises(StorageError, match=reason):
        save_room(storage, **changes)
    assert count(storage, RoomRow) == 0


def test_a_match_id_or_card_one_database_could_not_hold_is_refused_by_every_database(storage):
    with pytest.raises(StorageError, match="text holding NUL"):
        done(storage.start_match(match_id="m\x00", room_code=None, rules=RULES, players=["A", "B"], started_at=T0))
    done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=["A", "B"], started_at=T0))
    with pytest.raises(StorageError, match="text holding NUL"):
        done(storage.record_deal(match_id="m1\x00", deal=0, dealer=0, hands=[["2C"], ["3C"]]))
    done(storage.record_deal(match_id="m1", deal=0, dealer=0, hands=[["2C"], ["3C"]]))
    with pytest.raises(StorageError, match="at most 2 fit"):
        done(storage.record_play(match_id="m1", deal=0, play=0, card="10C", played_at=T0))
    with pytest.raises(StorageError, match="only whole numbers"):
        done(storage.record_play(match_id="m1", deal=2**40, play=0, card="2C", played_at=T0))


def test_json_holds_any_text_on_every_database(storage):
    rules = dict(RULES, note="a\x00b\ud800")
    done(storage.start_match(match_id="m1", room_code=None, rules=rules, players=["A\x00", "B"], started_at=T0))
    with storage.engine.connect() as connection:
        row = connection.execute(select(MatchRow.rules, MatchRow.players).where(MatchRow.id == "m1")).one()
    assert (row.rules["note"], row.players) == ("a\x00b\ud800", ["A\x00", "B"])


@pytest.mark.parametrize("key", ["a\x00", "x" * 33, "\ud800", ""])
def test_text_no_database_could_hold_names_nothing(storage, key):
    finish(storage, "m1", played_match(), T0)
    assert storage.match_record(key) is None
    assert storage.finished_match(key) is None
    storage.abandon_match(match_id=key, ended_at=T0)
    storage.close_room(code=key, closed_at=T0)
    assert storage.list_matches().total == 1


# Failures


def test_a_failed_write_leaves_everything_as_it_was(storage):
    save_room(storage)
    twice = [SeatRecord(seat=2, name="Cy", player="cy23456789"), SeatRecord(seat=2, name="Di", player="d223456789")]
    with pytest.raises(StorageError, match="could not save room 'ROOM1'"):
        save_room(storage, rules={"hand_size": 3}, seats=twice)
    [room] = storage.active_rooms()
    assert (room.rules, room.seats) == (RULES, tuple(SEATS))


def test_one_player_holds_one_seat_of_a_room(storage):
    save_room(storage)
    same = [SeatRecord(seat=0, name="Cy", player="cy23456789"), SeatRecord(seat=1, name="Di", player="cy23456789")]
    with pytest.raises(StorageError, match="could not save room 'ROOM1'"):
        save_room(storage, seats=same)
    save_room(storage, "ROOM2", seats=same[:1])  # another room may have a seat with the same id
    assert {room.code: room.seats for room in storage.active_rooms()} == {"ROOM1": tuple(SEATS), "ROOM2": (same[0],)}


def test_a_record_that_is_not_json_is_not_half_stored(storage):
    done(storage.start_match(match_id="m1", room_code=None, rules=RULES, players=["A", "B"], started_at=T0))
    with pytest.raises(StorageError, match="could not finish match 'm1'"):
        done(storage.finish_match(match_id="m1", record={"deals": [], "when": object()}, placings=[1, 2], winners=[0],
                             ended_at=T0))
    assert storage.match_record("m1") is None
    assert storage.list_matches().total == 0


def test_a_database_that_is_down_raises_storage_error():
    storage = Storage("postgresql+psycopg://postgres@127.0.0.1:1/test")
    try:
        with pytest.raises(StorageError, match="could not list the finished matches: OperationalError"):
            storage.list_matches()
        with pytest.raises(StorageError, match="could not save room"):
            save_room(storage)
        with pytest.raises(StorageError, match="could not upgrade"):
            storage.upgrade()
    finally:
        storage.close()


def test_a_database_without_tables_raises_storage_error(tmp_path):
    with Storage(f"sqlite:///{tmp_path / 'empty.db'}") as storage, pytest.raises(StorageError, match="no such table"):
        storage.active_rooms()


def test_a_closed_storage_raises_storage_error(tmp_path):
    storage = Storage(f"sqlite:///{tmp_path / 'x.db'}")
    storage.close()
    with pytest.raises(StorageError, match="closed"):
        storage.list_matches()


@pytest.mark.parametrize("url", ["nosuchdb://x/y", "not a url"])
def test_an_unusable_url_raises_storage_error(url):
    with pytest.raises(StorageError, match="cannot use the database"):
        Storage(url)


@pytest.mark.parametrize("backend", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_calls_work_again_after_the_server_dropped_the_connections(storage):
    save_room(storage)
    with storage.engine.connect() as connection:
        own = connection.scalar(text("SELECT pg_backend_pid()"))
    admin = create_engine(storage.engine.url, poolclass=NullPool)
    try:
        with admin.begin() as connection:
            assert connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": own})
    finally:
        admin.dispose()
    assert [room.code for room in storage.active_rooms()] == ["ROOM1"]


def test_a_room_without_a_match_is_deleted_with_its_seats(storage):
    save_room(storage, "ROOM1")
    save_room(storage, "ROOM2")
    assert storage.delete_unused_room(code="ROOM1", closed_at=T0) is True
    assert [snapshot.code for snapshot in storage.active_rooms()] == ["ROOM2"]
    with storage.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(RoomRow).where(RoomRow.code == "ROOM1")) == 0
        assert connection.scalar(text("SELECT count(*) FROM seats WHERE room_code = 'ROOM1'")) == 0
    assert storage.delete_unused_room(code="ROOM1", closed_at=T0) is False  # unknown: nothing happens


def test_a_room_that_had_a_match_is_closed_not_deleted(storage):
    save_room(storage, "ROOM1")
    store_in_progress(storage, "m1", to_record(played_match()), deals=1)
    assert storage.delete_unused_room(code="ROOM1", closed_at=T0) is False
    assert storage.active_rooms() == []
    with storage.engine.connect() as connection:
        row = connection.execute(select(MatchRow.room_code, MatchRow.status).where(MatchRow.id == "m1")).one()
    assert tuple(row) == ("ROOM1", "abandoned")
