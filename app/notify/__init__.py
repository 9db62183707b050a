"""The server's outbound side: Web Push to the players' browsers and a table's chat webhook, each sent only
to a URL checked first (docs/slow-tables.md)."""

from app.notify.notices import Notifier, PushOff, TurnNotice
from app.notify.urls import PUSH_ENDPOINT_REFUSED, WEBHOOK_REFUSED, RefusedUrl

__all__ = ["PUSH_ENDPOINT_REFUSED", "WEBHOOK_REFUSED", "Notifier", "PushOff", "RefusedUrl", "TurnNotice"]
