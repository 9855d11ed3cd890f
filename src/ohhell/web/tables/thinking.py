"""Where the server's searching bots think, and how their turns are shared.

The expert searches for up to ``--think`` seconds a decision, for a bot's
move or a player's hint. In a thread that search holds the interpreter's lock
most of the time, so every table on the server slows down while it runs; in
a worker process it does not touch the event loop at all. ``ohhell serve``
thinks in processes (one fewer than the machine's cores, at least one);
in-process tests may think in threads. Either way a decision depends only
on the observation and the seed, so both give the same moves.

The workers are few and shared by every table, so who thinks next is decided
here, not in arrival order (docs/web.md, "Sharing the thinking"):

- **Fair turns.** Searches wait in a queue of their own, one per *owner*,
  and only as many run as there are workers. The next search is the
  waiting owner's with the fewest searches running, and among those the one
  served longest ago; within an owner its tables take turns. An owner is a
  client address: a table's bots count against the address of its host's
  connection (else a seated person's, else the last one seen), a hint
  against the address that asked. So one address running ten expert tables
  gets one turn in the rotation, like an address running one, and another
  table's decision waits for at most the search under way.
- **A shorter think under load.** When more searches want a worker than
  there are workers, each search started gets its time divided by that
  load (never below ``SHORTEST_THINK``): the queue then clears in about one
  ordinary think whatever its length. A 30 ms think has not measured
  clearly weaker than a 1 s one (docs/performance.md), so this costs little.
- **Claims think here too.** Whether a claim is certain, each bot's answer
  to it, and the cards that settle it are searches of their own (up to
  half a second of pure Python each): they wait in the claimer's address's
  queue like any search, and one address may have ``CLAIMS_PER_ADDRESS``
  claims being worked out at once (more are refused with words that say
  so), so claiming from every seat of many tables costs the others nothing
  but that address's own turns.
- **Hints are capped and shared.** One address may have ``HINTS_PER_ADDRESS``
  hints waiting or being worked out at once; more are refused with words
  that say so. A hint for the same table, seat and version as one already
  asked for waits for that one (and the last few answers are kept), so
  asking again and again costs no search.

The workers end with the server: ``close`` stops what runs (terminating a
worker mid-search, killing one that lingers), and each worker checks its
parent every ``PARENT_CHECK`` seconds and exits once the server is gone,
also when the server itself was killed and could not close them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import os
import random
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Final

from ... import Action, Deck, Observation
from ...bots import get_bot
from ...bots.accel import compiled_playout
from ...bots.fastdeal import layout_for
from ...bots.hint import Hint, hint
from ..errors import TableError
from ..serving import metrics
from .connection import Connection

SHORTEST_THINK: Final = 0.05  # seconds: the least a search is cut to under load
HINTS_PER_ADDRESS: Final = 8  # hints on the way per address at once (a household at one table shares one)
CLAIMS_PER_ADDRESS: Final = 4  # claims being worked out for one address at once
HINTS_REMEMBERED: Final = 256  # recent hints kept, for the same question asked again
PARENT_CHECK: Final = 1.0  # seconds between a worker's looks at whether the server is still there
STOP_GRACE: Final = 2.0  # seconds terminated workers get to end before they are killed

Runner = Callable[..., Awaitable[Any]]
"""Runs ``call(seconds, *args)`` somewhere and returns its result (tests bring their own)."""


def _choose(
    seconds: float | None, level: str, options: dict[str, Any], obs: Observation, seed: str
) -> Action:
    if seconds is not None:
        options = {**options, "seconds": seconds}
    return get_bot(level, **options).choose(obs, random.Random(seed))


def _untimed(seconds: float | None, call: Callable[..., Any], *args: Any) -> Any:
    return call(*args)  # a search that ends by its own budget, not by the clock


def _hint(seconds: float | None, obs: Observation, seed: str) -> Hint | None:
    return hint(obs, random.Random(seed), 1.0 if seconds is None else seconds)


def _warm_up() -> None:
    """Compile (or load) the search's compiled code (its walk and playout) as a
    worker starts, so the first table a worker serves does not wait for it
    (``bots.accel``)."""
    compiled_playout(layout_for(Deck.STANDARD, 4))


def _watch_parent(parent: int) -> None:
    # A worker whose server has gone (killed, so it could not stop its
    # workers) is adopted by another process: then nobody will ever read
    # its answers, and it must not keep its memory and a core.
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def start_worker(parent: int) -> None:
    """A worker process starts: it watches its server and compiles the search."""
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    _warm_up()


def default_workers() -> int:
    """One fewer than the machine's cores (the event loop keeps one), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


def work_owner(connections: Iterable[Connection], remembered: str | None) -> str | None:
    """The address a table's bots think for: its host's connection's, else a
    seated person's, else ``remembered`` (the last one found). The host's
    first, so a stranger taking an open seat cannot make a table's
    searches count against their own address's turn."""
    seated = None
    for conn in connections:
        if conn.seat is not None and conn.address:
            if conn.host:
                return conn.address
            seated = seated or conn.address
    return seated or remembered


@dataclasses.dataclass(eq=False)
class _Job:
    owner: str
    table: str
    call: Callable[..., Any]
    args: tuple[Any, ...]
    seconds: float | None  # the search's time when nobody waits; None: not a timed search
    future: asyncio.Future[Any]
    waiters: int = 1  # callers waiting for the answer (a hint asked for twice has two)
    started: bool = False
    asked: float = dataclasses.field(default_factory=time.monotonic)  # when it joined the queue


class Thinkers:
    """Runs searches in ``workers`` processes (made when first needed), or in
    threads when ``workers`` is 0, at most ``slots`` at once (the workers, at
    least one), in the order the module docstring gives. ``fair=False``
    keeps arrival order and ``shorter=False`` the full think: how the server
    thought before, for ``bench/thinkers.py``. ``run`` replaces the workers
    (tests: a stand-in that answers when the test says)."""

    def __init__(
        self,
        workers: int = 0,
        *,
        fair: bool = True,
        shorter: bool = True,
        slots: int | None = None,
        hints_per_address: int = HINTS_PER_ADDRESS,
        claims_per_address: int = CLAIMS_PER_ADDRESS,
        run: Runner | None = None,
    ) -> None:
        self.workers = workers
        self.slots = slots or max(1, workers)
        self.fair = fair
        self.shorter = shorter
        self.hints_per_address = hints_per_address
        self.claims_per_address = claims_per_address
        self._claims_of: Counter[str] = Counter()  # claims being worked out, by address
        self._run = run
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        # Waiting searches: owner -> table -> searches, each dict in turn order.
        self._waiting: dict[str, dict[str, deque[_Job]]] = {}
        self._arrivals: deque[_Job] = deque()  # the same searches in arrival order (fair=False)
        self.waiting = 0
        self.running = 0
        self._running_of: Counter[str] = Counter()
        self._served: dict[str, int] = {}  # owner -> the turn it was last served
        self._turn = 0
        self._hints: dict[str, _Job] = {}  # hints waiting or being worked out, by their seed
        self._hints_of: Counter[str] = Counter()
        self._answers: OrderedDict[str, Hint | None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    # --- Asking ---

    async def choose(
        self,
        level: str,
        options: dict[str, Any],
        obs: Observation,
        seed: str,
        *,
        owner: str = "",
        table: str = "",
    ) -> Action:
        """A searching bot's action; ``options["seconds"]`` is its think when
        nobody waits (cut under load)."""
        options = dict(options)
        seconds = options.pop("seconds", None)
        job = self._job(owner, table, _choose, (level, options, obs, seed), seconds)
        action: Action = await self._wait(job)
        return action

    async def hint(
        self, obs: Observation, seed: str, seconds: float, *, owner: str = "", table: str = ""
    ) -> Hint | None:
        """The expert's hint for ``obs``; ``TableError`` (code ``busy``) when
        ``owner`` already has ``hints_per_address`` hints on the way."""
        if seed in self._answers:
            self._answers.move_to_end(seed)
            return self._answers[seed]
        job = self._hints.get(seed)
        if job is not None:
            job.waiters += 1
        else:
            if self._hints_of[owner] >= self.hints_per_address:
                raise TableError(
                    "Too many hints are being worked out for you at once: ask again in a moment.", "busy"
                )
            job = self._job(owner, table, _hint, (obs, seed), seconds)
            self._hints[seed] = job
            self._hints_of[owner] += 1
            job.future.add_done_callback(lambda future: self._hint_done(seed, owner, future))
        found: Hint | None = await self._wait(job)
        return found

    async def work(self, call: Callable[..., Any], *args: Any, owner: str = "", table: str = "") -> Any:
        """``call(*args)`` where the searches run (a worker process under
        ``ohhell serve``), in ``owner``'s turn; ``call`` is a module's
        function (a worker process imports it) that ends by itself."""
        job = self._job(owner, table, _untimed, (call, *args), None)
        return await self._wait(job)

    @contextlib.contextmanager
    def claiming(self, owner: str) -> Iterator[None]:
        """One claim of ``owner``'s being worked out (its searches go through
        ``work``); ``TableError`` (code ``busy``) when ``owner`` already has
        ``claims_per_address`` on the way."""
        if self._claims_of[owner] >= self.claims_per_address:
            raise TableError(
                "Too many of your claims are being worked out at once: claim again in a moment.", "busy"
            )
        self._claims_of[owner] += 1
        try:
            yield
        finally:
            self._claims_of[owner] -= 1
            if self._claims_of[owner] <= 0:
                del self._claims_of[owner]

    def _hint_done(self, seed: str, owner: str, future: asyncio.Future[Any]) -> None:
        self._hints.pop(seed, None)
        self._hints_of[owner] -= 1
        if self._hints_of[owner] <= 0:
            del self._hints_of[owner]
        if not future.cancelled() and future.exception() is None:
            self._answers[seed] = future.result()
            while len(self._answers) > HINTS_REMEMBERED:
                self._answers.popitem(last=False)

    def _job(
        self, owner: str, table: str, call: Callable[..., Any], args: tuple[Any, ...], seconds: float | None
    ) -> _Job:
        owner = owner or f"table {table}"
        job = _Job(owner, table, call, args, seconds, asyncio.get_running_loop().create_future())
        self._waiting.setdefault(owner, {}).setdefault(table, deque()).append(job)
        self._arrivals.append(job)
        self.waiting += 1
        self._pump()
        return job

    async def _wait(self, job: _Job) -> Any:
        try:
            # Shielded: a hint asked for twice has two waiters, and one of
            # them going away must not cancel the other's answer.
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            job.waiters -= 1
            if job.waiters <= 0 and not job.started and not job.future.done():
                self._drop(job)  # nobody wants it any more: it gives up its place
            raise

    def _drop(self, job: _Job) -> None:
        tables = self._waiting.get(job.owner, {})
        jobs = tables.get(job.table)
        if jobs is not None and job in jobs:
            jobs.remove(job)
            self._arrivals.remove(job)
            self.waiting -= 1
            if not jobs:
                del tables[job.table]
            if not tables:
                self._waiting.pop(job.owner, None)
                self._forget(job.owner)
        job.future.cancel()

    # --- Whose turn ---

    def _next(self) -> _Job:
        """Take the next search to start (one is waiting)."""
        if self.fair:
            # The owner with the fewest searches running, then the one served
            # longest ago (an owner with nothing on the way for a while is new).
            owner = min(self._waiting, key=lambda o: (self._running_of[o], self._served.get(o, -1)))
        else:
            owner = self._arrivals[0].owner
        tables = self._waiting[owner]
        table = next(iter(tables)) if self.fair else self._arrivals[0].table
        jobs = tables.pop(table)
        job = jobs.popleft()
        if jobs:
            tables[table] = jobs  # back of the owner's rotation
        if not tables:
            del self._waiting[owner]
        self._arrivals.remove(job)
        self.waiting -= 1
        self._turn += 1
        self._served[owner] = self._turn
        return job

    def think_for(self, seconds: float | None) -> float | None:
        """A search's time now: ``seconds`` when a worker is free for every
        search that wants one, else ``seconds`` divided by that load, so the
        queue clears in about one think (at least ``SHORTEST_THINK``)."""
        if seconds is None or not self.shorter:
            return seconds
        load = (self.waiting + self.running + 1) / self.slots
        if load <= 1:
            return seconds
        return max(min(seconds, SHORTEST_THINK), seconds / load)

    def _pump(self) -> None:
        while self.running < self.slots and self.waiting:
            job = self._next()
            seconds = self.think_for(job.seconds)
            job.started = True
            metrics.thinking_wait_seconds.observe(time.monotonic() - job.asked)
            self.running += 1
            self._running_of[job.owner] += 1
            task = asyncio.get_running_loop().create_task(self._work(job, seconds))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _work(self, job: _Job, seconds: float | None) -> None:
        start = time.monotonic()
        try:
            result = await self._execute(job.call, seconds, *job.args)
        except asyncio.CancelledError:
            job.future.cancel()
            raise
        except BaseException as err:
            if not job.future.done() and job.waiters > 0:
                job.future.set_exception(err)
            elif not job.future.done():
                job.future.cancel()
        else:
            if not job.future.done():
                job.future.set_result(result)
        finally:
            metrics.thinking_seconds.observe(time.monotonic() - start)
            self.running -= 1
            self._running_of[job.owner] -= 1
            if self._running_of[job.owner] <= 0:
                del self._running_of[job.owner]
                if job.owner not in self._waiting:
                    self._forget(job.owner)
            with contextlib.suppress(RuntimeError):  # the loop is closing
                self._pump()

    def _forget(self, owner: str) -> None:
        if owner not in self._running_of:
            self._served.pop(owner, None)

    async def _execute(self, call: Callable[..., Any], *args: Any) -> Any:
        if self._run is not None:
            return await self._run(call, *args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), call, *args)

    def _executor(self) -> concurrent.futures.Executor | None:
        if not self.workers:
            return None  # the loop's default thread pool
        if self._pool is None:
            # Spawned, not forked: a fork of a running server copies its
            # threads' locks in whatever state they are.
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    # --- Stopping ---

    def close(self) -> None:
        """Drop every waiting search and end the workers now: a worker in the
        middle of a search is terminated, one that lingers is killed."""
        for job in list(self._arrivals):
            self._drop(job)
        for task in list(self._tasks):
            task.cancel()
        pool, self._pool = self._pool, None
        if pool is not None:
            stop_pool(pool)


def stop_pool(pool: concurrent.futures.ProcessPoolExecutor, grace: float = STOP_GRACE) -> None:
    """End a pool's workers now: a worker in the middle of its work is
    terminated, one that lingers past ``grace`` seconds is killed."""
    processes = list(pool._processes.values())  # the executor has no public way to stop a busy worker
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(1.0)


__all__ = [
    "CLAIMS_PER_ADDRESS",
    "HINTS_PER_ADDRESS",
    "SHORTEST_THINK",
    "Thinkers",
    "default_workers",
    "start_worker",
    "stop_pool",
    "work_owner",
]
