"""A cluster process's connection to Redis: a burst of messages waits for a connection, none is lost."""

from __future__ import annotations

import asyncio

import pytest

from app.cluster.node import REDIS_CONNECTIONS, redis_client

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_a_burst_of_messages_beyond_the_connections_waits_for_them_and_none_is_lost(redis_server,
                                                                                      redis_prefix):
    # As when a table's state goes to the relayed sockets of many tables at once, or many sockets open:
    # every message is published, each on a connection of the process's pool.
    client = redis_client(redis_server)
    try:
        counts = await asyncio.gather(*(client.publish(f"{redis_prefix}:to:nobody", f"frame {number}")
                                        for number in range(3 * REDIS_CONNECTIONS)))
        assert counts == [0] * (3 * REDIS_CONNECTIONS)  # all sent (nobody listens)
        assert await client.get(f"{redis_prefix}:nothing") is None  # and the client goes on working
    finally:
        await client.aclose()
