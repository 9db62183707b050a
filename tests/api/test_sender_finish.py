"""A socket's handler, ending, gives its connection's sender a while to finish, and can itself be cancelled."""

from __future__ import annotations

import asyncio

import pytest

from app.api.sockets import let_sender_finish

pytestmark = pytest.mark.anyio


async def test_a_sender_that_ends_in_time_is_waited_for_whatever_ended_it():
    async def cancelled() -> None:
        raise asyncio.CancelledError

    async def failing() -> None:
        raise OSError("the socket broke")

    for ending in (cancelled, failing):
        sender = asyncio.get_running_loop().create_task(ending())
        await let_sender_finish(sender, 1)
        assert sender.done()
        if not sender.cancelled():
            assert isinstance(sender.exception(), OSError)


async def test_a_sender_stuck_past_the_wait_is_cancelled():
    sender = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    await let_sender_finish(sender, 0.01)
    await asyncio.sleep(0)
    assert sender.cancelled()


async def test_the_handler_cancelled_while_it_waits_ends_cancelled():
    sender = asyncio.get_running_loop().create_task(asyncio.sleep(60))
    handler = asyncio.get_running_loop().create_task(let_sender_finish(sender, 30))
    await asyncio.sleep(0.01)
    handler.cancel()
    with pytest.raises(asyncio.CancelledError):
        await handler
    assert handler.cancelled()
    sender.cancel()
