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
import dataclasses
import multiprocessing
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from starlette.requests import Request
from starlette.responses import Response

from ... import (
    Phase,
    Record,
    RecordError,
    apply,
    format_action,
    loads,
    most_actions,
    new_game,
    observe,
    tricks_left,
)
from ..errors import TableError
from ..protocol import Json, observation_json, result_json
from ..protocol import dumps as dumps_json
from .guard import Quotas, client_address
from .requests import read_body

MAX_RECORD: Final = 1024 * 1024  # the largest record to replay, in bytes
REPLAYS_AT_ONCE: Final = 2  # records replayed together, server-wide
PARENT_CHECK: Final = 1.0  # seconds between a worker's looks at whether its server is still there

_MISSING = object()


def replay_frames(record: Record) -> Json:
    """A record as frames for the replay page, every hand face up (a record
    holds every deal, so nothing in it is hidden any more).

    Each hand's result is sent once, in ``results``; a frame names how many of
    them are scored by then and holds only the fields of the observation that
    changed since the frame before, so the answer grows in proportion to the
    record (every frame repeating the score sheet so far made it grow with its
    square).
    """
    record.replay()  # RecordError names the first action that is not legal
    state = new_game(record.rules)
    frames: list[Json] = []
    previous: Json = {}
    claims = {c.at: c for c in record.claims}
    for action in record.actions:
        claim = claims.get(len(state.log))
        if claim is not None and frames:
            # A claim is a step of its own where it was made ("claim 2 0 4":
            # Cleo claims none of the 4 tricks left); the table is as before.
            frames.append(
                {
                    "version": len(state.log),
                    "label": f"claim {claim.seat} {claim.tricks} {tricks_left(state)}",
                    "hand_number": state.hand_number,
                    "obs": {},
                }
            )
        apply(state, action)
        obs = observe(state, None)
        if state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
            obs = dataclasses.replace(obs, hands=tuple(tuple(h) for h in state.hands), bids=tuple(state.bids))
        data = observation_json(obs, ())
        del data["names"]
        data["results"] = len(obs.results)
        # Only what changed since the frame before (the page merges them).
        changed = {k: v for k, v in data.items() if previous.get(k, _MISSING) != v}
        previous = data
        frames.append(
            {
                "version": len(state.log),
                "label": format_action(state.log[-1]),
                "hand_number": state.hand_number,
                "obs": changed,
            }
        )
    return {"seats": list(record.seats), "results": [result_json(r) for r in state.results], "frames": frames}


def replay_answer(raw: bytes) -> tuple[bool, bytes]:
    """``POST /api/replay``'s work on a record's bytes: (True, the answer's
    JSON), or (False, why the record was refused, in words). Runs in a worker."""
    try:
        record = loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False, b"the record is not UTF-8 text"
    except RecordError as err:
        return False, f"the record cannot be read: {err}".encode()
    limit = most_actions(record.rules)
    if len(record.actions) > limit:
        words = f"the record has {len(record.actions)} actions; a match under its rules has at most {limit}"
        return False, words.encode()
    try:
        frames = replay_frames(record)
    except RecordError as err:
        return False, f"the record cannot be replayed: {err}".encode()
    return True, dumps_json(frames).encode()


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
