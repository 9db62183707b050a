"""The yardstick of ``cucumber bench load``: a bare FastAPI fan-out server on uvicorn's defaults.

Rooms live in memory; no rules, no database. Every ``play`` bumps the room's
version and sends a state of about 2 KB to every socket of the room, one by one.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request, Response, WebSocket, WebSocketDisconnect

HAND = ["4D", "9C", "TH"]
RULES_TEXT = [
    "3 cards each; only the last trick scores.",
    "Follow with a card at least as high as the highest in the trick, or with your lowest card.",
    "A led ace is an ordinary card: another ace may equal it.",
    "The winner of the last trick adds the value of their card (on equal ranks the later card wins).",
    "Reaching 21 points costs a life; everyone has 2 lives.",
    "After losing a life you continue on the highest total of the others.",
    "The last player left in wins.",
]


@dataclass
class BareRoom:
    """A room: names by seat, tokens, open sockets with their seat, a version and whose turn it is."""

    code: str
    names: list[str] = field(default_factory=list)
    seats: dict[str, int] = field(default_factory=dict)
    sockets: list[tuple[WebSocket, int | None]] = field(default_factory=list)
    version: int = 0
    phase: str = "lobby"
    turn: int = 0
    plays: int = 0

    def state(self, seat: int | None) -> dict[str, Any]:
        """What a viewer sees: shaped and sized like the real server's ``state`` during a deal (no deal added to
        the score sheet), the hand a fixed one."""
        seats = [{"seat": index, "name": name, "bot": None, "connected": True, "away": False, "score": 0,
                  "lives": 2, "eliminated": False, "dealer": index == 0, "turn": index == self.turn,
                  "cards_left": 3, "played": []} for index, name in enumerate(self.names)]
        you = None
        if seat is not None:
            mine = seat == self.turn and self.phase == "playing"
            you = {"seat": seat, "host": seat == 0, "hand": HAND, "legal": HAND if mine else [],
                   "reasons": {} if mine else dict.fromkeys(HAND, "wait for your turn")}
        return {"code": self.code, "phase": self.phase, "preset": "quick", "rules_text": RULES_TEXT,
                "rules": {"hand_size": 3, "threshold": 21, "lives": 2}, "host": 0, "spectators": 1,
                "seats": seats, "deal": 1 + self.plays // 12, "trick_number": 1 + self.plays % 12 // 4,
                "turn": self.turn if self.phase == "playing" else None, "trick": [], "previous_trick": [],
                "last_deal": None, "winners": [], "match_id": None, "standings": [], "score_sheet_added": [],
                "you": you}


app = FastAPI()
rooms: dict[str, BareRoom] = {}


def _seat(room: BareRoom, name: Any, response: Response) -> dict[str, Any]:
    token = secrets.token_urlsafe(16)
    room.seats[token] = len(room.names)
    room.names.append(str(name))
    response.set_cookie(f"cucumber_{room.code}", token, httponly=True, samesite="lax")
    return {"seat": room.seats[token], "token": token}


@app.get("/healthz")
async def health() -> dict[str, str]:
    """Always ``{"status": "ok"}``."""
    return {"status": "ok"}


@app.post("/api/rooms", status_code=201)
async def create_room(request: Request, response: Response) -> dict[str, Any]:
    """Open a room, the creator in seat 0. → ``{code, url, seat, token}``."""
    body = await request.json()
    code = secrets.token_hex(4).upper()
    room = rooms[code] = BareRoom(code)
    return {"code": code, "url": f"/r/{code}", **_seat(room, body.get("name"), response)}


@app.post("/api/rooms/{code}/players", status_code=201)
async def join_room(code: str, request: Request, response: Response) -> dict[str, Any]:
    """Take the next seat. → ``{seat, token}``."""
    body = await request.json()
    return _seat(rooms[code], body.get("name"), response)


@app.websocket("/api/rooms/{code}/ws")
async def protocol_socket(websocket: WebSocket, code: str) -> None:
    """``hello`` (with a token for a player) first, then ``start`` and ``play``."""
    await websocket.accept()
    hello = await websocket.receive_json()
    room = rooms[code]
    await serve(websocket, room, room.seats.get(hello.get("token")))


@app.websocket("/r/{code}/ws")
async def page_socket(websocket: WebSocket, code: str) -> None:
    """The page's socket: the player comes from the room cookie; it gets the same JSON."""
    await websocket.accept()
    room = rooms[code]
    await serve(websocket, room, room.seats.get(websocket.cookies.get(f"cucumber_{code}", "")))


async def serve(websocket: WebSocket, room: BareRoom, seat: int | None) -> None:
    """Handle one socket's messages until it closes; every change goes to every socket."""
    entry = (websocket, seat)
    room.sockets.append(entry)
    await broadcast(room)
    try:
        while True:
            message = await websocket.receive_json()
            if message.get("type") == "start":
                room.phase = "playing"
            elif message.get("type") == "play" and room.phase == "playing" and seat == room.turn:
                room.turn = (room.turn + 1) % len(room.names)
                room.plays += 1
            elif message.get("type") in ("chat", "react"):
                await chat(room, seat, message)
                continue
            else:
                await websocket.send_json({"type": "error", "code": "not_your_turn", "message": "not now"})
                continue
            await broadcast(room)
    except WebSocketDisconnect:
        pass
    finally:
        room.sockets.remove(entry)


async def broadcast(room: BareRoom) -> None:
    """A new version, sent to every socket of the room in turn."""
    room.version += 1
    version = room.version
    for websocket, seat in list(room.sockets):
        # A socket that went away leaves through its own handler.
        with contextlib.suppress(Exception):
            await websocket.send_json({"type": "state", "version": version, "state": room.state(seat)})


async def chat(room: BareRoom, seat: int | None, message: dict[str, Any]) -> None:
    """A chat line (``cucumber bench load --chat``), sent as it came to every socket of the room in turn."""
    said = {"text": str(message.get("text", ""))[:200]} if message["type"] == "chat" else {
        "reaction": str(message.get("reaction"))}
    line = {"type": "chat", "from": {"id": f"seat{seat}", "name": None if seat is None else room.names[seat],
                                     "seat": seat, "spectator": seat is None, "host": seat == 0}, **said}
    for websocket, _ in list(room.sockets):
        with contextlib.suppress(Exception):
            await websocket.send_json(line)


def main() -> None:
    """``python -m bench.bare_server --port P``: serve on 127.0.0.1 with uvicorn's defaults."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8001)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port)


if __name__ == "__main__":
    main()
