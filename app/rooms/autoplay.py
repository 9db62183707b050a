"""The one call that asks a bot for a card on behalf of a seat.

A bot sees only :func:`~app.game.views.view_for` of its seat; when it plays
is decided by :mod:`app.rooms.schedule`. :func:`think` runs the decision off
the event loop's thread: the cheap strengths in a worker thread, the
``expert`` (tens of milliseconds of pure Python a card) in a worker process,
so that its thinking holds neither the event loop nor its interpreter lock
and the other tables keep their pace.
"""

from __future__ import annotations

import asyncio
import atexit
import multiprocessing
import multiprocessing.connection
import os
import random
import threading
from concurrent.futures import ProcessPoolExecutor

from app.bots import BotStrength, choose_card
from app.game.cards import Card
from app.game.match import Match
from app.game.views import view_for

IN_A_PROCESS = frozenset({BotStrength.EXPERT})
"""The strengths whose decisions run in a worker process."""

THINKING_PROCESSES = 1
"""Worker processes for those decisions, shared by every room of this server process."""



class _Pool:
    """The one pool of worker processes of this server process, started on first use."""

    executor: ProcessPoolExecutor | None = None
    lock = threading.Lock()


def bot_card(match: Match, seat: int, strength: str, seed: int, budget: float) -> Card:
    """The card a bot of ``strength`` plays for ``seat``, judged from that seat's view only.

    ``seed`` makes the bot's own chance reproducible; ``budget`` is the
    thinking time in seconds of a ``hard`` or ``expert`` bot. Raises
    ``ValueError`` when it is not ``seat``'s turn.
    """
    view = view_for(match, seat)
    if view.you is None or not view.you.legal:
        raise ValueError(f"seat {seat} has nothing to play")
    return choose_card(view, strength, random.Random(seed), budget)


async def think(match: Match, seat: int, strength: str, seed: int, budget: float) -> Card:
    """:func:`bot_card` off the event loop: in the worker process for :data:`IN_A_PROCESS`, else a thread.

    Raises what :func:`bot_card` raises.
    """
    if strength in IN_A_PROCESS:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(thinking_pool(), bot_card, match, seat, strength, seed, budget)
    return await asyncio.to_thread(bot_card, match, seat, strength, seed, budget)


def thinking_pool() -> ProcessPoolExecutor:
    """The worker processes of :func:`think`, started on first use (``spawn``: nothing of the server is inherited).

    Shut down when the interpreter exits, or by :func:`stop_thinking`.
    """
    with _Pool.lock:
        if _Pool.executor is None:
            _Pool.executor = ProcessPoolExecutor(max_workers=THINKING_PROCESSES,
                                                 mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=end_with_the_server)
        return _Pool.executor


def end_with_the_server() -> None:
    """In a worker process: end it as soon as the server process that started it ends without shutting it down
    (killed, or crashed), so that no worker outlives its server."""
    server = multiprocessing.parent_process()
    if server is not None:
        threading.Thread(target=_end_after, args=(server.sentinel,), name="server-watch", daemon=True).start()


def _end_after(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def stop_thinking() -> None:
    """Shut the worker processes down (they start again on the next :func:`think`)."""
    with _Pool.lock:
        pool, _Pool.executor = _Pool.executor, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def process_id() -> int:
    """The id of the process this runs in (asked of the thinking pool, it names the worker)."""
    return os.getpid()


atexit.register(stop_thinking)
