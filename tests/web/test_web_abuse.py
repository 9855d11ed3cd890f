"""Abuse over HTTP, bounded (docs/web.md, "Limits"): slow request bodies,
the list of open tables emptied or crowded out, replays from one address,
and numbers too large for a float.

Each test here failed on the server before these limits. The transport's
tests run ``ohhell serve``'s uvicorn in a process of its own on 127.0.0.1
and speak raw HTTP from loopback addresses (127.0.0.x) with small limits, and
wait for what the server says (a ``100 Continue`` proves a request's head is
in), never for time to pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from limits import parse
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request
from starlette.testclient import TestClient
from web_support import make_app

from ohhell.bots.simulate import random_match
from ohhell.record import Record, dumps
from ohhell.rules import make_rules
from ohhell.web.app import Limits
from ohhell.web.serving.guard import FLOOD, Quotas, WindowStorage
from ohhell.web.serving.replays import Replays
from ohhell.web.storage.store import Store
from ohhell.web.tables.lobby import LISTED, PER_CREATOR, PER_NAME, creator_key
from ohhell.web.tables.table import TableError

Json = dict[str, Any]

# --- A server of its own, and raw HTTP from chosen loopback addresses ---

SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import create_app
run(create_app(sys.argv[1], think_workers=int(sys.argv[3])), "127.0.0.1", int(sys.argv[2]),
    head_timeout=30, body_timeout=float(sys.argv[4]), per_address=8, requests_per_address=3,
    limit_concurrency=12)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(tmp_path: Path, *, think_workers: int = 0, body_timeout: float = 30.0) -> Iterator[int]:
    """``ohhell serve``'s uvicorn in a process of its own: at most 3 requests
    in flight per address, 12 connections in all (uvicorn's 503 after that)."""
    port = _free_port()
    db = f"sqlite:///{tmp_path / 'abuse.db'}"
    command = [sys.executable, "-c", SERVER, db, str(port), str(think_workers), str(body_timeout)]
    proc = subprocess.Popen(command)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _open(port: int, address: str) -> socket.socket:
    s = socket.socket()
    s.settimeout(20)  # a hung server fails the test instead of hanging it
    s.bind((address, 0))
    s.connect(("127.0.0.1", port))
    return s


def _head(path: str, length: int, *, expect: bool = True) -> bytes:
    """A POST's head declaring ``length`` bytes of body; with ``expect``, the
    server says ``100 Continue`` when the route starts reading the body."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {length}\r\n{'Expect: 100-continue' + chr(13) + chr(10) if expect else ''}\r\n"
    ).encode()


def _answer(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer else 0


def _get(port: int, address: str, path: str = "/api/options") -> int:
    with _open(port, address) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return _status(_answer(s))


CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def _continued(s: socket.socket) -> None:
    """Read the server's ``100 Continue`` (and nothing after it): the route
    has begun to read the body, so the request's head is in."""
    seen = b""
    while len(seen) < len(CONTINUE):
        chunk = s.recv(len(CONTINUE) - len(seen))
        assert chunk, f"closed after {seen!r}"
        seen += chunk
    assert seen == CONTINUE


def _started_slow_body(port: int, address: str, path: str = "/api/tables") -> socket.socket:
    """A request whose head is in and whose body trickles: it returns once
    the route is reading the body."""
    s = _open(port, address)
    s.sendall(_head(path, 1000))
    _continued(s)
    s.sendall(b"x")
    return s


# --- 1. Slow request bodies ---


def test_slow_bodies_from_one_address_cannot_fill_the_server(tmp_path: Path) -> None:
    # 12 connections in all: before the per-address cap, one address's 12
    # slow bodies filled uvicorn's limit and every other visitor got 503.
    with serving(tmp_path) as port, contextlib.ExitStack() as stack:
        slow = [stack.enter_context(_started_slow_body(port, "127.0.0.1")) for _ in range(3)]
        for _ in range(9):  # more, from the same address: refused at once, and closed
            with _open(port, "127.0.0.1") as s:
                s.sendall(_head("/api/tables", 1000, expect=False) + b"x")
                answer = _answer(s)
                assert _status(answer) == 429 and b"too many requests at once" in answer
        assert _get(port, "127.0.0.2") == 200  # another address is served
        assert _get(port, "127.0.0.2", "/") == 200
        for s in slow:  # the three are still being served: none was cut off
            s.sendall(b"x")
        slow[0].sendall(b"x" * 998)  # one finishes its body: a bad record, a clear 400
        assert _status(_answer(slow[0])) == 400
        assert _get(port, "127.0.0.1") == 200  # a request of its own fits again


def test_an_address_that_keeps_asking_past_its_cap_is_held_off(tmp_path: Path) -> None:
    with serving(tmp_path) as port, contextlib.ExitStack() as stack:
        for _ in range(3):
            stack.enter_context(_started_slow_body(port, "127.0.0.3"))
        for _ in range(FLOOD):
            with _open(port, "127.0.0.3") as s:
                s.sendall(b"GET /api/options HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                assert _status(_answer(s)) == 429
        with _open(port, "127.0.0.3") as s:
            assert s.recv(100) == b""  # held off: closed before any answer
        assert _get(port, "127.0.0.4") == 200


def test_a_body_has_a_time_limit_and_a_size_limit(tmp_path: Path) -> None:
    with serving(tmp_path, body_timeout=2.0) as port:
        with _started_slow_body(port, "127.0.0.5") as s:
            # Nothing more comes: answered 408 and closed after the body
            # timeout (it stayed open for as long as the client liked).
            answer = _answer(s)
            assert _status(answer) == 408
        with _open(port, "127.0.0.5") as s:  # a declared size past the largest body: 413 unread
            s.sendall(_head("/api/replay", 50 * 1024 * 1024, expect=False))
            assert _status(_answer(s)) == 413
        with _open(port, "127.0.0.5") as s:  # a chunked body past it: cut off (413 if it gets there)
            s.sendall(b"POST /api/replay HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            with contextlib.suppress(ConnectionError):
                for _ in range(40):
                    s.sendall(b"10000\r\n" + b"x" * 0x10000 + b"\r\n")
            # Closed with the rest unread, the server's kernel may reset the
            # connection before its 413 is read; either way it ends.
            with contextlib.suppress(ConnectionResetError):
                assert _status(_answer(s)) == 413
        assert _get(port, "127.0.0.5") == 200


def test_a_refused_upload_is_answered_then_read_and_dropped_never_reset(tmp_path: Path) -> None:
    # A balancer in front takes a reset for a failed server and stops
    # sending it the others' requests: a body too large is refused with 413,
    # and what is left of it is read and dropped, so the client sends it all
    # and then reads the answer and a clean end.
    body = b"x" * (1024 * 1024 + 100 * 1024)
    with serving(tmp_path) as port:
        for _ in range(3):
            with _open(port, "127.0.0.6") as s:
                s.sendall(_head("/api/replay", len(body), expect=False) + body)  # no reset midway
                s.shutdown(socket.SHUT_WR)
                assert _status(_answer(s)) == 413
        assert _get(port, "127.0.0.6") == 200


def test_a_request_head_past_its_limit_is_refused_without_being_held_whole(tmp_path: Path) -> None:
    from ohhell.web.serving.transport import MAX_HEAD

    with serving(tmp_path) as port:
        with _open(port, "127.0.0.7") as s:
            s.sendall(b"GET /api/options HTTP/1.1\r\nHost: x\r\nX-Big: ")
            sent = 0
            with contextlib.suppress(ConnectionError):
                while sent < 64 * MAX_HEAD:  # 4 MiB of one header line, if the server took it all
                    s.sendall(b"y" * 65536)
                    sent += 65536
            assert sent < 64 * MAX_HEAD  # cut off long before
            with contextlib.suppress(ConnectionResetError):
                answer = _answer(s)
                assert answer == b"" or _status(answer) == 431
        # A head within the limit is served.
        with _open(port, "127.0.0.7") as s:
            s.sendall(
                b"GET /api/options HTTP/1.1\r\nHost: x\r\nX-Fine: "
                + b"z" * 30_000
                + b"\r\nConnection: close\r\n\r\n"
            )
            assert _status(_answer(s)) == 200


# --- 2. Open tables: full ones left out first, then a cap per address and per name ---


def by_address(app: Any) -> Any:
    """``app`` with the client's address taken from an ``x-test-address``
    header (the TestClient's is always "testclient")."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        for key, value in scope.get("headers", ()):
            if key == b"x-test-address":
                scope = {**scope, "client": (value.decode(), 1)}
        await app(scope, receive, send)

    return wrapped


@pytest.fixture
def lobby_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(by_address(make_app(str(tmp_path / "l.db")))) as client:
        yield client


def _public(client: TestClient, address: str, name: str, *, full: bool = False) -> str:
    seats = ["human", "random", "random", "random"] if full else ["human", "human", "random", "random"]
    body = {"name": name, "public": True, "seats": seats, "options": {"hand-sizes": "1"}}
    r = client.post("/api/tables", json=body, headers={"x-test-address": address})
    assert r.status_code == 200, r.text
    table: str = r.json()["table"]
    return table


def _listed(client: TestClient) -> list[Json]:
    tables: list[Json] = client.get("/api/lobby").json()["tables"]
    return tables


def test_full_tables_never_start_and_still_leave_room_on_the_list(lobby_client: TestClient) -> None:
    # Full tables used to be dropped after the newest LISTED were taken: as
    # many full tables that never start left the list empty for a day.
    waiting = _public(lobby_client, "10.1.0.1", "Ann")
    for i in range(LISTED + 5):
        _public(lobby_client, f"10.1.1.{i}", f"Full {i}", full=True)
    assert [t["table"] for t in _listed(lobby_client)] == [waiting]


def test_one_address_cannot_push_the_others_off_the_list(lobby_client: TestClient) -> None:
    real = _public(lobby_client, "10.2.0.1", "Ann")
    spam = [_public(lobby_client, "10.2.0.99", f"Spam {i}") for i in range(LISTED + 5)]
    listed = [t["table"] for t in _listed(lobby_client)]
    assert real in listed
    assert listed == [*spam[::-1][:PER_CREATOR], real]  # the newest three of the spam, newest first


def test_one_name_cannot_push_the_others_off_the_list(lobby_client: TestClient) -> None:
    real = _public(lobby_client, "10.3.0.1", "Ann")
    names = ["Bob", "bob", "BOB"]
    spam = [_public(lobby_client, f"10.3.1.{i}", names[i % 3]) for i in range(LISTED + 5)]
    listed = [t["table"] for t in _listed(lobby_client)]
    assert listed == [*spam[::-1][:PER_NAME], real]


def test_a_listed_table_keeps_its_creator_hashed(tmp_path: Path) -> None:
    with TestClient(by_address(make_app(str(tmp_path / "c.db")))) as client:
        table = _public(client, "10.4.0.1", "Ann")
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    try:
        assert store.setting(table, "creator") == creator_key("10.4.0.1") != "10.4.0.1"
    finally:
        store.close()


# --- 3. Replays: a quota, one at a time per address, in a worker process ---


def _record(hands: int = 2) -> bytes:
    rules = make_rules("pagat", {"players": "4", "sequence": "fixed", "fixed-hands": str(hands)})
    return dumps(Record.from_state(random_match(rules, random.Random(5)))).encode()


def test_one_address_replays_one_record_at_a_time_and_others_are_served(tmp_path: Path) -> None:
    record = _record()
    with serving(tmp_path, think_workers=1) as port, _open(port, "127.0.0.6") as first:
        first.sendall(_head("/api/replay", len(record)))
        _continued(first)  # its replay is being made
        with _open(port, "127.0.0.6") as second:
            second.sendall(_head("/api/replay", len(record), expect=False) + record)
            answer = _answer(second)
            assert _status(answer) == 429 and b"still being made" in answer
        with _open(port, "127.0.0.7") as other:  # another address: replayed (in a worker process)
            other.sendall(_head("/api/replay", len(record), expect=False) + record)
            answer = _answer(other)
            assert _status(answer) == 200 and b'"frames"' in answer
        first.sendall(record)
        assert _status(_answer(first)) == 200


def test_replays_have_a_quota_per_address(tmp_path: Path) -> None:
    record = _record()
    limits = Limits(create=None, replays="2/minute")
    with TestClient(make_app(str(tmp_path / "q.db"), limits=limits)) as client:
        for _ in range(2):
            assert client.post("/api/replay", content=record).status_code == 200
        r = client.post("/api/replay", content=record)
        assert r.status_code == 429 and "too many replays" in r.json()["error"]


def test_a_replay_waits_for_no_other_address() -> None:
    # In-process (threads), the same rule as above, without sockets: while
    # one address's replay is made, its second is refused, another's is not.
    release = threading.Event()
    started = threading.Event()
    replays = Replays(Quotas(), processes=False)

    import ohhell.web.serving.replays as module

    real = module.replay_answer

    def slow_answer(raw: bytes) -> tuple[bool, bytes]:
        started.set()
        release.wait(20)
        return real(raw)

    def request(address: str, body: bytes) -> Request:
        sent = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> Json:
            return sent.pop(0) if sent else {"type": "http.disconnect"}

        scope = {"type": "http", "method": "POST", "headers": [], "client": (address, 1), "path": "/"}
        return Request(scope, receive)

    async def main() -> None:
        record = _record()
        module.replay_answer = slow_answer
        try:
            first = asyncio.create_task(replays.answer(request("10.0.0.1", record)))
            assert await asyncio.to_thread(started.wait, 20)
            with pytest.raises(TableError) as refused:
                await replays.answer(request("10.0.0.1", record))
            assert refused.value.status == 429 and "still being made" in str(refused.value)
            module.replay_answer = real
            other = await replays.answer(request("10.0.0.2", record))
            assert other.status_code == 200
            release.set()
            assert (await first).status_code == 200
        finally:
            module.replay_answer = real
            release.set()

    asyncio.run(main())


# --- 4. Numbers a float cannot hold ---


@pytest.mark.parametrize("clock", ["9" * 401, "-" + "9" * 401, "1e401", "NaN", "Infinity", "-Infinity"])
def test_a_clock_no_float_can_hold_is_a_400_naming_the_field(tmp_path: Path, clock: str) -> None:
    with TestClient(make_app(str(tmp_path / "n.db")), raise_server_exceptions=False) as client:
        body = '{"clock": ' + clock + "}"
        r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400, r.text
        assert r.json()["field"] == "clock" and len(r.json()["error"]) < 120


@pytest.mark.parametrize("field", ["players", "seat"])
def test_a_huge_whole_number_is_refused_without_echoing_it(tmp_path: Path, field: str) -> None:
    with TestClient(make_app(str(tmp_path / "w.db"))) as client:
        body = '{"' + field + '": ' + "9" * 401 + "}"
        r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and field in r.json()["error"] and len(r.json()["error"]) < 120
        made = client.post(
            "/api/tables", json={"seats": ["human", "human", "random"], "options": {"players": "3"}}
        )
        r = client.post(
            f"/api/tables/{made.json()['table']}/join",
            content='{"seat": ' + "9" * 401 + "}",
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 400 and len(r.json()["error"]) < 120


# --- The quotas' windows start no thread ---


def test_quotas_start_no_thread(monkeypatch: Any) -> None:
    # The limits library's MemoryStorage started a timer thread on nearly
    # every hit; each start waited for the interpreter's lock and stalled the
    # event loop under a flood (docs/performance.md, "Server under abuse").
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    quotas = Quotas("2/minute")
    for i in range(200):
        quotas.take("tables", f"10.5.0.{i}")
    quotas.take("tables", "10.5.0.0")
    with pytest.raises(TableError):
        quotas.take("tables", "10.5.0.0")  # the third in a minute
    assert started == []


def test_the_windows_forget_addresses_whose_window_passed() -> None:
    now = [1000.0]
    storage = WindowStorage(now=lambda: now[0])
    limiter = MovingWindowRateLimiter(storage)
    item = parse("2/minute")
    for i in range(500):
        assert limiter.hit(item, f"10.6.0.{i}")
    assert limiter.hit(item, "10.6.0.0") and not limiter.hit(item, "10.6.0.0")
    now[0] += 61
    assert limiter.hit(item, "10.6.0.0")  # its window has passed: allowed again
    for i in range(300):
        limiter.hit(item, f"10.7.0.{i}")
    # Each hit forgets up to two addresses whose window has passed: by now
    # only those used in the last minute are kept.
    assert len(storage._events) == 301
