"""Replaying an uploaded record for the replay page (``POST /api/replay``).

A replay is work in proportion to the record: the longest match a record may
hold (6 players, 200 hands of 13 cards from an Australian pack, about 18,000
actions) takes about 3 s of CPU and answers 8 MB. In a thread beside the
event loop that work holds the interpreter's lock, and six such replays sent
at once from one address stalled every other request for seconds. So
``Replays``:

- counts each address's replays in its quota (``Quotas``, "replays") before
  reading the body, and lets one address have one replay at a time (a second
  one is refused with 429 while the first is made);
- makes at most ``REPLAYS_AT_ONCE`` on the whole server, each from reading
  the record to writing the answer's JSON in a worker process (spawned when
  first needed, at a lower priority than the server, shut down with it, and
  gone by itself within ``PARENT_CHECK`` seconds when the server is killed),
  so the event loop only passes bytes to and fro. In-process tests, which
  think in threads, replay in threads too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from ..errors import TableError
from ..frames import MAX_RECORD, replay_answer, replay_frames
from .guard import Quotas, client_address
from .requests import read_body

REPLAYS_AT_ONCE: Final = 2  # records replayed together, server-wide
PARENT_CHECK: Final = 1.0  # seconds between a worker's looks at whether its server is still there


def watch_parent(parent: int) -> None:
    """End this worker when its server ``parent`` is gone: a server killed
    (so it could not stop its workers) leaves them adopted by another
    process, where nobody will ever read their answers, and they must not
    keep its memory and a core. Runs in a thread of the worker."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def _worker_start(parent: int) -> None:
    threading.Thread(target=watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    # A replay waits rather than take the CPU from the server's event loop
    # (and the bots' thinking) on a busy machine.
    with contextlib.suppress(OSError):
        os.nice(10)


class Replays:
    """``POST /api/replay``: quotas, one at a time per address, and the work
    in worker processes (``processes``) or the loop's threads."""

    def __init__(self, quotas: Quotas, *, processes: bool, at_once: int = REPLAYS_AT_ONCE) -> None:
        self.quotas = quotas
        self.processes = processes
        self.at_once = at_once
        self._slots = asyncio.Semaphore(at_once)
        self._making: set[str] = set()  # addresses with a replay being made
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    async def answer(self, request: Request) -> Response:
        address = client_address(request.scope)
        self.quotas.take("replays", address)  # before any work on the body
        if address in self._making:
            self.quotas.refused(address)
            raise TableError(
                "a replay for your address is still being made: wait for it, then try again",
                "busy",
                status=429,
            )
        self._making.add(address)
        try:
            raw = await read_body(request, MAX_RECORD, "the record")
            async with self._slots:
                done, answer = await self._run(raw)
        finally:
            self._making.discard(address)
        if not done:
            raise TableError(answer.decode())
        return Response(answer, media_type="application/json")

    async def _run(self, raw: bytes) -> tuple[bool, bytes]:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), replay_answer, raw)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a fresh pool next time
            self.close(wait=False)
            raise TableError("the replay could not be made; try again", status=503) from None

    def _executor(self) -> concurrent.futures.Executor | None:
        if not self.processes:
            return None  # the loop's default thread pool
        if self._pool is None:
            # Spawned, not forked: a fork of a running server copies its
            # threads' locks in whatever state they are.
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.at_once,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self, *, wait: bool = True) -> None:
        """Stop the workers (a replay being made finishes first, unless
        ``wait`` is false; those waiting are dropped)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            # Waited for at shutdown, so no worker or its semaphores outlive the server.
            pool.shutdown(wait=wait, cancel_futures=True)


__all__ = ["MAX_RECORD", "REPLAYS_AT_ONCE", "Replays", "replay_answer", "replay_frames"]
