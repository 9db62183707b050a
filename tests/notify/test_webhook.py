"""A table's chat webhook: Discord's and Slack's messages, delivered to a local receiver, and the URLs that are
refused."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.config.settings import Settings
from app.notify import Notifier, RefusedUrl, TurnNotice
from tests.notify.fakechat import FakeChat

pytestmark = pytest.mark.anyio

DEADLINE = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
UNIX = 1796590800


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with FakeChat() as running:
        yield running


@pytest.fixture
def notifier(chat: FakeChat, tmp_path: Path) -> Notifier:
    """A notifier with push off (webhooks need no push), allowed to post to ``chat``."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'hooks.db'}", webhook_hosts=chat.allowlist_entry)
    return Notifier(settings=settings, storage=None, keys=None)


async def test_discord_gets_the_turn_with_its_date_markup_and_no_mentions(notifier, chat):
    url = notifier.check_webhook(chat.discord_url)
    assert await notifier.post_webhook(url, TurnNotice("K7QXM", "Ana", DEADLINE, False), "en")
    [post] = chat.posts
    assert post.path == "/api/webhooks/1234/secret-token"
    assert post.headers["content-type"] == "application/json"
    assert post.body == {"content": f"Ana's turn at Table K7QXM, until <t:{UNIX}:f> (<t:{UNIX}:R>)",
                         "allowed_mentions": {"parse": []}}


async def test_slack_gets_the_turn_with_its_date_markup_in_the_hosts_language(notifier, chat):
    assert await notifier.post_webhook(chat.slack_url, TurnNotice("K7QXM", "Ana", DEADLINE, False), "de")
    markup = f"<!date^{UNIX}^{{date_short_pretty}} {{time}}|2026-12-06 21:00 UTC>"
    assert chat.posts[0].body == {"text": f"Ana ist am Zug an Tisch K7QXM, bis {markup}"}


async def test_a_name_cannot_write_markup_into_the_chat(notifier, chat):
    await notifier.post_webhook(chat.discord_url, TurnNotice("K7QXM", "@everyone *<t:0>*", DEADLINE, False), "en")
    await notifier.post_webhook(chat.slack_url, TurnNotice("K7QXM", "<!channel> & co", DEADLINE, True), "en")
    discord, slack = (post.body for post in chat.posts)
    assert discord["content"].startswith(r"\@everyone \*\<t\:0\>\*'s turn")
    assert discord["allowed_mentions"] == {"parse": []}
    assert slack["text"].startswith("Still &lt;!channel&gt; &amp; co's turn at Table K7QXM")


async def test_a_redirect_is_a_failure_and_is_not_followed(notifier, chat):
    chat.script(302)
    assert not await notifier.post_webhook(chat.discord_url, TurnNotice("K7QXM", "Ana", DEADLINE, False), "en")
    assert [post.path for post in chat.posts] == ["/api/webhooks/1234/secret-token"]


async def test_a_refusing_chat_is_a_failure(notifier, chat):
    chat.script(404)
    assert not await notifier.post_webhook(chat.discord_url, TurnNotice("K7QXM", "Ana", DEADLINE, False), "en")


def test_refused_webhooks_are_refused_before_any_request(notifier, chat):
    for url in ("http://discord.com/api/webhooks/1/x",  # http, not listed
                "https://evil.net/api/webhooks/1/x",  # not on the list
                "https://discord.com/api/webhooks/1/x",  # on the defaults, not on this server's list
                chat.discord_url.replace("http://", "http://user:pw@"),  # userinfo
                f"{chat.base_url}/hooks/unknown-kind",  # listed, but no Discord or Slack webhook
                "not a url", None):
        with pytest.raises(RefusedUrl) as caught:
            notifier.check_webhook(url)  # type: ignore[arg-type]
        assert caught.value.code == "webhook_refused"
    assert chat.posts == []


async def test_a_webhook_to_a_name_resolving_to_a_private_address_is_not_posted(tmp_path, caplog):
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["10.0.0.7"]

    notifier = Notifier(settings=Settings(database_url=f"sqlite:///{tmp_path / 'x.db'}"), storage=None, keys=None,
                        resolver=resolve)
    url = notifier.check_webhook("https://discord.com/api/webhooks/1/secret-token")
    with caplog.at_level(logging.INFO):
        assert not await notifier.post_webhook(url, TurnNotice("K7QXM", "Ana", DEADLINE, False), "en")
    assert asked == ["discord.com"]
    assert "secret-token" not in caplog.text and "not public" in caplog.text
