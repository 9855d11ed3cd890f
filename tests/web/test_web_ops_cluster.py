"""What a host runs beside the game, on several ``ohhell serve`` processes
sharing PostgreSQL and Redis (docs/hosting.md): the host's orders on every
process, the hand-over on SIGTERM, readiness while the broker is down, the
metrics of ``--workers``, and a PostgreSQL backup restored mid-match.

These run when ``OHHELL_TEST_POSTGRES`` and ``OHHELL_TEST_REDIS`` are set, as
the cluster's tests do (the processes are bench/failover.py's); a broker
that goes down is a private ``redis-server``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ops_support import HOST, both, environment, free_port, get, listening, play, post, serve, stop, until

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")

# --- Several processes (PostgreSQL and Redis) ---

cluster = pytest.mark.skipif(
    not (POSTGRES and REDIS),
    reason="set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS to test several server processes",
)


@pytest.fixture
def bench() -> Any:
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    from support import bench_script

    return bench_script("failover")


@pytest.fixture
def db(bench: Any) -> Iterator[str]:
    schema = bench.Schema(POSTGRES)
    try:
        yield schema.url
    finally:
        schema.drop()


def _admin(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ohhell", "admin", "--db", db, *args],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )


@cluster
def test_orders_reach_every_process_and_a_bar_holds_after_a_restart(bench: Any, db: str) -> None:
    pytest.importorskip("websockets")
    servers = bench.start_servers(db, REDIS, 2)
    try:
        table, seats = bench.start_table(servers)
        holder = bench.holder_pid(REDIS, table)
        other = next(s for s in servers if s.proc.pid != holder)  # its clients are relayed

        async def watch() -> list[dict[str, Any]]:
            from websockets.asyncio.client import connect as ws_connect
            from websockets.exceptions import ConnectionClosed

            seen: list[dict[str, Any]] = []
            async with ws_connect(f"ws://{HOST}:{other.port}/ws/{table}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": seats[1][1]}))
                await ws.recv()
                said = await asyncio.to_thread(_admin, db, "announce", "Back in five minutes.")
                assert said.returncode == 0, said.stderr
                while not any(m["type"] == "notice" for m in seen):
                    seen.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                closed = await asyncio.to_thread(_admin, db, "close", "--", table)  # an id may begin with -
                assert closed.returncode == 0 and "is closed" in closed.stdout, closed
                while not any(m["type"] == "table" and m["status"] == "ended" for m in seen):
                    seen.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                barred = await asyncio.to_thread(_admin, db, "ban", "127.0.0.1", "--reason", "a test")
                assert barred.returncode == 0, barred.stderr
                try:
                    while True:
                        seen.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                except ConnectionClosed as err:
                    assert err.rcvd is not None and err.rcvd.code == 4403
            return seen

        seen = asyncio.run(watch())
        assert next(m for m in seen if m["type"] == "notice")["text"] == "Back in five minutes."
        for server in servers:  # each process reads the order within about a second
            until(lambda s=server: get(s.base + "/api/options")[0] == 403, what="the bar on every process")
            assert get(server.base + "/healthz")[0] == 200
        listed = _admin(db, "tables", "--all")
        assert table in listed.stdout and "ended" in listed.stdout
        # A new process reads the bars when it starts.
        bench.stop_servers([servers[1]])
        servers[1:] = bench.start_servers(db, REDIS, 1)
        assert get(servers[1].base + "/api/options")[0] == 403
        assert _admin(db, "unban", "127.0.0.1").returncode == 0
        for server in servers:
            until(lambda s=server: get(s.base + "/api/options")[0] == 200, what="the bar lifted")
    finally:
        bench.stop_servers(servers)


@cluster
def test_sigterm_hands_the_table_to_the_other_process_and_closes_with_1012(bench: Any, db: str) -> None:
    pytest.importorskip("websockets")
    servers = bench.start_servers(db, REDIS, 2, "--drain", "1")
    try:
        table, seats = bench.start_table(servers)
        holder = next(s for s in servers if s.proc.pid == bench.holder_pid(REDIS, table))
        other = next(s for s in servers if s is not holder)

        async def drained() -> int:
            from websockets.asyncio.client import connect as ws_connect
            from websockets.exceptions import ConnectionClosed

            async with ws_connect(f"ws://{HOST}:{holder.port}/ws/{table}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": seats[0][1]}))
                await ws.recv()
                holder.proc.send_signal(signal.SIGTERM)
                await asyncio.sleep(0.3)
                status, _ = await asyncio.to_thread(get, holder.base + "/readyz")
                assert status == 503
                assert (await asyncio.to_thread(get, other.base + "/readyz"))[0] == 200
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as err:
                    assert err.rcvd is not None
                    return err.rcvd.code
            raise AssertionError("not closed")

        assert asyncio.run(drained()) == 1012
        # Handed over: the other process holds the table at once, without
        # waiting for the stopped one's heartbeat to lapse.
        until(lambda: bench.holder_pid(REDIS, table) == other.proc.pid, 3.0, "the other process holding it")
        holder.proc.wait(15)
        seen: list[dict[str, Any]] = []
        asyncio.run(both(f"ws://{HOST}:{other.port}/ws/{table}", seats, seen))
        assert (
            sum(1 for m in seen if m["type"] == "state" and (m.get("last") or {}).get("seat") in (0, 1)) >= 2
        )
    finally:
        bench.stop_servers(servers)


@cluster
def test_readyz_is_503_while_the_broker_is_down_and_ready_again_after(
    bench: Any, db: str, tmp_path: Path
) -> None:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed: the broker cannot be stopped and started")
    port = free_port()

    def start_redis() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [
                server,
                "--port",
                str(port),
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(tmp_path),
            ],
            stdout=subprocess.DEVNULL,
        )
        listening(proc, HOST, port)
        return proc

    redis_proc = start_redis()
    servers = []
    try:
        servers = bench.start_servers(db, f"redis://{HOST}:{port}/0", 1)
        base = servers[0].base
        until(lambda: get(base + "/readyz")[0] == 200, what="ready")
        redis_proc.terminate()
        redis_proc.wait(10)
        _, body = until(
            lambda: (a := get(base + "/readyz", 10))[0] == 503 and a, 10, "not ready without the broker"
        )
        assert "broker" in json.loads(body)["reason"]
        assert get(base + "/healthz")[0] == 200  # alive: the orchestrator must not kill it for this
        redis_proc = start_redis()
        until(lambda: get(base + "/readyz", 10)[0] == 200, 15, "ready again")
    finally:
        bench.stop_servers(servers)
        redis_proc.terminate()
        redis_proc.wait(10)


@cluster
def test_metrics_of_several_workers_are_summed_byserve(bench: Any, db: str, tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    metrics_port = free_port()
    proc, port = serve(
        tmp_path, "--db", db, "--broker", REDIS or "", "--workers", "2", "--metrics", f"{HOST}:{metrics_port}"
    )
    try:
        for _ in range(2):
            made = post(f"http://{HOST}:{port}/api/play-now", {"name": "Ann"})
            asyncio.run(play(f"ws://{HOST}:{port}/ws/{made['table']}", made["token"], 2, []))

        def summed(name: str) -> float:
            status, text = get(f"http://{HOST}:{metrics_port}/metrics")
            if status != 200:
                return 0.0
            return sum(float(line.split()[1]) for line in text.splitlines() if line.startswith(name))

        until(lambda: summed("ohhell_tables{") >= 2, 15, "both tables counted")
        until(lambda: summed("ohhell_actions_total ") >= 4, 15, "the actions of both processes")
        # Each process's probe through the broker came back: a lag was measured.
        until(lambda: summed("ohhell_relay_lag_seconds ") > 0, 15, "the relay's lag")
    finally:
        stop(proc)


@cluster
def test_a_postgresql_dump_taken_mid_match_restores_and_plays_on(bench: Any, db: str) -> None:
    pytest.importorskip("websockets")
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not installed")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    servers = bench.start_servers(db, REDIS, 1)
    url = make_url(db)
    schema = url.query["options"].split("=", 1)[1]
    plain = url.set(drivername="postgresql", query={}).render_as_string(hide_password=False)
    restored_db = f"ohhell_restore_{os.getpid()}_{int(time.time())}"
    admin_engine = create_engine(make_url(db).set(query={}), isolation_level="AUTOCOMMIT")
    dump = Path(os.environ.get("TMPDIR", "/tmp")) / f"{restored_db}.dump"
    try:
        table, seats = bench.start_table(servers)
        seen: list[dict[str, Any]] = []
        asyncio.run(both(f"ws://{HOST}:{servers[0].port}/ws/{table}", seats, seen))
        version = max(m["version"] for m in seen if m["type"] == "state")
        subprocess.run(["pg_dump", "-Fc", "-n", schema, "-f", str(dump), plain], check=True, timeout=60)
        with admin_engine.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {restored_db}"))
        target = url.set(drivername="postgresql", database=restored_db, query={}).render_as_string(
            hide_password=False
        )
        subprocess.run(["pg_restore", "--no-owner", "-d", target, str(dump)], check=True, timeout=60)
        bench.stop_servers(servers)
        restored = url.set(database=restored_db).render_as_string(hide_password=False)
        servers = bench.start_servers(restored, REDIS, 1)
        after: list[dict[str, Any]] = []
        asyncio.run(both(f"ws://{HOST}:{servers[0].port}/ws/{table}", seats, after))
        states = [m["version"] for m in after if m["type"] == "state"]
        assert states[0] >= version and max(states) > states[0]  # the stored match, played on
    finally:
        bench.stop_servers(servers)
        dump.unlink(missing_ok=True)
        with admin_engine.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {restored_db} WITH (FORCE)"))
        admin_engine.dispose()
