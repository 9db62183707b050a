"""The seat cookie: sent only to its room's pages, renewed while the seat lasts, removed after, old ones moved."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.api.seat_cookies import MOVED_AT_ONCE, SEAT_COOKIE, SEAT_COOKIE_MAX_AGE
from app.pages.assets import ASSETS
from tests.api.conftest import connect, open_room

HOST = "testserver.local"  # where the test client's cookie jar keeps the server's cookies
SEATED = """hx-vals='{"type": "leave"}'"""  # the page of a seated player has the button that gives the seat up


def set_cookies(answer) -> list[str]:
    return answer.headers.get_list("set-cookie")


def seat_cookie_headers(answer, code: str) -> tuple[str, str]:
    """The answer's two seat cookies of room ``code``: the one it sets, the old one it removes."""
    mine = [cookie for cookie in set_cookies(answer) if cookie.startswith(f"cucumber_{code}=")]
    assert len(mine) == 2, mine
    return mine[0], mine[1]


def assert_seats(answer, code: str, token: str | None = None) -> None:
    given, removed = seat_cookie_headers(answer, code)
    if token is not None:
        assert given.startswith(f"cucumber_{code}={token};")
    assert f"Path=/r/{code};" in given and "HttpOnly" in given and "SameSite=lax" in given
    assert f"Max-Age={SEAT_COOKIE_MAX_AGE};" in given
    assert "Max-Age=0;" in removed and removed.endswith("Path=/; SameSite=lax")


def test_every_way_to_a_seat_sets_the_cookie_for_the_rooms_path(client: TestClient) -> None:
    opened = client.post("/rooms", data={"name": "Ana", "preset": "agurk"}, follow_redirects=False)
    code = opened.headers["location"].rsplit("/", 1)[1]
    assert_seats(opened, code)
    client.cookies.clear()
    assert_seats(client.post(f"/r/{code}/join", data={"name": "Ben"}, follow_redirects=False), code)
    made = client.post("/api/rooms", json={"name": "Cy"})
    assert_seats(made, made.json()["code"], made.json()["token"])
    joined = client.post(f"/api/rooms/{code}/players", json={"name": "Dag"})
    assert_seats(joined, code, joined.json()["token"])
    dag = connect(client, code, joined.json()["token"])
    dag.send({"type": "device_link"})
    secret = next(message for message in iter(dag.receive, None) if message["type"] == "link")["secret"]
    client.cookies.clear()
    taken = client.post(f"/api/rooms/{code}/take", json={"secret": secret})
    assert_seats(taken, code, taken.json()["token"])


def test_the_cookie_seats_the_page_its_forms_and_its_socket_and_goes_nowhere_else(client: TestClient) -> None:
    code, _ = open_room(client, ["Ana"])
    client.cookies.clear()
    client.post(f"/r/{code}/join", data={"name": "Ben"})
    assert [(cookie.name, cookie.path) for cookie in client.cookies.jar if SEAT_COOKIE.fullmatch(cookie.name)] == [
        (f"cucumber_{code}", f"/r/{code}")]
    assert SEATED in client.get(f"/r/{code}").text
    # Seated already: the form takes the browser back to its seat rather than giving it a second one.
    again = client.post(f"/r/{code}/join", data={"name": "Ben two"}, follow_redirects=False)
    assert again.status_code == 303 and "set-cookie" not in again.headers
    with client.websocket_connect(f"/r/{code}/ws") as socket:
        assert SEATED in socket.receive_text()
    for path in ["/", "/rules", "/matches", f"/api/rooms/{code}", "/healthz", f"/static/{ASSETS.hashed('app.js')}"]:
        assert f"cucumber_{code}" not in client.get(path).request.headers.get("cookie", ""), path


def test_a_visit_renews_the_cookie_while_the_seat_lasts_and_removes_it_once_the_seat_has_ended(
        client: TestClient) -> None:
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", tokens[1], domain=HOST, path=f"/r/{code}")
    assert_seats(client.get(f"/r/{code}"), code, tokens[1])
    host = connect(client, code, tokens[0])
    host.send({"type": "remove", "seat": 1})
    host.until(lambda state: len(state["seats"]) == 1)
    gone = client.get(f"/r/{code}")
    assert SEATED not in gone.text
    ended = [cookie for cookie in set_cookies(gone) if cookie.startswith(f"cucumber_{code}=")]
    assert {cookie.split("Path=")[1].split(";")[0] for cookie in ended} == {f"/r/{code}", "/"}
    assert all("Max-Age=0;" in cookie for cookie in ended)
    assert all(cookie.name != f"cucumber_{code}" for cookie in client.cookies.jar)


def test_a_room_that_has_ended_removes_its_cookie(client: TestClient) -> None:
    client.cookies.set("cucumber_ZZZZZ", "an old token", domain=HOST, path="/r/ZZZZZ")
    missing = client.get("/r/ZZZZZ")
    assert missing.status_code == 404
    assert all("Max-Age=0;" in cookie for cookie in set_cookies(missing)) and len(set_cookies(missing)) == 2
    assert not list(client.cookies.jar)
    assert "set-cookie" not in client.get("/r/ZZZZZ").headers  # nothing sent, nothing to remove


def test_the_cookie_of_the_rooms_own_path_counts_when_a_browser_sends_two(client: TestClient) -> None:
    code, tokens = open_room(client, ["Ana", "Ben"])
    client.cookies.clear()
    page = client.get(f"/r/{code}", headers={"cookie": f"cucumber_{code}={tokens[1]}; cucumber_{code}=stale"})
    assert SEATED in page.text
    assert_seats(page, code, tokens[1])


def test_cookies_of_an_older_server_for_every_path_still_seat_their_players_and_are_moved(
        client: TestClient) -> None:
    rooms = [open_room(client, [f"Ana {number}"]) for number in range(2 * MOVED_AT_ONCE + 3)]
    client.cookies.clear()
    for code, tokens in rooms:
        client.cookies.set(f"cucumber_{code}", tokens[0], domain=HOST, path="/")  # as servers before set them
    # The room's own page seats its player, and moves its cookie and MOVED_AT_ONCE others.
    first, first_tokens = rooms[0]
    page = client.get(f"/r/{first}")
    assert SEATED in page.text
    assert_seats(page, first, first_tokens[0])
    assert len(set_cookies(page)) == 2 * (1 + MOVED_AT_ONCE) + 1  # and the spectator id's cookie
    # Neither a refusal, a form's post nor a static file moves any.
    assert "set-cookie" not in client.get("/nothing").headers
    assert "set-cookie" not in client.get(f"/static/{ASSETS.hashed('app.css')}").headers
    assert "cucumber_" not in "".join(set_cookies(client.post("/language", data={"lang": "xx", "next": "/"},
                                                              follow_redirects=False)))
    # Any page moves the next ones, each to its room's path with its token.
    answers = [client.get("/rules"), client.get("/")]
    moved = [cookie for answer in answers for cookie in set_cookies(answer)]
    assert len(moved) == 2 * (len(rooms) - 1 - MOVED_AT_ONCE)
    assert {cookie.path for cookie in client.cookies.jar if SEAT_COOKIE.fullmatch(cookie.name)} == {
        f"/r/{code}" for code, _ in rooms}
    sent = client.get("/").request.headers["cookie"]
    assert not any(SEAT_COOKIE.fullmatch(pair.split("=")[0].strip()) for pair in sent.split(";")), sent
    for code, tokens in rooms:
        assert SEATED in client.get(f"/r/{code}").text, code
        assert client.cookies.get(f"cucumber_{code}", path=f"/r/{code}") == tokens[0]


def test_a_seat_taken_again_keeps_the_new_cookie_not_the_old_one(client: TestClient) -> None:
    code, tokens = open_room(client, ["Ana", "Ben"])
    ben = connect(client, code, tokens[1])
    ben.send({"type": "device_link"})
    secret = next(message for message in iter(ben.receive, None) if message["type"] == "link")["secret"]
    client.cookies.clear()
    client.cookies.set(f"cucumber_{code}", "an old token", domain=HOST, path="/")
    taken = client.post(f"/api/rooms/{code}/take", json={"secret": secret})
    assert_seats(taken, code, taken.json()["token"])
    assert client.cookies.get(f"cucumber_{code}", path=f"/r/{code}") == taken.json()["token"]
