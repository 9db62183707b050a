"""Push subscriptions over HTTP: by token for programs, by seat cookie for the table page, and the server's
key; refusals for an unknown token, a refused endpoint, another site, and push off."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import open_room
from tests.notify.fakepush import FakePushService

SUBJECT = "mailto:ops@cucumber.cards"


@pytest.fixture
def service() -> Iterator[FakePushService]:
    with FakePushService() as running:
        yield running


@pytest.fixture
def pushing(make_client: Callable[..., TestClient], service: FakePushService) -> TestClient:
    """An app with push on, allowed to push to ``service``."""
    return make_client(vapid_subject=SUBJECT, push_endpoints=service.allowlist_entry)


def kept(client: TestClient, code: str, token: str) -> list[str]:
    """The endpoints kept for ``token``'s seat at ``code``."""
    from app.common.identity import hash_token

    storage = client.app.state.storage  # type: ignore[attr-defined]
    return [record.endpoint for record in storage.push_subscriptions(room_code=code, token_hash=hash_token(token))]


def test_a_program_subscribes_renews_and_unsubscribes_by_token(pushing, service):
    code, [ana, ben] = open_room(pushing, ["Ana", "Ben"])
    browser = service.browser()
    body = {"token": ben, "subscription": browser.subscription}
    for _ in range(2):  # again: renewed
        answer = pushing.post(f"/api/rooms/{code}/push", json=body, headers={"Accept-Language": "sv"})
        assert answer.status_code == 201 and answer.content == b""
        assert answer.headers["cache-control"] == "private, no-store"
    assert kept(pushing, code, ben) == [browser.endpoint]
    assert kept(pushing, code, ana) == []
    storage = pushing.app.state.storage  # type: ignore[attr-defined]
    from app.common.identity import hash_token

    assert storage.push_subscriptions(room_code=code, token_hash=hash_token(ben))[0].language == "sv"
    for _ in range(2):  # again: unknown by then, still 204
        gone = pushing.request("DELETE", f"/api/rooms/{code}/push", json=body)
        assert gone.status_code == 204 and gone.content == b""
    assert kept(pushing, code, ben) == []


def test_an_unknown_token_is_refused(pushing, service):
    code, _ = open_room(pushing, ["Ana"])
    for method in ("POST", "DELETE"):
        answer = pushing.request(method, f"/api/rooms/{code}/push",
                                 json={"token": "not-a-token", "subscription": service.browser().subscription})
        assert answer.status_code == 403 and answer.json()["error"] == "unknown_token"
    other, [token] = open_room(pushing, ["Cy"])  # a token of another room
    answer = pushing.post(f"/api/rooms/{code}/push",
                          json={"token": token, "subscription": service.browser().subscription})
    assert answer.status_code == 403
    assert pushing.post("/api/rooms/ZZZZZ/push", json={"token": token, "subscription": {}}).json()["error"] == (
        "no_such_room")


def test_a_refused_endpoint_is_422_and_nothing_is_kept(pushing, service):
    code, [ana] = open_room(pushing, ["Ana"])
    browser = service.browser()
    for subscription in ({**browser.subscription, "endpoint": "https://push.evil.net/x"},
                         # On the defaults, not on this server's list:
                         {**browser.subscription, "endpoint": "https://fcm.googleapis.com/fcm/send/x"},
                         {**browser.subscription, "keys": {"p256dh": "x", "auth": "y"}},
                         {"endpoint": browser.endpoint}, "text", None):
        answer = pushing.post(f"/api/rooms/{code}/push", json={"token": ana, "subscription": subscription})
        assert answer.status_code == 422, subscription
        assert answer.json()["error"] == "push_endpoint_refused"
    assert kept(pushing, code, ana) == []
    assert service.deliveries == []


def test_the_page_subscribes_with_its_seat_cookie_in_its_language(pushing, service):
    code, [ana] = open_room(pushing, ["Ana"])
    browser = service.browser()
    pushing.cookies.set("cucumber_lang", "it")
    answer = pushing.post(f"/r/{code}/push", json=browser.subscription)  # the cookie open_room's answer set
    assert answer.status_code == 201
    assert kept(pushing, code, ana) == [browser.endpoint]
    from app.common.identity import hash_token

    storage = pushing.app.state.storage  # type: ignore[attr-defined]
    assert storage.push_subscriptions(room_code=code, token_hash=hash_token(ana))[0].language == "it"
    assert pushing.request("DELETE", f"/r/{code}/push", json=browser.subscription).status_code == 204
    assert kept(pushing, code, ana) == []


def test_the_page_is_refused_without_a_seat_or_from_another_site(pushing, service):
    code, [ana] = open_room(pushing, ["Ana"])
    browser = service.browser()
    cross = pushing.post(f"/r/{code}/push", json=browser.subscription, headers={"Origin": "https://evil.net"})
    assert cross.status_code == 403  # answered as every page form from another site is: a page saying so
    bad = pushing.post(f"/r/{code}/push", content=b"not json", headers={"Content-Type": "application/json"})
    assert bad.status_code == 422 and bad.json()["error"] == "bad_request"
    assert kept(pushing, code, ana) == []
    pushing.cookies.clear()
    answer = pushing.post(f"/r/{code}/push", json=browser.subscription)
    assert answer.status_code == 403 and answer.json()["error"] == "unknown_token"


def test_the_key_is_the_notifiers(pushing):
    answer = pushing.get("/api/push/key")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-cache"
    assert answer.json() == {"public_key": pushing.app.state.notifier.public_key}  # type: ignore[attr-defined]


def test_with_push_off_the_routes_say_so(make_client, service):
    client = make_client()
    code, [ana] = open_room(client, ["Ana"])
    assert client.get("/api/push/key").json()["error"] == "push_off"
    answer = client.post(f"/api/rooms/{code}/push", json={"token": ana, "subscription": service.browser().subscription})
    assert answer.status_code == 404 and answer.json()["error"] == "push_off"
    assert client.post(f"/r/{code}/push", json=service.browser().subscription).status_code == 404


def test_the_app_pushes_a_seats_turn_and_counts_it(pushing, service):
    from datetime import UTC, datetime, timedelta
    from functools import partial

    from app.common.identity import hash_token
    from app.notify import TurnNotice

    code, [_, ben] = open_room(pushing, ["Ana", "Ben"])
    browser = service.browser()
    assert pushing.post(f"/api/rooms/{code}/push", json={"token": ben, "subscription": browser.subscription},
                        headers={"Accept-Language": "es"}).status_code == 201
    notifier = pushing.app.state.notifier  # type: ignore[attr-defined]
    turn = TurnNotice(code, "Ben", datetime.now(UTC) + timedelta(hours=1), False)
    sent = pushing.portal.call(partial(notifier.push_turn, token_hash=hash_token(ben), notice=turn,  # type: ignore[attr-defined]
                                       still_due=lambda: True))
    assert sent == 1 and service.faults == []
    assert browser.pushes[0].payload["title"] == f"Tu turno en la Mesa {code}"
    text = pushing.app.state.metrics.exposition()[0].decode()  # type: ignore[attr-defined]
    assert 'cucumber_pushes_total{outcome="accepted"} 1.0' in text
