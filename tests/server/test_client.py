"""The protocol client (app.client) against a real server process: the bot of docs/protocol.md plays a
match, a client comes back after the server is killed, and refusals arrive as ``Refused``."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.client import AsyncRooms, Client, Connected, Disconnected, Frame, Refused, Rooms, socket_url
from app.game.record import replay
from tests.server.conftest import Server

ROOT = Path(__file__).resolve().parents[2]


def bot_module() -> dict[str, Any]:
    """The names the example bot of docs/protocol.md ("Writing a bot") defines, its code run as written."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("## Writing a bot"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    names: dict[str, Any] = {"__name__": "bot"}
    exec(compile(code.group(1), "docs/protocol.md", "exec"), names)
    return names


def test_the_documented_bot_plays_a_match_to_its_end(make_server, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'bot.db'}")
    winners = asyncio.run(bot_module()["main"](server.base))
    assert winners and set(winners) <= {0, 1}
    with httpx.Client(base_url=server.base, timeout=10) as http:
        listed = http.get("/api/matches").json()["matches"]
        assert len(listed) == 1
        record = http.get(f"/api/matches/{listed[0]['id']}/record").json()
    assert list(replay(record).winners) == winners


def test_a_refused_http_request_raises_its_code(make_server, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'refused.db'}")
    with httpx.Client(base_url=server.base, timeout=10) as http:
        rooms = Rooms(http)
        with pytest.raises(Refused) as refused:
            rooms.join("ZZZZZ", "Ana")
        assert (refused.value.code, refused.value.status) == ("no_such_room", 404)
        ana = rooms.create("Ana")
        with pytest.raises(Refused) as refused:
            rooms.join(ana.code, "ana")
        assert (refused.value.code, refused.value.status) == ("name_taken", 409)


def test_a_client_waiting_for_a_state_hears_of_a_refusal(make_server, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'wait.db'}")

    async def scenario() -> str:
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            seats = await AsyncRooms(http).table(["Ana", "Ben"], preset="quick")
        ben = Client(socket_url(server.base, seats[1].code), seats[1].token)
        await ben.wait_for(lambda table: table.phase == "lobby")
        await ben.send({"type": "start"})  # only the host may
        try:
            await ben.wait_for(lambda table: table.phase == "playing", timeout=30)
        except Refused as refused:
            return refused.code
        finally:
            await ben.close()
        return "no refusal"

    assert asyncio.run(scenario()) == "not_host"


def test_a_client_reconnects_after_the_server_dies_and_resumes_where_the_room_is(
        make_server, tmp_path: Path) -> None:
    server: Server = make_server(f"sqlite:///{tmp_path / 'again.db'}")

    async def scenario() -> tuple[list[Any], int, int]:
        async with httpx.AsyncClient(base_url=server.base, timeout=10) as http:
            seats = await AsyncRooms(http).table(["Ana", "Ben"], preset="quick")
        ana = Client(socket_url(server.base, seats[0].code), seats[0].token)
        await ana.wait_for(lambda table: table.phase == "lobby")
        await ana.send({"type": "start"})
        playing = await ana.wait_for(lambda table: table.phase == "playing" and table.turn is not None)
        before = ana.version
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.start)
        events: list[Any] = []
        async for event in ana:
            events.append(event)
            if isinstance(event, Frame) and event.fresh:
                break
        again = ana.table
        assert again is not None and again.raw["match_id"] == playing.raw["match_id"]
        assert again.cards_played == playing.cards_played
        await ana.close()
        return events, before, ana.version

    events, before, after = asyncio.run(scenario())
    kinds = [type(event) for event in events]
    assert kinds[0] is Disconnected and events[0].code is not None and events[0].pause is not None
    assert Connected in kinds and kinds[-1] is Frame
    assert after > before  # a new epoch: its versions are above every version of the one before
