"""Load on `ohhell serve`: many tables of WebSocket players on loopback.

Starts the server in its own process (uvicorn on ``create_app``, as ``ohhell
serve`` runs it, with bots and the per-connection rate limit out of the way),
then plays ``--tables`` tables of ``--players`` people each from one asyncio
process: one WebSocket per seat, every seat a person who waits ``--think``
milliseconds (on average; 0.5x to 1.5x at random) and plays a random legal
action. A table whose match ends is replaced by a new one, so the number of
seats stays the same.

Measured over ``--seconds`` after a warm-up:
- actions per second: actions the server accepted (players' actions, and the
  deals and draws the server makes itself);
- latency from an action to every seat's update: from sending
  ``{"type": "act", "version": v}`` until every seat of that table has received
  a state of version v + 1 or later (the slowest seat), median, p90, p99, max;
  also until the acting seat's own update;
- errors by code (a refused action: stale, turn, ...);
- CPU of the server process and of this client process (they share the
  machine's cores), as a percentage of one core.

Prints JSON with ``--json`` and a short table.

    python bench/server.py [--tables 250] [--players 4] [--think 500] [--seconds 30]
                           [--warmup 5] [--db URL] [--preset pagat] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

try:  # the client's parsing is part of the measured machine's load: use the fast parser if there is one
    import orjson

    loads = orjson.loads
except ImportError:  # pragma: no cover
    loads = json.loads

HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The server as `ohhell serve` runs it (uvicorn, log level warning, the same
# message size limit), but no pause before automatic moves (there are no bots,
# only the dealer), nobody counted as away, and no rate limit for fast clients.
SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import Limits, create_app
from ohhell.web.cluster.workers import run_workers
db, port, workers, broker = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] or None
settings = dict(store_url=db, away_after=3600.0, bot_delay=0.0, clock=0, broker=broker)
limits = Limits(
    rate=1e6, create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0
)
if workers > 1:
    run_workers(settings, limits, "127.0.0.1", port, workers, per_address=0, requests_per_address=0)
else:
    run(create_app(**settings, limits=limits), "127.0.0.1", port, per_address=0, requests_per_address=0)
"""


# --- Measurements ---


@dataclass
class Stats:
    """Everything counted while the measurement window is open."""

    measuring: bool = False
    latency_all: list[float] = field(default_factory=list)  # action -> every seat's update, seconds
    latency_own: list[float] = field(default_factory=list)  # action -> the acting seat's update
    sent: int = 0  # actions sent
    accepted: int = 0  # versions the server moved on by a player's action
    chance: int = 0  # ... by a deal or a draw for dealer
    keeps: int = 0  # R-BID-CHANGE keeps sent
    errors: dict[str, int] = field(default_factory=dict)  # refusals by "act:code" or "keep:code"
    matches: int = 0  # matches finished
    messages: int = 0  # messages received by the clients
    bytes: int = 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children alive now (from
    /proc): with --workers the server is a supervisor and its processes."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == pid or int(fields[1]) == pid:  # the process, or one it started
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- HTTP: a few POSTs to set tables up, without an HTTP client library ---


async def raw_post(port: int, path: str, body: dict[str, Any], local: str | None = None) -> tuple[int, bytes]:
    """POST ``body`` as JSON (from the loopback address ``local``, if given):
    the status and the payload; status 0 when the server closed the
    connection unanswered."""
    data = json.dumps(body).encode()
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(local, 0) if local else None)
    try:
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        raw = await reader.read()
    except ConnectionError:
        raw = b""
    finally:
        writer.close()
    if not raw:
        return 0, b""
    head, _, payload = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), payload


async def post(port: int, path: str, body: dict[str, Any], local: str | None = None) -> dict[str, Any]:
    """POST ``body`` as JSON and return the JSON answer (any status but 200 raises)."""
    status, payload = await raw_post(port, path, body, local)
    if status != 200:
        raise RuntimeError(f"POST {path}: {status} {payload[:200]!r}")
    return json.loads(payload)  # type: ignore[no-any-return]


# --- The players ---


class Table:
    """One table's seats on the client side, and its actions waiting to be
    seen by every seat."""

    def __init__(self, players: int, stats: Stats) -> None:
        self.stats = stats
        self.seen = [-1] * players  # the latest version each seat has received
        self.pending: dict[int, tuple[float, int]] = {}  # version acted on -> (send time, seat)
        self.own: dict[int, tuple[float, int]] = {}  # the same, until the actor's own update
        self.over = False

    def sent(self, version: int, seat: int, now: float) -> None:
        self.pending.setdefault(version, (now, seat))
        self.own.setdefault(version, (now, seat))

    def refused(self, seat: int) -> None:
        """The seat's action was refused: nothing will come of it."""
        for waiting in (self.pending, self.own):
            for version in [v for v, (_, who) in waiting.items() if who == seat]:
                del waiting[version]

    def received(self, seat: int, version: int, now: float) -> None:
        if version <= self.seen[seat]:
            return  # a keep's answer, or the state sent on connect
        self.seen[seat] = version
        measuring = self.stats.measuring
        for acted in [v for v, (_, who) in self.own.items() if who == seat and v < version]:
            t0, _ = self.own.pop(acted)
            if measuring:
                self.stats.latency_own.append(now - t0)
        lowest = min(self.seen)  # every seat has seen this version
        for acted in [v for v in self.pending if v < lowest]:
            t0, _ = self.pending.pop(acted)
            if measuring:
                self.stats.latency_all.append(now - t0)


class Player:
    """One seat: a WebSocket, the latest state, and a person who thinks."""

    def __init__(self, table: Table, seat: int, token: str, think: float, rng: random.Random) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.think = think
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        self.acting: asyncio.Task[None] | None = None  # a pending, thought-about action
        self.kept = -1  # the version whose bid we kept
        self.last_sent = "act"  # what an error answers: "act" or "keep"

    def _choices(self) -> list[dict[str, Any]]:
        obs = self.state["obs"] if self.state else None
        if not obs or self.seat not in obs["actors"]:
            return []
        # A seat that may only change its bid keeps it instead (below).
        return [a for a in obs["legal"] if a["kind"] != "change"]

    async def _act(self, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        choices = self._choices()  # the latest state: it may have moved on while we thought
        if not choices or self.ws is None or self.state is None:
            return
        version = self.state["version"]
        action = self.rng.choice(choices)
        action = {k: v for k, v in action.items() if k != "seat"}
        now = time.perf_counter()
        self.table.sent(version, self.seat, now)
        if self.table.stats.measuring:
            self.table.stats.sent += 1
        self.last_sent = "act"
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps({"type": "act", "version": version, "action": action}))

    async def _on_state(self, message: dict[str, Any], now: float) -> None:
        stats = self.table.stats
        version = message["version"]
        if version > self.table.seen[self.seat] and self.seat == 0 and stats.measuring:
            # Seat 0 sees every version once: count what moved the table on.
            last = message.get("last") or {}
            if last.get("kind") in ("deal", "draw"):
                stats.chance += 1
            elif last:
                stats.accepted += 1
        self.table.received(self.seat, version, now)
        self.state = message
        obs = message["obs"]
        if obs["phase"] == "over":
            self.table.over = True
            return
        if obs.get("can_change") and self.kept != version:
            # R-BID-CHANGE: our bid could still be changed; keep it, as a person
            # clicking "keep" would, so the next bidders go on.
            self.kept = version
            if stats.measuring:
                stats.keeps += 1
            assert self.ws is not None
            self.last_sent = "keep"
            await self.ws.send('{"type":"keep"}')
            return
        if self._choices() and (self.acting is None or self.acting.done()):
            delay = self.think * self.rng.uniform(0.5, 1.5)
            if delay > 0:
                self.acting = asyncio.create_task(self._act(delay))
            else:
                await self._act(0)

    async def play(self, port: int, table_id: str, local: str | None = None) -> None:
        stats = self.table.stats
        async with connect(
            f"ws://{HOST}:{port}/ws/{table_id}",
            open_timeout=120,
            ping_interval=None,
            max_size=2**20,
            local_addr=(local, 0) if local else None,
        ) as ws:
            self.ws = ws
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            try:
                async for text in ws:
                    now = time.perf_counter()
                    message = loads(text)
                    if stats.measuring:
                        stats.messages += 1
                        stats.bytes += len(text)
                    kind = message["type"]
                    if kind == "state":
                        await self._on_state(message, now)
                        if self.table.over:
                            return
                    elif kind == "error":
                        # Refused: nothing changed. A keep is refused as "turn"
                        # when the next bidder bid first, which is harmless.
                        if self.last_sent == "act":
                            self.table.refused(self.seat)
                        if stats.measuring:
                            code = f"{self.last_sent}:{message.get('code', '?')}"
                            stats.errors[code] = stats.errors.get(code, 0) + 1
            finally:
                if self.acting is not None:
                    self.acting.cancel()


async def run_table(
    slot: int, args: argparse.Namespace, port: int, stats: Stats, ready: asyncio.Semaphore, started: list[int]
) -> None:
    """One table slot: create a table, seat its people, play the match to the
    end, and again, until cancelled."""
    rng = random.Random(slot)
    first = True
    while True:
        async with ready:  # a limit on tables being set up at once
            host = await post(
                port,
                "/api/tables",
                {"preset": args.preset, "players": args.players, "seats": ["human"] * args.players},
            )
            table_id, tokens = host["table"], {0: host["token"]}
            for seat in range(1, args.players):
                tokens[seat] = (await post(port, f"/api/tables/{table_id}/join", {"seat": seat}))["token"]
            table = Table(args.players, stats)
            players = [Player(table, s, tokens[s], args.think / 1000, rng) for s in range(args.players)]
            tasks = [asyncio.create_task(p.play(port, table_id)) for p in players]
            while any(p.ws is None for p in players):  # everyone connected before the start
                for t in tasks:
                    if t.done():
                        await t  # a failed connection raises here
                await asyncio.sleep(0.01)
            await post(port, f"/api/tables/{table_id}/start", {"token": host["token"]})
        if first:
            started[0] += args.players
            first = False
        await asyncio.gather(*tasks)
        if stats.measuring:
            stats.matches += 1


# --- The server ---


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


async def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            _, writer = await asyncio.open_connection(HOST, port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise RuntimeError("the server did not listen in time")


async def stop(tasks: list[asyncio.Task[Any]], proc: subprocess.Popen[bytes]) -> None:
    """Cancel the clients' tasks, then stop the server process."""
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def raise_file_limit(wanted: int) -> None:
    """One socket per seat on each side; the server inherits this limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


async def bench(
    args: argparse.Namespace, db: str, workers: int = 1, tables: int | None = None
) -> dict[str, Any]:
    tables = args.tables if tables is None else tables
    args = argparse.Namespace(**{**vars(args), "tables": tables})
    seats = args.tables * args.players
    raise_file_limit(4 * seats + 256)
    port = free_port()
    broker = args.broker if workers > 1 else ""
    proc = subprocess.Popen([sys.executable, "-c", SERVER, db, str(port), str(workers), broker or ""])
    stats = Stats()
    tasks: list[asyncio.Task[None]] = []
    try:
        await wait_listening(port, proc)
        setup = time.perf_counter()
        started = [0]
        ready = asyncio.Semaphore(25)
        tasks = [
            asyncio.create_task(run_table(i, args, port, stats, ready, started)) for i in range(args.tables)
        ]
        while started[0] < seats:
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()  # type: ignore[misc]
            await asyncio.sleep(0.05)
        setup = time.perf_counter() - setup
        await asyncio.sleep(args.warmup)

        # The measurement window.
        server_cpu, client_cpu = cpu_seconds(proc.pid), sum(os.times()[:2])
        busy, total = machine_busy()
        start = time.perf_counter()
        stats.measuring = True
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        elapsed = time.perf_counter() - start
        server_cpu = cpu_seconds(proc.pid) - server_cpu
        client_cpu = sum(os.times()[:2]) - client_cpu
        busy2, total2 = machine_busy()
        for t in tasks:
            if t.done() and t.exception():
                raise t.exception()  # type: ignore[misc]
    finally:
        await stop(tasks, proc)

    ms = [x * 1e3 for x in stats.latency_all]
    own = [x * 1e3 for x in stats.latency_own]
    out: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "db": db.split("://")[0].split("+")[0],
        "workers": workers,
        "broker": "redis" if broker else None,
        "tables": args.tables,
        "players": args.players,
        "seats": seats,
        "preset": args.preset,
        "think_ms": args.think,
        "seconds": round(elapsed, 2),
        "setup_s": round(setup, 2),
        "actions_per_s": round(stats.accepted / elapsed, 1),
        "chance_per_s": round(stats.chance / elapsed, 1),
        "sent": stats.sent,
        "keeps": stats.keeps,
        "errors": stats.errors,
        "matches": stats.matches,
        "messages_per_s": round(stats.messages / elapsed, 1),
        "kib_per_message": round(stats.bytes / max(1, stats.messages) / 1024, 2),
        "latency_all_ms": {
            "count": len(ms),
            "median": round(statistics.median(ms), 2) if ms else None,
            "p90": round(percentile(ms, 0.90), 2),
            "p99": round(percentile(ms, 0.99), 2),
            "max": round(max(ms), 2) if ms else None,
        },
        "latency_own_ms": {
            "median": round(statistics.median(own), 2) if own else None,
            "p99": round(percentile(own, 0.99), 2),
        },
        "server_cpu_pct": round(100 * server_cpu / elapsed, 1),
        # CPU per action (deals included) does not depend much on what else runs.
        "server_cpu_ms_per_action": round(1e3 * server_cpu / max(1, stats.accepted + stats.chance), 3),
        "client_cpu_ms_per_action": round(1e3 * client_cpu / max(1, stats.accepted + stats.chance), 3),
        "client_cpu_pct": round(100 * client_cpu / elapsed, 1),
        # The whole machine, as a percentage of one core (at most 100 x cores);
        # what the server and the client do not explain is other work.
        "machine_cpu_pct": round(100 * (os.cpu_count() or 1) * (busy2 - busy) / max(1, total2 - total), 1),
    }
    out["other_cpu_pct"] = round(out["machine_cpu_pct"] - out["server_cpu_pct"] - out["client_cpu_pct"], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=250, help="tables played at once (default 250)")
    parser.add_argument("--players", type=int, default=4, help="seats per table, all people (default 4)")
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--think", type=float, default=500.0, help="mean ms before acting (default 500)")
    parser.add_argument("--seconds", type=float, default=30.0, help="the measurement window (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring (default 5)")
    parser.add_argument("--db", help="SQLAlchemy URL (default: a new SQLite file in a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print the JSON too")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes sharing the port (ohhell serve --workers); more than 1 needs a "
        "PostgreSQL --db and --broker, and first runs one process with --tables / N as the anchor",
    )
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/0", help="Redis, for --workers")
    args = parser.parse_args()
    if args.workers > 1 and not (args.db or "").startswith("postgresql"):
        parser.error("--workers needs a PostgreSQL --db (e.g. postgresql+psycopg://postgres@127.0.0.1/test)")

    runs = []
    schema = None
    if (args.db or "").startswith("postgresql"):
        from failover import Schema  # beside this script

        # A fresh schema, dropped afterwards: the run's tables are its own,
        # whoever else uses the database.
        schema = Schema(args.db)
    try:
        with tempfile.TemporaryDirectory(prefix="ohhell-bench-") as folder:
            db = schema.url if schema is not None else args.db or f"sqlite:///{folder}/bench.db"
            if args.workers > 1:
                # The anchor, in the same run: one process with its share of the seats.
                runs.append(asyncio.run(bench(args, db, 1, args.tables // args.workers)))
            runs.append(asyncio.run(bench(args, db, args.workers)))
    finally:
        if schema is not None:
            schema.drop()

    out = runs[-1]
    if len(runs) > 1:
        out = {**out, "anchor": runs[0]}
        out["scaling"] = round(out["actions_per_s"] / max(1e-9, runs[0]["actions_per_s"]), 2)
    if args.json:
        print(json.dumps(out, indent=2))
        print()
    print(
        f"{'procs':>6}{'seats':>6}{'think ms':>9}{'db':>11}{'actions/s':>11}{'median ms':>11}"
        f"{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}{'server CPU':>12}{'client CPU':>12}"
    )
    for run in runs:
        lat = run["latency_all_ms"]
        print(
            f"{run['workers']:>6}{run['seats']:>6}{run['think_ms']:>9.0f}{run['db']:>11}"
            f"{run['actions_per_s']:>11.1f}{lat['median']:>11.2f}{lat['p90']:>9.2f}{lat['p99']:>9.2f}"
            f"{lat['max']:>9.2f}{run['server_cpu_pct']:>11.0f}%{run['client_cpu_pct']:>11.0f}%"
        )
    lat = out["latency_all_ms"]
    verdict = "under" if lat["p99"] < 50 else "over"
    print(
        f"p99 {verdict} 50 ms; {out['chance_per_s']:.1f} deals/s, {out['matches']} matches ended, "
        f"errors {out['errors'] or 'none'}; "
        f"{out['server_cpu_ms_per_action']:.2f} ms server CPU an action; other processes used "
        f"{out['other_cpu_pct']:.0f}% of one core ({out['machine']['cores']} cores, shared by all)"
    )
    if "scaling" in out:
        print(f"{out['workers']} processes: {out['scaling']:.2f}x the actions a second of one process")


if __name__ == "__main__":
    main()
