"""Where the server's searching bots think: worker processes, or threads.

The expert searches for up to ``--think`` seconds a decision, for a bot's
move or a player's hint. In a thread that search holds the interpreter's lock
most of the time, so every table on the server slows down while it runs; in
a worker process it does not touch the event loop at all. ``ohhell serve``
thinks in processes (one fewer than the machine's cores, at least one);
in-process tests may think in threads. Either way a decision depends only
on the observation and the seed, so both give the same moves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import random
from typing import Any

from .. import Action, Deck, Observation
from ..bots import get_bot
from ..bots.accel import compiled_playout
from ..bots.fastdeal import layout_for
from ..bots.hint import Hint, hint


def _choose(level: str, options: dict[str, Any], obs: Observation, seed: str) -> Action:
    return get_bot(level, **options).choose(obs, random.Random(seed))


def _hint(obs: Observation, seed: str, seconds: float) -> Hint | None:
    return hint(obs, random.Random(seed), seconds)


def _warm_up() -> None:
    """Compile (or load) the search's compiled code (its walk and playout) as a
    worker starts, so the first table a worker serves does not wait for it
    (``bots.accel``)."""
    compiled_playout(layout_for(Deck.STANDARD, 4))


def default_workers() -> int:
    """One fewer than the machine's cores (the event loop keeps one), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


class Thinkers:
    """Runs searches in ``workers`` processes (made when first needed), or in
    threads when ``workers`` is 0."""

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _executor(self) -> concurrent.futures.Executor | None:
        if not self.workers:
            return None  # the loop's default thread pool
        if self._pool is None:
            # Spawned, not forked: a fork of a running server copies its
            # threads' locks in whatever state they are.
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_warm_up
            )
        return self._pool

    async def choose(self, level: str, options: dict[str, Any], obs: Observation, seed: str) -> Action:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), _choose, level, options, obs, seed)

    async def hint(self, obs: Observation, seed: str, seconds: float) -> Hint | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), _hint, obs, seed, seconds)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["Thinkers", "default_workers"]
