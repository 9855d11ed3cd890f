"""Failover of `ohhell serve` processes sharing PostgreSQL and Redis.

Each run starts two server processes on loopback (``ohhell serve --db
postgresql... --broker redis://...``, each on its own port, a fresh
PostgreSQL schema per run), makes a table of two people and two bots, and
seats one person on each process: they play random legal actions, as
quickly as a brisk player (``--think`` ms). Once the hand is under way
(``--kill-at`` actions) the process holding the table is killed with
SIGKILL. Its clients reconnect by themselves, as the page does (after
0.5 s, to a process that still answers). Measured per run:

- the takeover: seconds from the kill until any client sees the match go
  on (a state newer than the last one before the kill);
- the log: every action a person was told was taken (a state whose last
  action is theirs) is stored exactly once, at the version it was taken
  at; the stored log has no gap and replays under the rules;
- the actions taken after the takeover (the match went on, it did not
  merely answer once).

Prints JSON with ``--json`` and a short table. Bounded: each run stops
after ``--after`` seconds of play past the kill.

    python bench/failover.py [--runs 20] [--db postgresql://...] [--broker redis://...] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

HOST = "127.0.0.1"
POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("OHHELL_TEST_REDIS", "redis://127.0.0.1:6379/0")
RECONNECT = 0.5  # seconds before a client reconnects, as the page's first retry


def postgres_url(url: str) -> str:
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


class Schema:
    """A fresh PostgreSQL schema, dropped afterwards: a database of its own."""

    def __init__(self, base: str) -> None:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        self._text = text
        self.name = f"ohhell_bench_{secrets.token_hex(6)}"
        base_url = make_url(postgres_url(base))
        self._admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
        with self._admin.connect() as db:
            db.execute(text(f"CREATE SCHEMA {self.name}"))
        self.url = base_url.update_query_dict({"options": f"-csearch_path={self.name}"}).render_as_string(
            hide_password=False
        )

    def drop(self) -> None:
        with self._admin.connect() as db:
            db.execute(self._text(f"DROP SCHEMA IF EXISTS {self.name} CASCADE"))
        self._admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    port: int
    proc: subprocess.Popen[bytes]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"


def start_servers(db: str, broker: str, count: int, *extra: str) -> list[Server]:
    """``count`` ``ohhell serve`` processes on one database and one broker."""
    servers = []
    for _ in range(count):
        port = free_port()
        command = [sys.executable, "-m", "ohhell", "serve", "--db", db, "--broker", broker]
        command += ["--port", str(port), "--bot-delay", "0.05", "--think", "0.1", *extra]
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        servers.append(Server(port, proc))
    deadline = time.monotonic() + 30
    for server in servers:
        while True:
            if server.proc.poll() is not None:
                raise RuntimeError(f"a server exited: {server.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                socket.create_connection((HOST, server.port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("a server did not listen in time") from None
                time.sleep(0.05)
    return servers


def stop_servers(servers: list[Server]) -> None:
    for server in servers:
        if server.alive:
            server.proc.terminate()
    for server in servers:
        try:
            server.proc.wait(10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()
        if server.proc.stderr is not None:
            server.proc.stderr.close()


def post(server: Server, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def holder_pid(broker: str, table: str) -> int | None:
    """The process holding ``table`` (its id starts with its pid)."""
    import redis

    client = redis.Redis.from_url(broker)
    try:
        for key in client.scan_iter(match="ohhell:*:holders"):
            worker = client.hget(key, table)
            if worker is not None:
                return int(worker.decode().split("-")[0])
    finally:
        client.close()
    return None


def start_table(servers: list[Server], clock: float = 0) -> tuple[str, list[tuple[int, str]]]:
    """A started table of two people and two bots: (table, [(seat, token)])."""
    made = post(
        servers[0],
        "/api/tables",
        {"seats": ["human", "human", "intermediate", "intermediate"], "name": "Ann", "clock": clock},
    )
    table = made["table"]
    joined = post(servers[-1], f"/api/tables/{table}/join", {"name": "Bob"})
    post(servers[0], f"/api/tables/{table}/start", {"token": made["token"]})
    return table, [(made["seat"], made["token"]), (joined["seat"], joined["token"])]


@dataclass
class Person:
    """A seated client that plays random legal actions and reconnects by
    itself (to the next process that answers) when its socket closes."""

    table: str
    seat: int
    token: str
    servers: list[Server]
    first: int  # which server it connects to first
    think: float  # seconds, on average
    rng: random.Random
    seen: dict[int, Any] = field(default_factory=dict)  # version -> the last action, as shown
    acted: list[tuple[int, Any]] = field(default_factory=list)  # (version, action) it sent
    arrived: list[tuple[float, int]] = field(default_factory=list)  # (time, version) of each state
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)

    async def play(self, stop: asyncio.Event) -> None:
        index = self.first
        while not stop.is_set():
            server = self.servers[index % len(self.servers)]
            index += 1
            if not server.alive:
                continue
            try:
                async with connect(f"ws://{HOST}:{server.port}/ws/{self.table}", open_timeout=5) as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    await self._session(ws, stop)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            if stop.is_set():
                return
            self.reconnects += 1
            await asyncio.sleep(RECONNECT)
            index -= 1  # the same process first, if it still answers

    async def _session(self, ws: Any, stop: asyncio.Event) -> None:
        acting: asyncio.Task[None] | None = None
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while True:
                receiving = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    receiving.cancel()
                    return
                message = json.loads(receiving.result())
                if message.get("type") == "error":
                    self.errors.append(str(message.get("code")))
                if message.get("type") != "state":
                    continue
                version = int(message["version"])
                self.arrived.append((time.monotonic(), version))
                self.seen[version] = message.get("last")
                obs = message["obs"]
                if acting is not None:
                    acting.cancel()
                legal = obs.get("legal") or []
                if self.seat in (obs.get("turn") or []) and legal:
                    acting = asyncio.ensure_future(self._act(ws, version, self.rng.choice(legal)))
        finally:
            stopping.cancel()
            if acting is not None:
                acting.cancel()

    async def _act(self, ws: Any, version: int, action: Any) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        self.acted.append((version, action))
        await ws.send(json.dumps({"type": "act", "version": version, "action": action}))


def stored_log(db: str, table: str) -> list[str]:
    """The table's stored actions, in version order (the store checks for gaps)."""
    from ohhell.web.storage.store import Store

    store = Store(db)
    try:
        row = store.load(table)
        assert row is not None, "the table is gone"
        return list(row.lines)
    finally:
        store.close()


def check_log(db: str, table: str, people: list[Person]) -> dict[str, Any]:
    """Every action a person was told was taken is stored once, at its version,
    and the whole log replays under the rules."""
    from ohhell import apply, format_action, make_rules, new_game, parse_action
    from ohhell.web.protocol import parse_action as client_action
    from ohhell.web.storage.store import Store

    lines = stored_log(db, table)
    store = Store(db)
    row = store.load(table)
    store.close()
    assert row is not None
    state = new_game(make_rules("pagat", row.options))
    for line in lines:
        apply(state, parse_action(line))  # raises if the log is not a legal match
    acknowledged = missing = 0
    for person in people:
        for version, action in person.acted:
            shown = person.seen.get(version + 1)
            mine = format_action(client_action(action, person.seat))
            if shown is None or shown.get("seat") != person.seat:
                continue  # not taken (stale, or another's turn came first): nothing was acknowledged
            if format_action(client_action(shown, person.seat)) != mine:
                # Another action of theirs at the same version was taken: this
                # one was sent to the process that died and never stored, and
                # they chose again when the match went on.
                continue
            acknowledged += 1
            if version >= len(lines) or lines[version] != mine:
                missing += 1
    return {"stored": len(lines), "acknowledged": acknowledged, "missing_or_moved": missing}


async def one_run(
    db: str, broker: str, *, think: float, kill_at: int, after: float, seed: int
) -> dict[str, Any]:
    servers = start_servers(db, broker, 2)
    stop = asyncio.Event()
    try:
        table, seats = start_table(servers)
        rng = random.Random(seed)
        people = [
            Person(table, seat, token, servers, first=i, think=think, rng=random.Random(rng.random()))
            for i, (seat, token) in enumerate(seats)
        ]
        tasks = [asyncio.ensure_future(p.play(stop)) for p in people]
        deadline = time.monotonic() + 60
        while max((max(p.seen, default=0) for p in people), default=0) < kill_at:
            if time.monotonic() > deadline:
                raise RuntimeError("the match did not reach the kill point")
            await asyncio.sleep(0.02)
        pid = holder_pid(broker, table)
        victim = next(s for s in servers if s.proc.pid == pid)
        killed_at = time.monotonic()
        os.kill(victim.proc.pid, signal.SIGKILL)
        victim.proc.wait()
        # What the dead process had sent before it died may still arrive:
        # the match goes on from the newest state out by then.
        await asyncio.sleep(0.1)
        before = max(max(p.seen, default=0) for p in people)
        await asyncio.sleep(after)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        went_on = [t for p in people for t, v in p.arrived if v > before and t > killed_at]
        takeover = min(went_on) - killed_at if went_on else None
        after_kill = max(max(p.seen, default=0) for p in people) - before
        checked = check_log(db, table, people)
        return {
            "table": table,
            "killed_holder": True,
            "version_at_kill": before,
            "takeover_s": None if takeover is None else round(takeover, 3),
            "actions_after": after_kill,
            "reconnects": sum(p.reconnects for p in people),
            **checked,
        }
    finally:
        stop.set()
        stop_servers(servers)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--db", default=POSTGRES, help="a PostgreSQL URL (a fresh schema is made per run)")
    parser.add_argument("--broker", default=REDIS, help="a Redis URL")
    parser.add_argument("--think", type=float, default=80.0, help="the people's ms per action (default 80)")
    parser.add_argument("--kill-at", type=int, default=12, help="actions stored before the kill (default 12)")
    parser.add_argument("--after", type=float, default=8.0, help="seconds of play after the kill (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = []
    started = time.monotonic()
    for i in range(args.runs):
        schema = Schema(args.db)
        try:
            run = asyncio.run(
                one_run(
                    schema.url,
                    args.broker,
                    think=args.think / 1000,
                    kill_at=args.kill_at + i % 5,  # mid-bidding and mid-trick
                    after=args.after,
                    seed=args.seed + i,
                )
            )
        finally:
            schema.drop()
        runs.append(run)
        print(
            f"run {i + 1:2d}: takeover {run['takeover_s']} s, {run['actions_after']} actions after, "
            f"{run['acknowledged']} acknowledged, {run['missing_or_moved']} missing",
            file=sys.stderr,
        )
    takeovers = [r["takeover_s"] for r in runs if r["takeover_s"] is not None]
    summary = {
        "runs": len(runs),
        "went_on": len(takeovers),
        "takeover_s": {
            "median": round(statistics.median(takeovers), 3) if takeovers else None,
            "max": max(takeovers) if takeovers else None,
        },
        "within_5_s": sum(1 for t in takeovers if t <= 5.0),
        "acknowledged": sum(r["acknowledged"] for r in runs),
        "missing_or_moved": sum(r["missing_or_moved"] for r in runs),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "wall_s": round(time.monotonic() - started, 1),
    }
    if args.json:
        print(json.dumps({"summary": summary, "runs": runs}, indent=2))
    t = summary["takeover_s"]
    print(
        f"{'runs':>5} {'went on':>8} {'within 5 s':>11} {'median s':>9} {'max s':>7} {'acked':>6} {'lost':>5}"
    )
    print(
        f"{summary['runs']:>5} {summary['went_on']:>8} {summary['within_5_s']:>11} {t['median']!s:>9} "
        f"{t['max']!s:>7} {summary['acknowledged']:>6} {summary['missing_or_moved']:>5}"
    )


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
