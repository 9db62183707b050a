"""What the rooms hand to the notifications: a turn notice, and the notifier that sends it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class TurnNotice:
    """It is ``player``'s turn at room ``room_code`` until ``deadline`` (aware UTC); ``reminder``: the 80 % one."""

    room_code: str
    player: str
    deadline: datetime
    reminder: bool


class Notifier:
    """Sends turn notices; with push off (``push_enabled`` false) it sends none."""

    push_enabled: bool = False
    public_key: str | None = None

    async def push_turn(self, *, token_hash: str, notice: TurnNotice, still_due: Callable[[], bool]) -> int:
        """Push ``notice`` to the subscriptions of ``token_hash``'s seat; how many were delivered."""
        return 0

    async def post_webhook(self, url: str, notice: TurnNotice, language: str) -> bool:
        """Post ``notice`` to a chat webhook in ``language``; whether it was taken."""
        return False

    async def drop_seat(self, *, room_code: str, token_hash: str) -> None:
        """Forget the subscriptions of a seat removed or moved to another browser."""

    def check_webhook(self, url: str) -> str:
        """``url`` normalized if a webhook may be sent there."""
        return url
