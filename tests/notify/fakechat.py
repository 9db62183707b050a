"""A chat's incoming webhooks on loopback, standing in for Discord's and Slack's: it keeps every post it
receives and answers as scripted (204 by default, as Discord does).

Use::

    with FakeChat() as chat:
        settings = Settings(..., webhook_hosts=chat.allowlist_entry)
        url = chat.discord_url        # or chat.slack_url
        chat.script(302)              # the next post is answered with a redirect to chat.elsewhere
        chat.posts                    # Post(path, headers, body) in order
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from bench.fakepush import LoopbackServer


@dataclass(frozen=True)
class Post:
    """One request the chat received: its ``path``, ``headers`` (lower-case names) and ``body`` (parsed
    JSON)."""

    path: str
    headers: dict[str, str]
    body: Any


class FakeChat(LoopbackServer):
    """The fake chat, listening on ``127.0.0.1`` (a free port) once started."""

    def __init__(self) -> None:
        self.posts: list[Post] = []
        self._answers: deque[int] = deque()
        self._lock = threading.Lock()

    def start(self) -> FakeChat:
        chat = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = None
                with chat._lock:
                    chat.posts.append(Post(self.path, {k.lower(): v for k, v in self.headers.items()}, parsed))
                    status = chat._answers.popleft() if chat._answers else 204
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", chat.elsewhere)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.serve(Handler, "fake-chat")
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def allowlist_entry(self) -> str:
        """The ``CUCUMBER_WEBHOOK_HOSTS`` entry that lets the server post here."""
        return f"{self.base_url}/"

    @property
    def discord_url(self) -> str:
        return f"{self.base_url}/api/webhooks/1234/secret-token"

    @property
    def slack_url(self) -> str:
        return f"{self.base_url}/services/T000/B000/secret"

    @property
    def elsewhere(self) -> str:
        """Where a scripted redirect points."""
        return f"{self.base_url}/api/webhooks/9999/elsewhere"

    def script(self, *statuses: int) -> None:
        """Answer the next posts with ``statuses`` in turn, then 204 again."""
        with self._lock:
            self._answers.extend(statuses)
