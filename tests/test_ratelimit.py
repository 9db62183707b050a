"""Per-client-address limits: the notation, whom a request counts against, and the counting."""

from __future__ import annotations

import pytest

from app.ratelimit import LIMITED, RateLimiter, client_key, parse_limits
from app.security import Refused
from app.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def test_limits_are_read_in_the_limits_notation_and_empty_is_none():
    assert [str(item) for item in parse_limits("20/minute;200/day")] == ["20 per 1 minute", "200 per 1 day"]
    assert parse_limits("") == parse_limits("  ") == []
    with pytest.raises(ValueError):
        parse_limits("twenty a minute")


@pytest.mark.parametrize(("address", "key"), [
    ("198.51.100.7", "198.51.100.7"),
    ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),  # the same household
    ("::ffff:198.51.100.7", "198.51.100.7"),
    ("testclient", "testclient"),
    (None, "unknown"),
])
def test_a_request_counts_against_its_address_and_ipv6_against_its_64(address, key):
    assert client_key(address) == key


async def test_uses_over_the_allowance_are_refused_with_the_wait_until_one_is_free():
    limiter = RateLimiter({"joins": parse_limits("2/minute")})
    assert [await limiter.retry_after("joins", "198.51.100.1") for _ in range(2)] == [None, None]
    wait = await limiter.retry_after("joins", "198.51.100.1")
    assert wait is not None and 1 <= wait <= 60
    with pytest.raises(Refused) as refused:
        await limiter.check("joins", "198.51.100.1")
    assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert 1 <= refused.value.retry_after <= 60 and "seats taken" in refused.value.message


async def test_addresses_and_limits_are_counted_apart():
    limiter = RateLimiter({"joins": parse_limits("1/minute"), "posts": parse_limits("1/minute")})
    assert await limiter.retry_after("joins", "198.51.100.1") is None
    assert await limiter.retry_after("joins", "198.51.100.2") is None
    assert await limiter.retry_after("posts", "198.51.100.1") is None  # same allowance, another limit
    assert await limiter.retry_after("sockets", "198.51.100.1") is None  # not limited at all
    assert await limiter.retry_after("joins", "198.51.100.1") is not None


async def test_each_use_refused_is_reported_by_the_limits_name():
    heard = []
    limiter = RateLimiter({"joins": parse_limits("1/minute")}, on_limited=heard.append)
    for _ in range(3):
        await limiter.retry_after("joins", "198.51.100.1")
    assert heard == ["joins", "joins"]


async def test_every_allowance_of_a_limit_must_hold():
    limiter = RateLimiter({"rooms_created": parse_limits("5/minute;2/day")})
    assert [await limiter.retry_after("rooms_created", "a") for _ in range(2)] == [None, None]
    assert (await limiter.retry_after("rooms_created", "a")) > 3600


async def test_the_settings_set_each_limit_or_turn_them_all_off():
    tight = {f"limit_{name}": "1/hour" for name in LIMITED}
    limiter = RateLimiter.from_settings(Settings(**tight))
    for name in LIMITED:
        assert await limiter.retry_after(name, "a") is None and await limiter.retry_after(name, "a") is not None
    off = RateLimiter.from_settings(Settings(rate_limits=False, **tight))
    unlimited = RateLimiter.from_settings(Settings(limit_joins=""))
    for _ in range(3):
        assert await off.retry_after("joins", "a") is None and await unlimited.retry_after("joins", "a") is None


def test_the_defaults_leave_room_for_friends_behind_one_router():
    settings = Settings()
    assert settings.rate_limits is True
    assert (settings.limit_rooms_created, settings.limit_joins, settings.limit_sockets, settings.limit_posts) == (
        "20/minute;200/day", "60/minute", "120/minute", "120/minute")


def test_a_limit_the_notation_cannot_read_is_refused_at_start():
    with pytest.raises(ValueError, match="limit_joins"):
        Settings(limit_joins="sixty")
