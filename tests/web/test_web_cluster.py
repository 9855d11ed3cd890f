"""Several ``ohhell serve`` processes on one PostgreSQL database and one
Redis (web/cluster/broker.py, web/cluster/relay.py), as real processes on loopback.

These run when ``OHHELL_TEST_POSTGRES`` and ``OHHELL_TEST_REDIS`` name the
servers (CI sets both) and skip with the reason otherwise. The processes
and clients are bench/failover.py's, so the suite runs one failover the way
the benchmark runs twenty.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from typing import Any

import pytest

from support import bench_script

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")

pytestmark = pytest.mark.skipif(
    not (POSTGRES and REDIS),
    reason="set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS to test several server processes",
)


@pytest.fixture
def bench() -> Any:
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    return bench_script("failover")


@pytest.fixture
def db(bench: Any) -> Iterator[str]:
    schema = bench.Schema(POSTGRES)
    try:
        yield schema.url
    finally:
        schema.drop()


async def _states(ws: Any, into: list[dict[str, Any]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            message = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
        except TimeoutError:
            continue
        into.append(message)


async def _until(check: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_a_client_on_one_process_sees_an_action_made_on_the_other(bench: Any, db: str) -> None:
    from websockets.asyncio.client import connect

    servers = bench.start_servers(db, REDIS, 2)
    try:
        (a, b) = servers
        table, ((ann, ann_token), (bob, bob_token)) = bench.start_table(servers)

        async def play() -> None:
            on_a: list[dict[str, Any]] = []
            on_b: list[dict[str, Any]] = []
            stop = asyncio.Event()
            async with (
                connect(f"ws://127.0.0.1:{a.port}/ws/{table}") as ws_a,
                connect(f"ws://127.0.0.1:{b.port}/ws/{table}") as ws_b,
            ):
                await ws_a.send(json.dumps({"type": "hello", "token": ann_token}))
                await ws_b.send(json.dumps({"type": "hello", "token": bob_token}))
                readers = [
                    asyncio.ensure_future(_states(ws_a, on_a, stop)),
                    asyncio.ensure_future(_states(ws_b, on_b, stop)),
                ]
                # Each person acts on their own process when it is their turn;
                # the other must see it, whichever process holds the table.
                acted = {ann: 0, bob: 0}
                deadline = time.monotonic() + 30
                while min(acted.values()) < 3:
                    assert time.monotonic() < deadline, f"too slow: {acted}"
                    await asyncio.sleep(0.05)
                    for seat, ws, seen in ((ann, ws_a, on_a), (bob, ws_b, on_b)):
                        states = [m for m in seen if m["type"] == "state"]
                        if not states or seat not in (states[-1]["obs"].get("turn") or []):
                            continue
                        last = states[-1]
                        action = random.Random(last["version"]).choice(last["obs"]["legal"])
                        act = {"type": "act", "version": last["version"], "action": action}
                        await ws.send(json.dumps(act))
                        other = on_b if seat == ann else on_a
                        version = last["version"] + 1

                        def seen_there(other: list[dict[str, Any]] = other, version: int = version) -> bool:
                            return any(m["type"] == "state" and m["version"] >= version for m in other)

                        await _until(seen_there, 10)
                        shown = next(m for m in other if m["type"] == "state" and m["version"] == version)
                        # The other process's client saw this very action.
                        assert shown["last"]["seat"] == seat
                        acted[seat] += 1
                # Neither person was sent the other's cards on the way.
                for seat, seen in ((ann, on_a), (bob, on_b)):
                    for m in seen:
                        if m["type"] == "state" and m["obs"]["phase"] in ("bid", "play"):
                            hands = m["obs"]["hands"]
                            assert all(h is None for i, h in enumerate(hands) if i != seat)
                stop.set()
                await asyncio.gather(*readers)

        asyncio.run(play())
    finally:
        bench.stop_servers(servers)


def test_the_table_moves_to_the_other_process_when_its_holder_stops(bench: Any, db: str) -> None:
    servers = bench.start_servers(db, REDIS, 2)
    try:
        table, seats = bench.start_table(servers)
        first = bench.holder_pid(REDIS, table)
        assert first in {s.proc.pid for s in servers}
        holder = next(s for s in servers if s.proc.pid == first)
        holder.proc.send_signal(signal.SIGTERM)  # a rolling restart: it lets its tables go
        holder.proc.wait(10)
        other = next(s for s in servers if s is not holder)

        async def reconnect() -> list[Any]:
            people = [
                bench.Person(table, seat, token, [other], first=0, think=0.02, rng=random.Random(seat))
                for seat, token in seats
            ]
            stop = asyncio.Event()
            tasks = [asyncio.ensure_future(p.play(stop)) for p in people]
            await _until(lambda: max(max(p.seen, default=0) for p in people) >= 15, 20)
            stop.set()
            await asyncio.gather(*tasks)
            return people

        people = asyncio.run(reconnect())
        assert bench.holder_pid(REDIS, table) == other.proc.pid
        checked = bench.check_log(db, table, people)
        assert checked["acknowledged"] > 0 and checked["missing_or_moved"] == 0
    finally:
        bench.stop_servers(servers)


def test_a_killed_holder_s_table_goes_on_within_5_seconds_with_every_action_once(bench: Any, db: str) -> None:
    run = asyncio.run(bench.one_run(db, REDIS, think=0.05, kill_at=12, after=6.0, seed=7))
    assert run["takeover_s"] is not None and run["takeover_s"] <= 5.0, run
    assert run["actions_after"] >= 8, run  # it went on, not merely answered once
    assert run["acknowledged"] > 0, run
    assert run["missing_or_moved"] == 0, run


def test_serve_workers_runs_processes_that_share_one_port(bench: Any, db: str) -> None:
    import subprocess
    import sys
    import urllib.request

    import redis

    port = bench.free_port()
    command = [sys.executable, "-m", "ohhell", "serve", "--db", db, "--broker", REDIS]
    proc = subprocess.Popen([*command, "--port", str(port), "--workers", "2"], stderr=subprocess.PIPE)
    server = bench.Server(port, proc)
    try:
        deadline = time.monotonic() + 30
        client = redis.Redis.from_url(REDIS)
        group = None
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            with contextlib.suppress(OSError, ValueError):
                started = bench.post(server, "/api/play-now", {})
                keys = [k.decode() for k in client.scan_iter(match="ohhell:*:alive:*")]
                groups = {k.split(":")[1] for k in keys}
                group = next((g for g in groups if sum(k.split(":")[1] == g for k in keys) == 2), None)
                if group is not None:
                    break
            assert time.monotonic() < deadline, "the two processes did not start"
            time.sleep(0.2)
        client.close()
        # Two processes said they are alive, in one group: the supervisor's children.
        children = [
            p
            for p in os.listdir("/proc")
            if p.isdigit() and _parent(int(p)) == proc.pid and _is_python(int(p))
        ]
        assert len(children) >= 2
        # Every request is answered, whichever process the kernel gives it to.
        for _ in range(10):
            with urllib.request.urlopen(f"{server.base}/api/tables/{started['table']}", timeout=10) as answer:
                assert json.loads(answer.read())["status"] == "playing"
    finally:
        bench.stop_servers([server])


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def _is_python(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"python" in f.read()
    except OSError:
        return False


def test_serve_refuses_workers_without_a_broker_and_a_broker_without_postgresql(tmp_path: Any) -> None:
    import subprocess
    import sys

    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "OHHELL_HOME": str(tmp_path)}
        command = [sys.executable, "-m", "ohhell", "serve", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)

    alone = serve("--workers", "2")
    assert alone.returncode == 2 and "--workers needs --broker" in alone.stderr
    sqlite = serve("--broker", str(REDIS))
    assert sqlite.returncode == 2 and "PostgreSQL" in sqlite.stderr
