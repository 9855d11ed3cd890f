"""Post-game reviews at the server: ask for one, follow it, read it (docs/web.md, "Review").

A review (``ohhell.analysis``) prices every bid, trump choice and card of a
match from the deciding seat's own view, and what each hand's cards were
worth. It takes tens of seconds of search, so it never runs while a
request waits:

- ``POST /api/tables/{table}/review`` begins the review of a finished table
  (or answers where it stands); ``GET`` on the same path only answers. Both
  go to the process holding the table (app.py's ``_at_table``, so they work
  under ``ohhell serve --workers`` too), which checks that the match is over
  (never before: a running match's record holds cards nobody may see yet)
  and that the asker holds a seat of the table or the table is public.
- ``POST /api/review`` begins the review of a record sent by the replay
  page; ``GET /api/review`` answers where it stands for whoever holds the
  review's key (``Authorization: Bearer KEY``).

A review's key is a hash of its record's text (``review_key``), given in
every answer, and only to those who may see the review: who sent the
record, and at a table who holds a seat (or anyone, at a public table).
Without the record nobody can make it, and the review is stored under a
hash of the key (``review_name``), so neither the record's digest (which a
review holds, and which anybody who saw the review knows) nor a name seen in
the database or a log opens it: a private table's review goes only to those
who had its record. The key travels in a header, never in an address,
since addresses get logged.

The search holds the interpreter's lock, so a review runs whole in a worker
process (spawned when first needed, at a lower priority than the server, and
ended with it), never in a thread beside the event loop: the event loop only
reads its progress and stores its result. A review is bounded in time
(``seconds``), an address has one under way at a time (made or waiting), and
an address may begin ``Quotas`` "reviews" in a window; each refusal is a 429
in plain words.

At most ``at_once`` reviews are made together on a process; others wait in
line, in the order asked (up to ``REVIEWS_WAITING``, then a 429), and each
answer says how many are before them. A long record (more than
``LONG_LINES`` lines: longer than any usual match) may hold only
``at_once - 1`` of the places (at least one), so a few long records, each
taking up to ``seconds``, never take every place from everybody else: a
usual match waiting behind them goes first.

Each review is kept in the database (``ohhell_reviews``) under its name,
from the moment it begins: a review asked for again is served from
there at once (a restart keeps it), its progress is readable by every
process, and two processes cannot review the same record at once (the row's
primary key). A stored review of another format (``ohhell.analysis.FORMAT``)
counts as failed, so asking again makes a new one. In-process tests, which
think in threads, review in threads too (with a tiny budget).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import logging
import multiprocessing
import os
import queue
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ... import RecordError, dumps, loads, most_actions
from ...analysis import FORMAT, Budget, ReviewTimeout, review_record
from ..errors import TableError
from ..tables.thinking import start_worker, stop_pool
from .guard import Quotas, client_address
from .replays import MAX_RECORD
from .requests import guarded, json_body, read_body

if TYPE_CHECKING:
    from ..storage.store import Store
    from ..tables.table import LiveTable

log = logging.getLogger("ohhell.web")

Json = dict[str, Any]

REVIEWS_AT_ONCE: Final = 2  # reviews made together on one server process
REVIEWS_PER_ADDRESS: Final = 1  # reviews one address may have under way at once, made or waiting
REVIEWS_WAITING: Final = 32  # reviews waiting for their turn on one server process; then refused
LONG_LINES: Final = 1500  # a record longer than this (a usual match has under 700) is a long review
TOUCH_EVERY: Final = 30.0  # seconds between writes that say a waiting review is still there (< STALE)
REVIEW_SECONDS: Final = 300.0  # a review still going after this long is stopped
REVIEW_SEED: Final = 1  # the seed ``ohhell review`` uses by default: the same record, the same review
PROGRESS_EVERY: Final = 1.0  # seconds between a review's progress written to the database
STALE: Final = 120.0  # a review marked running but silent this long was left by a process that stopped
UPLOADS_KEPT: Final = 7 * 24 * 3600.0  # seconds the review of a record sent by a page is kept
FINISHED: Final = ("over", "ended")
OUTDATED: Final = "This review was made by an earlier version of the server: ask again for a new one."
HEX: Final = frozenset("0123456789abcdef")
KEY_SALT: Final = b"ohhell review key\n"  # so a review's key is no other hash of its record

Runner = Callable[..., Awaitable[tuple[bool, str]]]
"""Runs ``review_work(*args)`` somewhere and returns its result (tests bring their own)."""

_SINK: Callable[[Any], None] | None = None
"""In a worker process: where a review's progress goes (the server's queue)."""


# --- In a worker ---


def _worker_start(parent: int, progress: Any) -> None:
    global _SINK
    _SINK = progress.put
    # A review waits rather than take the CPU from the event loop and the
    # bots' thinking on a busy machine.
    with contextlib.suppress(OSError):
        os.nice(10)
    start_worker(parent)  # gone with its server; the search compiled once


def review_key(text: str) -> str:
    """The key of the review of a record, from its text as ``ohhell.dumps``
    writes it: only someone who had the record (or was given the key by a
    route that checked they may see the review) holds it."""
    return hashlib.sha256(KEY_SALT + text.encode()).hexdigest()


def review_name(key: str) -> str:
    """What the review whose key is ``key`` is stored under (the key itself never is)."""
    return hashlib.sha256(key.encode()).hexdigest()


def read_record(raw: bytes) -> tuple[bool, str, str]:
    """A record sent to be reviewed: (True, its review's key, its text as
    ``ohhell.dumps`` writes it), or (False, why it was refused, ""). Runs in a worker."""
    try:
        record = loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False, "the record is not UTF-8 text", ""
    except RecordError as err:
        return False, f"the record cannot be read: {err}", ""
    limit = most_actions(record.rules)
    if len(record.actions) > limit:
        return False, f"the record has {len(record.actions)} actions; a match has at most {limit}", ""
    try:
        record.replay()
    except RecordError as err:
        return False, f"the record cannot be replayed: {err}", ""
    text = dumps(record)
    return True, review_key(text), text


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"


def review_work(
    name: str,
    text: str,
    seed: int,
    budget: dict[str, int],
    seconds: float,
    sink: Callable[[Any], None] | None = None,
) -> tuple[bool, str]:
    """One review, start to end: (True, the review's JSON) or (False, why
    not, in words). Its progress goes to ``sink`` (a thread) or the worker's
    queue, ``(name, {"done", "total", "hands_done", "hands"})``, at most
    twice a second."""
    put = sink or _SINK
    last = 0.0

    def progress(p: Any) -> None:
        nonlocal last
        now = time.monotonic()
        if put is not None and (now - last >= 0.5 or p.done == p.total):
            last = now
            put((name, {"done": p.done, "total": p.total, "hands_done": p.hands_done, "hands": p.hands}))

    try:
        review = review_record(
            loads(text), seed=seed, budget=Budget.from_json(budget), progress=progress, max_seconds=seconds
        )
    except ReviewTimeout:
        return False, (
            f"The review took longer than {_duration(seconds)} and was stopped: "
            "this match is too long to review here."
        )
    except RecordError as err:
        return False, f"The record cannot be replayed: {err}"
    return True, json.dumps(review.to_json(), separators=(",", ":"))


# --- On the server ---


def is_current(text: str) -> bool:
    """Is a stored review's JSON of the format this server makes? (``review_work``
    writes the format first, so the text's start says so without reading it all.)"""
    if text.startswith('{"format":' + json.dumps(FORMAT) + ","):
        return True
    try:
        return bool(json.loads(text).get("format") == FORMAT)
    except (ValueError, AttributeError):
        return False


def answer_text(key: str, state: str, **fields: Any) -> str:
    """A review's state as the routes answer it (``review`` is JSON text already)."""
    review = fields.pop("review", None)
    head = json.dumps({"status": state, "key": key, **fields})
    return head if review is None else f'{head[:-1]}, "review": {review}}}'


@dataclasses.dataclass(eq=False)
class _Job:
    name: str
    key: str
    address: str
    long: bool  # a long record: it may not take the last place (module docstring)
    progress: dict[str, int] | None = None
    stored: dict[str, int] | None = None  # the progress last written to the database
    stored_at: float = 0.0  # when (time.monotonic())
    started: bool = False  # being made (else waiting for its turn)


class Reviews:
    """The reviews of one server process; see the module docstring. ``run``
    replaces the workers (tests: a review that ends when the test says)."""

    def __init__(
        self,
        quotas: Quotas,
        *,
        budget: Budget,
        seconds: float = REVIEW_SECONDS,
        at_once: int = REVIEWS_AT_ONCE,
        processes: bool,
        run: Runner | None = None,
    ) -> None:
        self.quotas = quotas
        self.budget = budget
        self.seconds = seconds
        self.at_once = at_once
        self.processes = processes
        self.run = run
        self.store: Store | None = None  # the server's, once it has started
        self.jobs: dict[str, _Job] = {}  # reviews under way here (made or waiting), by name
        self.waiting: list[_Job] = []  # reviews waiting for their turn, in the order asked
        self._freed = asyncio.Event()  # set (and replaced) when a review ends: the next one may begin
        self.begun = 0  # reviews this process has begun (a review served from the store begins none)
        self._of_address: Counter[str] = Counter()
        self._reading: set[str] = set()  # addresses whose record is being read
        # table -> its version, its review's key and its record's text (see _record_of)
        self._records: OrderedDict[str, tuple[int, str, str]] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._queue: Any = None if processes else queue.SimpleQueue()

    # --- A table's review (on the process that holds the table) ---

    async def at_table(self, table: LiveTable, begin: bool, token: str | None, address: str) -> Json:
        """``POST`` (``begin``) or ``GET /api/tables/{table}/review``, as an
        answer for app.py's ``_at_table``: ``{"status", "raw"}``."""
        if table.status not in FINISHED:
            # The record of a match under way holds every hand still being
            # played: nothing of it is analysed before the end, for anyone.
            raise TableError(
                "A match can be reviewed once it is over: come back after its last hand.", status=409
            )
        if table.seat_of_token(token) is None and not table.listed:
            raise TableError(
                "Only the players of this table can see its review: it is not a public table.", status=403
            )
        key, text = self._record_of(table)
        if begin:
            status, body = await self._begin(key, text, table.id, address, quota=True)
        else:
            status, body = 200, self._where(key)[1]
        return {"status": status, "raw": body}

    def _record_of(self, table: LiveTable) -> tuple[str, str]:
        """The review's key and the table's record as text, made once per
        version (a page polling a review asks for it every second)."""
        known = self._records.get(table.id)
        if known is None or known[0] != table.version:
            text = dumps(table.record())
            known = (table.version, review_key(text), text)
            self._records[table.id] = known
            while len(self._records) > 64:
                self._records.popitem(last=False)
        self._records.move_to_end(table.id)
        return known[1], known[2]

    # --- A record sent by the replay page ---

    async def upload(self, request: Request) -> Response:
        """``POST /api/review``: the body is the record's text."""
        address = client_address(request.scope)
        self.quotas.take("reviews", address)  # before any work on the body
        if address in self._reading:
            self.quotas.refused(address)
            raise TableError(
                "A record of yours is still being read: wait for it, then try again.", "busy", status=429
            )
        self._reading.add(address)
        try:
            raw = await read_body(request, MAX_RECORD, "the record")
            loop = asyncio.get_running_loop()
            # Reading a long record is seconds of work: off the event loop too.
            ok, key, text = await loop.run_in_executor(self._executor(), read_record, raw)
        except BrokenProcessPool:
            self._drop_pool()
            raise TableError("The record could not be read; try again.", status=503) from None
        finally:
            self._reading.discard(address)
        if not ok:
            raise TableError(key)
        status, body = await self._begin(key, text, None, address, quota=False)
        return Response(body, status_code=status, media_type="application/json")

    async def show(self, request: Request) -> Response:
        """``GET /api/review``: where the review whose key the request holds
        (``Authorization: Bearer KEY``) stands."""
        key = (bearer(request) or "").lower()
        if len(key) != 64 or not set(key) <= HEX:
            raise TableError(
                "A review is found by the key given when it was asked for: send the record again.", status=404
            )
        return Response(self._where(key)[1], media_type="application/json")

    # --- Beginning one, and where it stands ---

    def _where(self, key: str) -> tuple[str, str]:
        """Where the review whose key is ``key`` stands: its state and the answer."""
        name = review_name(key)
        job = self.jobs.get(name)
        if job is not None:
            self._drain()
            return "running", answer_text(key, "running", progress=job.progress)
        assert self.store is not None
        row = self.store.review(name)
        if row is None:
            return "none", answer_text(key, "none")
        if row.state == "done" and row.text is not None and is_current(row.text):
            return "done", answer_text(key, "done", review=row.text)
        if row.state == "done":  # another format, as a cached review beside a record is ignored
            self._store(lambda s: s.end_review(name, "failed", OUTDATED))
            return "failed", answer_text(key, "failed", error=OUTDATED)
        if row.state == "running" and row.updated >= time.time() - STALE:
            return "running", answer_text(key, "running", progress=row.progress)  # on another process
        words = row.text if row.state == "failed" else "The review stopped before it was finished: ask again."
        return "failed", answer_text(key, "failed", error=words)

    async def _begin(
        self, key: str, text: str, table: str | None, address: str, quota: bool
    ) -> tuple[int, str]:
        """Begin the review whose key is ``key`` unless it is done or under
        way: (the status code, the answer)."""
        state, body = self._where(key)
        if state in ("running", "done"):
            return 200, body
        if self._of_address[address] >= REVIEWS_PER_ADDRESS:
            self.quotas.refused(address)
            raise TableError(
                "A review you asked for is still being made: wait for it to finish, then ask for another.",
                "busy",
                status=429,
            )
        if len(self.waiting) >= REVIEWS_WAITING:
            raise TableError(
                "The server has as many reviews waiting as it can: try again in a few minutes.",
                "busy",
                status=429,
            )
        if quota:
            self.quotas.take("reviews", address)
        assert self.store is not None
        name = review_name(key)
        if not self.store.begin_review(name, table, time.time() - STALE):
            return 200, self._where(key)[1]  # another process began it a moment ago
        job = self.jobs[name] = _Job(name, key, address, long=text.count("\n") > LONG_LINES)
        self.waiting.append(job)
        self._of_address[address] += 1
        self.begun += 1
        if self._may_begin(job):
            self._begins(job)  # now, so the next one asked already counts it
        else:
            job.progress = {"waiting": self._ahead(job)}
        task = asyncio.get_running_loop().create_task(self._work(job, text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return 202, answer_text(key, "running", progress=job.progress)

    # --- The line ---

    def _could_begin(self, job: _Job) -> bool:
        """Is there a place for ``job`` now, whoever is before it?"""
        made = [j for j in self.jobs.values() if j.started]
        if len(made) >= self.at_once:
            return False
        return not job.long or sum(j.long for j in made) < max(1, self.at_once - 1)

    def _may_begin(self, job: _Job) -> bool:
        """Is it ``job``'s turn: a place for it, and none for anyone before it?"""
        for before in self.waiting:
            if before is job:
                return self._could_begin(job)
            if self._could_begin(before):
                return False
        return False

    def _ahead(self, job: _Job) -> int:
        """How many reviews are before ``job``: being made, or waiting before it."""
        made = sum(j.started for j in self.jobs.values())
        return made + (self.waiting.index(job) if job in self.waiting else 0)

    async def _turn(self, job: _Job) -> None:
        """Wait for ``job``'s turn, telling the database where it stands."""
        if job.started:
            return
        while not self._may_begin(job):
            job.progress = {"waiting": self._ahead(job)}
            now = time.monotonic()
            if job.progress != job.stored or now - job.stored_at >= TOUCH_EVERY:
                self._store(lambda s: s.review_progress(job.name, job.progress or {}))
                job.stored, job.stored_at = job.progress, now
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._freed.wait(), PROGRESS_EVERY)
        self._begins(job)

    def _begins(self, job: _Job) -> None:
        """``job`` takes a place: out of the line, to be made now."""
        self.waiting.remove(job)
        job.started = True
        job.progress = None
        if job.stored is not None:  # other processes read "waiting" until told it began
            self._store(lambda s: s.review_progress(job.name, {}))
            job.stored = None

    async def _work(self, job: _Job, text: str) -> None:
        args = (job.name, text, REVIEW_SEED, self.budget.to_json(), self.seconds)
        try:
            await self._turn(job)
            if self.run is not None:
                future: asyncio.Future[tuple[bool, str]] = asyncio.ensure_future(self.run(review_work, *args))
            else:
                sink = None if self.processes else self._queue.put
                loop = asyncio.get_running_loop()
                future = loop.run_in_executor(self._executor(), review_work, *args, sink)
            while not future.done():
                await asyncio.wait({future}, timeout=PROGRESS_EVERY)
                self._drain()
                if job.progress is not None and job.progress != job.stored and not future.done():
                    self._store(lambda s: s.review_progress(job.name, job.progress or {}))
                    job.stored = job.progress
            ok, words = future.result()
        except asyncio.CancelledError:
            raise  # the server is stopping: close() has told the database
        except BrokenProcessPool:
            self._drop_pool()
            ok, words = False, "The review could not be finished (a worker of the server stopped): ask again."
        except Exception:
            log.exception("the review %s failed", job.name)
            ok, words = False, "The review failed on the server; it has been logged."
        self._end(job, "done" if ok else "failed", words)

    def _end(self, job: _Job, state: str, text: str) -> None:
        self._store(lambda s: s.end_review(job.name, state, text))
        if job in self.waiting:
            self.waiting.remove(job)
        # Whoever waits looks again at once (a fresh event for the next end).
        freed, self._freed = self._freed, asyncio.Event()
        freed.set()
        if self.jobs.get(job.name) is job:
            del self.jobs[job.name]
            self._of_address[job.address] -= 1
            if self._of_address[job.address] <= 0:
                del self._of_address[job.address]

    def _store(self, write: Callable[[Store], object]) -> None:
        if self.store is None:
            return
        try:
            write(self.store)
        except Exception:  # a database that refuses a write loses a review, not the server
            log.exception("could not store a review")

    def _drain(self) -> None:
        """Take the progress the workers sent since the last look."""
        if self._queue is None:
            return
        while True:
            try:
                name, progress = self._queue.get_nowait()
            except queue.Empty:
                return
            except (OSError, ValueError, EOFError):  # the queue closed with its workers
                return
            job = self.jobs.get(name)
            if job is not None and job.started:
                job.progress = progress

    def _executor(self) -> concurrent.futures.Executor | None:
        if not self.processes:
            return None  # the loop's default thread pool
        if self._pool is None:
            # Spawned, not forked: a fork of a running server copies its
            # threads' locks in whatever state they are. One worker more than
            # reviews at once, so a record sent to be read never waits behind them.
            context = multiprocessing.get_context("spawn")
            self._queue = context.Queue()
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.at_once + 1,
                mp_context=context,
                initializer=_worker_start,
                initargs=(os.getpid(), self._queue),
            )
        return self._pool

    def _drop_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    # --- Housekeeping ---

    def sweep(self) -> None:
        """Delete the reviews of sent records nobody asked for in ``UPLOADS_KEPT``."""
        self._store(lambda s: s.expire_reviews(time.time() - UPLOADS_KEPT))

    def close(self) -> None:
        """Stop every review now (the database says so; asked again, it
        begins again) and end the workers, even in the middle of a review."""
        for job in list(self.jobs.values()):
            self._end(job, "failed", "The server stopped before the review was finished: ask again.")
        for task in list(self._tasks):
            task.cancel()
        pool, self._pool = self._pool, None
        if pool is None:
            return
        stop_pool(pool)
        with contextlib.suppress(Exception):
            self._queue.close()
            self._queue.cancel_join_thread()


# --- Routes ---

AtTable = Callable[[Request, str, Json | None], Awaitable[Response]]


def bearer(request: Request) -> str | None:
    """The seat's token of a ``GET`` (``Authorization: Bearer TOKEN``): a
    token in the address would end up in logs and the browser's history."""
    words = request.headers.get("authorization", "").split()
    if len(words) == 2 and words[0].lower() == "bearer" and len(words[1]) < 200:
        return words[1]
    return None


def review_routes(reviews: Reviews, at_table: AtTable) -> list[Route]:
    """The review routes, to add to ``create_app``'s; ``at_table`` sends a
    table's request to the process that holds the table."""

    async def begin(request: Request) -> Response:
        data = await json_body(request)
        token = data.get("token")
        return await at_table(request, "review", {"token": token if isinstance(token, str) else None})

    async def status(request: Request) -> Response:
        return await at_table(request, "review-status", {"token": bearer(request)})

    return [
        Route("/api/tables/{table}/review", guarded(begin), methods=["POST"]),
        Route("/api/tables/{table}/review", guarded(status), methods=["GET"]),
        Route("/api/review", guarded(reviews.upload), methods=["POST"]),
        Route("/api/review", guarded(reviews.show), methods=["GET"]),
    ]


__all__ = [
    "REVIEWS_AT_ONCE",
    "REVIEW_SECONDS",
    "Reviews",
    "answer_text",
    "bearer",
    "read_record",
    "review_key",
    "review_name",
    "review_routes",
    "review_work",
]
