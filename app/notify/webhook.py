"""A table's chat webhook: at each turn, a Discord or Slack incoming webhook gets "Ana's turn at Table
K7QXM" with the deadline in the chat's own date markup, so each reader sees it in their own time.

The URL is the host's secret: it is never logged, and a post to it goes only
to an address checked first (``app.notify.urls``).
"""

from __future__ import annotations

import json
import logging
import re
import ssl
from collections.abc import Callable

from app.notify.outbound import SendFailed, post
from app.notify.turns import TurnNotice
from app.notify.urls import WEBHOOK_REFUSED, Allowlist, Parts, RefusedUrl, Resolver, Target, check_url
from app.wording.language import DEFAULT_LANGUAGE, LANGUAGES, say, speaking

log = logging.getLogger(__name__)

DISCORD, SLACK = "discord", "slack"
DISCORD_HOSTS = ("discord.com", "discordapp.com")
SLACK_HOSTS = ("hooks.slack.com",)
DISCORD_PATH, SLACK_PATH = "/api/webhooks/", "/services/"
"""Where each chat's incoming webhooks live, which tells a listed host of neither (a relay, a test's
receiver) apart."""

_DISCORD_MARKUP = re.compile(r"([\\*_~`|>#<:\[\]()@-])")
_SLACK_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def webhook_kind(parts: Parts) -> str | None:
    """``"discord"`` or ``"slack"``: which chat a webhook URL's ``parts`` belong to, by its host (or one under
    it), else by its path; ``None`` for neither."""
    for kind, hosts in ((DISCORD, DISCORD_HOSTS), (SLACK, SLACK_HOSTS)):
        if any(parts.host == host or parts.host.endswith("." + host) for host in hosts):
            return kind
    if parts.path.startswith(DISCORD_PATH):
        return DISCORD
    if parts.path.startswith(SLACK_PATH):
        return SLACK
    return None


def discord_text(text: str) -> str:
    """``text`` (a player's name) with Discord's markup characters escaped, so it shows as written."""
    return _DISCORD_MARKUP.sub(r"\\\1", text)


def slack_text(text: str) -> str:
    """``text`` with the three characters Slack's messages escape (``&``, ``<``, ``>``) escaped."""
    return "".join(_SLACK_ESCAPES.get(char, char) for char in text)


def message(kind: str, notice: TurnNotice, language: str) -> bytes:
    """The JSON body of the post for chat ``kind`` (``"discord"``: ``{"content": …}``, mentions off;
    ``"slack"``: ``{"text": …}``), in ``language`` (English for a code not spoken here). The deadline is
    written in the chat's date markup: Discord's ``<t:UNIX:f> (<t:UNIX:R>)``, Slack's
    ``<!date^UNIX^{date_short_pretty} {time}|fallback>`` with the UTC time as its fallback."""
    language = language if language in LANGUAGES else DEFAULT_LANGUAGE
    unix = int(notice.deadline.timestamp())
    if kind == DISCORD:
        name, deadline = discord_text(notice.player), f"<t:{unix}:f> (<t:{unix}:R>)"
    else:
        fallback = notice.deadline.strftime("%Y-%m-%d %H:%M UTC")
        name, deadline = slack_text(notice.player), f"<!date^{unix}^{{date_short_pretty}} {{time}}|{fallback}>"
    with speaking(language):
        if notice.reminder:
            # Translators: a chat message; {name} is a player, {code} the table's code, {deadline} a date and time.
            text = say("Still {name}'s turn at Table {code}, until {deadline}", name=name, code=notice.room_code,
                       deadline=deadline)
        else:
            # Translators: a chat message; {name} is a player, {code} the table's code, {deadline} a date and time.
            text = say("{name}'s turn at Table {code}, until {deadline}", name=name, code=notice.room_code,
                       deadline=deadline)
    body: dict[str, object] = {"content": text, "allowed_mentions": {"parse": []}} if kind == DISCORD \
        else {"text": text}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


class WebhookSender:
    """Posts turns to chat webhooks that ``allowlist`` (``CUCUMBER_WEBHOOK_HOSTS``) allows, resolving their
    hosts with ``resolver`` and checking https with ``tls`` (default: the system's authorities); ``on_outcome``
    is told how each post ended: ``accepted``, ``failed`` or ``unsent``."""

    def __init__(self, *, resolver: Resolver, allowlist: Allowlist, tls: ssl.SSLContext | None = None,
                 on_outcome: Callable[[str], None] | None = None) -> None:
        self.resolver = resolver
        self.allowlist = allowlist
        self.tls = tls
        self.on_outcome = on_outcome or (lambda _outcome: None)

    def target(self, url: object) -> tuple[Target, str]:
        """``url`` as a target and its chat's kind, before its host is looked up. Raises :class:`RefusedUrl`
        (``webhook_refused``) for a URL the allowlist refuses or that is no Discord or Slack webhook."""
        target = check_url(url, self.allowlist, WEBHOOK_REFUSED)
        kind = webhook_kind(target.parts)
        if kind is None:
            raise RefusedUrl(WEBHOOK_REFUSED, "the URL is not a Discord or Slack incoming webhook")
        return target, kind

    def check(self, url: object) -> str:
        """``url`` normalized, if it may be a table's webhook (:meth:`target`); raises :class:`RefusedUrl`."""
        return self.target(url)[0].url

    async def post(self, url: str, notice: TurnNotice, language: str) -> bool:
        """Post ``notice`` to ``url`` in ``language``; whether the chat took it (2xx). A refused URL (checked
        again, its addresses too), a redirect (not followed), no answer or any other answer is ``False``."""
        try:
            target, kind = self.target(url)
            await target.resolve(self.resolver)
        except RefusedUrl as refused:
            log.warning("a chat webhook was not posted to: %s", refused.reason)
            self.on_outcome("unsent")
            return False
        try:
            answer = await post(target, headers={"Content-Type": "application/json"},
                                body=message(kind, notice, language), tls=self.tls)
        except SendFailed as failed:
            log.warning("a chat webhook did not answer: %s", failed)
            self.on_outcome("failed")
            return False
        if not answer.accepted:
            log.warning("a chat webhook answered %d", answer.status)
        self.on_outcome("accepted" if answer.accepted else "failed")
        return answer.accepted
