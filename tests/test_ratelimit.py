"""Per-client-address limits: the notation, whom a request counts against, and the counting, alone and in Redis."""

from __future__ import annotations

import logging
import subprocess
import time

import pytest
import redis

from app.config.settings import Settings
from app.web.metrics import Metrics
from app.web.ratelimit import LIMITED, RateLimiter, client_key, parse_limits, shared_storage
from app.web.security import Refused
from tests.server.conftest import free_port

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


def private_redis(port: int) -> subprocess.Popen[bytes]:
    """A Redis server of the test's own on ``port`` (not the shared one, which it stops), once it answers."""
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, socket_connect_timeout=1)
    deadline = time.monotonic() + 60  # a bound for a machine under load, not a figure of any test
    try:
        while time.monotonic() < deadline:
            try:
                client.ping()
                return server
            except redis.ConnectionError:
                time.sleep(0.05)
    finally:
        client.close()
    server.kill()
    raise RuntimeError("the private Redis did not start")


def sharing_limiter(url: str, prefix: str, **options) -> tuple[RateLimiter, list[bool]]:
    """A limiter of ``joins`` at 2 a minute counted in the Redis at ``url``, and what it said of its sharing."""
    shared, client = shared_storage(url, prefix)
    heard: list[bool] = []
    limiter = RateLimiter({"joins": parse_limits("2/minute")}, shared=shared, client=client, on_shared=heard.append,
                          **options)
    return limiter, heard


@pytest.mark.redis
async def test_processes_sharing_redis_give_an_address_each_allowance_once(redis_server, redis_prefix):
    first, _ = sharing_limiter(redis_server, redis_prefix)
    second, _ = sharing_limiter(redis_server, redis_prefix)
    try:
        assert await first.retry_after("joins", "198.51.100.1") is None
        assert await second.retry_after("joins", "198.51.100.1") is None
        assert await first.retry_after("joins", "198.51.100.1") is not None
        assert await second.retry_after("joins", "198.51.100.1") is not None
        assert await second.retry_after("joins", "198.51.100.2") is None  # another address
        assert first.sharing and second.sharing
    finally:
        await first.close()
        await second.close()


async def test_with_redis_unreachable_each_process_counts_on_its_own_and_says_so(caplog):
    port = free_port()  # nobody listens there
    limiter, heard = sharing_limiter(f"redis://127.0.0.1:{port}/0", "cucumber_test")
    try:
        with caplog.at_level(logging.WARNING, logger="app.web.ratelimit"):
            assert [await limiter.retry_after("joins", "198.51.100.1") for _ in range(2)] == [None, None]
        assert await limiter.retry_after("joins", "198.51.100.1") is not None  # its own counts still hold
        assert heard == [False] and not limiter.sharing
        assert [record.message for record in caplog.records if "Redis cannot be reached" in record.message]
    finally:
        await limiter.close()


@pytest.mark.redis
async def test_redis_going_away_mid_run_leaves_the_counting_here_and_coming_back_shares_it_again():
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    limiter, heard = sharing_limiter(url, "cucumber_test", retry_seconds=0.0)
    other, _ = sharing_limiter(url, "cucumber_test")
    server = private_redis(port)
    try:
        assert await limiter.retry_after("joins", "198.51.100.1") is None
        server.kill()
        server.wait(10)
        # Gone: nothing is refused for it, and the allowance is counted here from nothing.
        assert [await limiter.retry_after("joins", "198.51.100.1") for _ in range(2)] == [None, None]
        assert await limiter.retry_after("joins", "198.51.100.1") is not None
        assert heard == [False]
        server = private_redis(port)  # back, empty
        assert await other.retry_after("joins", "198.51.100.1") is None
        assert await limiter.retry_after("joins", "198.51.100.1") is None
        assert heard == [False, True] and limiter.sharing
        assert await other.retry_after("joins", "198.51.100.1") is not None  # shared again
    finally:
        await limiter.close()
        await other.close()
        server.kill()
        server.wait(10)


async def test_the_metrics_say_whether_the_limits_are_shared():
    metrics = Metrics()
    limiter = RateLimiter({"joins": parse_limits("2/minute")}, shared=shared_storage(
        f"redis://127.0.0.1:{free_port()}/0", "cucumber_test")[0], on_shared=metrics.limits_sharing)
    metrics.limits_sharing(limiter.sharing)
    assert b"cucumber_rate_limits_shared 1.0" in metrics.exposition()[0]
    await limiter.retry_after("joins", "a")
    assert b"cucumber_rate_limits_shared 0.0" in metrics.exposition()[0]
    alone = RateLimiter.from_settings(Settings())
    assert alone.shared is None and not alone.sharing
