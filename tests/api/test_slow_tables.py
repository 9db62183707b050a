"""Slow rooms over HTTP and the JSON socket: the pace when opening a room and in set_rules, quiet hours,
vacations and the host's chat webhook."""

from __future__ import annotations

import pytest

from tests.api.conftest import connect, open_room


def test_a_room_opened_with_a_pace_is_slow_and_says_so(client):
    code, tokens = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 24})
    state = client.get(f"/api/rooms/{code}").json()["state"]
    assert state["pace"] == {"turn_hours": 24} and state["deadline"] is None
    assert client.get(f"/api/rooms/{open_room(client, ['Cy'])[0]}").json()["state"]["pace"] is None


@pytest.mark.parametrize("pace", [{"turn_hours": 2}, {"turn_hours": "24"}, {"hours": 24}, 24, "slow"])
def test_another_pace_is_refused_and_opens_nothing(client, pace):
    answer = client.post("/api/rooms", json={"name": "Ana", "pace": pace})
    assert answer.status_code == 422 and answer.json()["error"] == "bad_request"


def test_a_pace_inside_the_rules_is_refused(client):
    answer = client.post("/api/rooms", json={"name": "Ana", "rules": {"pace": {"turn_hours": 4}}})
    assert answer.status_code == 422 and answer.json()["error"] == "invalid_rules"


def test_the_host_sets_the_pace_in_the_lobby_and_everyone_sees_it(client):
    code, tokens = open_room(client, ["Ana", "Ben"])
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ana.send({"type": "set_rules", "preset": "quick", "pace": {"turn_hours": 4}})
    assert ben.until(lambda state: state["pace"] == {"turn_hours": 4})["preset"] == "quick"
    ana.send({"type": "set_rules", "preset": "quick"})  # no pace: unchanged
    ana.send({"type": "set_rules", "pace": {"turn_hours": 5}})
    assert ana.next_error()["code"] == "bad_request"
    assert ana.latest()["pace"] == {"turn_hours": 4}
    ben.send({"type": "set_rules", "pace": None})
    assert ben.next_error()["code"] == "not_host"
    ana.send({"type": "set_rules", "pace": None})
    assert ben.until(lambda state: state["pace"] is None)["pace"] is None


def test_a_slow_match_shows_its_deadline(client):
    code, tokens = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 12})
    ana = connect(client, code, tokens[0])
    ana.send({"type": "start"})
    state = ana.until(lambda state: state["phase"] == "playing")
    assert state["deadline"].endswith("Z") and state["pace"] == {"turn_hours": 12}
    assert [seat["played_for"] for seat in state["seats"]] == [None, None]


def test_quiet_hours_and_vacations_are_checked(client):
    code, tokens = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 1})
    ben = connect(client, code, tokens[1])
    for bad in ({"from": "25:00", "to": "08:00", "time_zone": "UTC"},
                {"from": "23:00", "to": "08:00", "time_zone": "Nowhere/Atlantis"},
                {"from": "23:00", "to": "23:00", "time_zone": "UTC"}):
        ben.send({"type": "set_quiet_hours", **bad})
        assert ben.next_error()["code"] == "bad_request"
    ben.send({"type": "set_quiet_hours", "from": "23:00", "to": "08:00", "time_zone": "Europe/Copenhagen"})
    ben.send({"type": "set_vacation", "days": 15})
    assert ben.next_error()["code"] == "bad_request"
    ben.send({"type": "set_vacation", "days": 3})
    assert ben.until(lambda state: state["seats"][1]["played_for"] == "vacation")
    ben.send({"type": "set_vacation", "days": 0})
    assert ben.until(lambda state: state["seats"][1]["played_for"] is None)
    spectator = connect(client, code)
    spectator.send({"type": "set_vacation", "days": 2})
    assert spectator.next_error()["code"] == "not_seated"


def test_a_live_room_takes_no_slow_settings(client):
    code, tokens = open_room(client, ["Ana"])
    ana = connect(client, code, tokens[0])
    ana.send({"type": "set_quiet_hours", "from": "23:00", "to": "08:00", "time_zone": "UTC"})
    assert ana.next_error()["code"] == "bad_request"
    ana.send({"type": "set_webhook", "url": "https://discord.com/api/webhooks/1/abc"})
    assert ana.next_error()["code"] == "webhook_refused"


@pytest.mark.parametrize("url", ["http://discord.com/api/webhooks/1/abc", "https://evil.invalid/hook",
                                 "https://user:pw@discord.com/api/webhooks/1/abc", 7])
def test_a_webhook_not_allowed_is_refused(client, url):
    code, tokens = open_room(client, ["Ana"], pace={"turn_hours": 1})
    ana = connect(client, code, tokens[0])
    ana.send({"type": "set_webhook", "url": url})
    error = ana.next_error()
    assert error["code"] == "webhook_refused" and str(url) not in error["message"]
    assert "webhook" not in ana.latest()["you"]


def test_the_table_page_shows_the_pace_the_deadline_and_the_seats_played_for(client):
    code, tokens = open_room(client, ["Ana", "Ben"], pace={"turn_hours": 24})
    page = client.get(f"/r/{code}").text
    assert "Slow table: 24 hours a turn." in page
    ana, ben = connect(client, code, tokens[0]), connect(client, code, tokens[1])
    ben.send({"type": "set_vacation", "days": 2})
    ana.send({"type": "start"})
    state = ana.until(lambda state: state["phase"] == "playing" and state["deadline"] is not None)
    page = client.get(f"/r/{code}").text
    assert f'<time datetime="{state["deadline"]}">' in page
    assert "on vacation — bot playing" in page
