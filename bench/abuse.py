"""Abuse on `ohhell serve` while people play: does anyone seated notice?

Starts the server in its own process as ``ohhell serve`` runs it, with its
default limits (quotas, socket caps, spectator caps, the head timeout), and
from this process, on loopback only, at the same time:

- ``--tables`` tables of 4 seated people (1,000 seats by default) who think
  ``--think`` ms (0.5x-1.5x) and play a random legal action, each table from
  its own loopback address (127.0.1.x), as friends at home would be;
- ``--spectators`` watchers (600) who join and leave a few tables again and
  again, from ``--spectator-addresses`` addresses (127.0.2.x);
- one client (127.0.3.1) creating tables as fast as it can;
- one client (127.0.3.2) sending the oversized rule numbers
  (``{"options": {"start-cards": "20000000"}}``) as fast as it can;
- a probe (127.0.3.3) asking ``GET /api/options`` every 100 ms: how long a
  request of someone else waits because of all this.

Measured over ``--seconds`` after a warm-up, first with nobody abusing the
server (the anchor, in the same run: the machine may be shared) and then
with the abuse: the seated players' latency from
an action to every seat's update (p50, p99, max), seated disconnects, the
flooders' answers (and how quickly they came), spectators admitted and
refused, the probe's slowest answer, and the server's peak memory (VmHWM).
Prints JSON with ``--json`` and a short table. Bounded: it stops by itself.

    python bench/abuse.py [--tables 250] [--think 500] [--spectators 600] [--seconds 30] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server import (
    HOST,
    Player,
    Stats,
    Table,
    cpu_seconds,
    free_port,
    percentile,
    post,
    raise_file_limit,
    raw_post,
    stop,
    wait_listening,
)

# ``ohhell serve`` with its default limits; only the bots' pause is off (the
# tables are all people) and nobody counts as away during the run.
SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import create_app
run(create_app(sys.argv[1], away_after=3600.0, bot_delay=0.0, clock=0), "127.0.0.1", int(sys.argv[2]))
"""


class Abuse:
    """What the abusers and the probe saw."""

    def __init__(self) -> None:
        self.created = 0  # tables the flooder made
        self.refused = 0  # ... and was refused (429)
        self.closed = 0  # ... and found its connection closed unanswered (held off)
        self.flood_ms: list[float] = []  # each flood answer's time
        self.oversize_ms: list[float] = []
        self.oversize_status: dict[int, int] = {}
        self.spectators_in = 0
        self.spectators_refused = 0
        self.probe_ms: list[float] = []
        self.seated_disconnects = 0


async def timed_post(port: int, path: str, body: dict[str, Any], local: str) -> tuple[int, float]:
    """The status of a POST (0: closed unanswered) and how long it took, ms."""
    t0 = time.perf_counter()
    status, _ = await raw_post(port, path, body, local)
    return status, (time.perf_counter() - t0) * 1e3


async def flood(port: int, abuse: Abuse, until: float) -> None:
    while time.perf_counter() < until:
        status, ms = await timed_post(port, "/api/tables", {}, "127.0.3.1")
        abuse.flood_ms.append(ms)
        if status == 200:
            abuse.created += 1
        elif status == 429:
            abuse.refused += 1
        elif status == 0:
            abuse.closed += 1


async def oversize(port: int, abuse: Abuse, until: float) -> None:
    while time.perf_counter() < until:
        body = {"options": {"start-cards": "20000000"}}
        status, ms = await timed_post(port, "/api/tables", body, "127.0.3.2")
        abuse.oversize_ms.append(ms)
        abuse.oversize_status[status] = abuse.oversize_status.get(status, 0) + 1


async def probe(port: int, abuse: Abuse, until: float) -> None:
    while time.perf_counter() < until:
        t0 = time.perf_counter()
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=("127.0.3.3", 0))
        writer.write(
            f"GET /api/options HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        await reader.read()
        writer.close()
        abuse.probe_ms.append((time.perf_counter() - t0) * 1e3)
        await asyncio.sleep(0.1)


async def spectate(
    port: int, table_id: str, local: str, abuse: Abuse, until: float, rng: random.Random
) -> None:
    """A watcher: joins in the first seconds (the crowd arrives at once),
    watches a while, leaves, comes back; refused, it tries again later, as
    the page does."""
    await asyncio.sleep(rng.uniform(0.0, 2.0))
    backoff = 0.5
    while time.perf_counter() < until:
        try:
            async with connect(
                f"ws://{HOST}:{port}/ws/{table_id}",
                ping_interval=None,
                local_addr=(local, 0),
                open_timeout=30,
            ) as ws:
                await ws.send('{"type":"hello"}')
                abuse.spectators_in += 1
                backoff = 0.5
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(rng.uniform(3.0, 10.0)):
                        async for _ in ws:
                            pass
            await asyncio.sleep(rng.uniform(0.5, 2.0))
        except (ConnectionClosed, InvalidStatus, OSError):
            abuse.spectators_refused += 1
            await asyncio.sleep(backoff * rng.uniform(1.0, 1.5))
            backoff = min(15.0, backoff * 2)


async def seated_table(
    slot: int,
    args: argparse.Namespace,
    port: int,
    stats: Stats,
    abuse: Abuse,
    ids: list[str],
    ready: asyncio.Semaphore,
) -> None:
    """One table of four people from one address; a finished match is replaced."""
    rng = random.Random(slot)
    local = f"127.0.1.{1 + slot % 250}" if slot < 250 else f"127.0.4.{1 + slot % 250}"
    while True:
        async with ready:
            host = await post(port, "/api/tables", {"seats": ["human"] * 4, "clock": 0}, local)
            table_id, tokens = host["table"], {0: host["token"]}
            for seat in range(1, 4):
                tokens[seat] = (await post(port, f"/api/tables/{table_id}/join", {"seat": seat}, local))[
                    "token"
                ]
            table = Table(4, stats)
            players = [Player(table, s, tokens[s], args.think / 1000, rng) for s in range(4)]
            tasks = [asyncio.create_task(p.play(port, table_id, local)) for p in players]
            while any(p.ws is None for p in players):
                for t in tasks:
                    if t.done():
                        await t
                await asyncio.sleep(0.01)
            await post(port, f"/api/tables/{table_id}/start", {"token": host["token"]}, local)
        ids.append(table_id)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, ConnectionClosed):
                abuse.seated_disconnects += 1
        if not table.over:  # a socket closed before the match ended
            abuse.seated_disconnects += sum(
                1 for p in players if p.ws is not None and p.ws.close_code not in (None, 1000)
            )


async def abusers(args: argparse.Namespace) -> dict[str, Any]:
    """The abusers' side (``--abuser PORT``): watchers, the flood, the oversized options."""
    port, watched = args.abuser, args.watched.split(",")
    abuse = Abuse()
    until = time.perf_counter() + args.seconds
    tasks = [
        spectate(
            port,
            watched[i % len(watched)],
            f"127.0.2.{1 + i % args.spectator_addresses}",
            abuse,
            until,
            random.Random(i),
        )
        for i in range(args.spectators)
    ]
    await asyncio.gather(
        *tasks, flood(port, abuse, until), oversize(port, abuse, until), return_exceptions=True
    )
    return {k: v for k, v in vars(abuse).items() if k not in ("probe_ms", "seated_disconnects")}


def peak_memory_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def run(args: argparse.Namespace, db: str) -> dict[str, Any]:
    raise_file_limit(4 * (args.tables * 4 + args.spectators) + 512)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, db, str(port)])
    stats, abuse = Stats(), Abuse()
    tasks: list[asyncio.Task[Any]] = []
    try:
        await wait_listening(port, proc)
        ids: list[str] = []
        ready = asyncio.Semaphore(20)
        tasks = [
            asyncio.create_task(seated_table(i, args, port, stats, abuse, ids, ready))
            for i in range(args.tables)
        ]
        setup_deadline = time.perf_counter() + 300
        while len(ids) < args.tables:
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()  # type: ignore[misc]
            if time.perf_counter() > setup_deadline:
                raise RuntimeError(f"only {len(ids)} of {args.tables} tables were set up in 5 minutes")
            await asyncio.sleep(0.05)
        await asyncio.sleep(args.warmup)

        # The anchor: the same seated load with nobody abusing the server,
        # measured in this run just before the abuse (the machine is shared).
        stats.measuring = True
        cpu0, client0 = cpu_seconds(proc.pid), sum(os.times()[:2])
        await asyncio.sleep(args.seconds)
        cpu1, client1 = cpu_seconds(proc.pid), sum(os.times()[:2])
        calm = list(stats.latency_all)
        calm_accepted = stats.accepted
        stats.latency_all.clear()

        start = time.perf_counter()
        until = start + args.seconds
        watched = ids[: max(1, args.watched_tables)]
        # The abusers run in a process of their own, so that their work does
        # not slow this process's reading of the seated players' updates.
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--abuser",
            str(port),
            "--watched=" + ",".join(watched),  # one word: an id may start with "-"
            "--seconds",
            str(args.seconds),
            "--spectators",
            str(args.spectators),
            "--spectator-addresses",
            str(args.spectator_addresses),
            stdout=asyncio.subprocess.PIPE,
        )
        await probe(port, abuse, until)
        report, _ = await child.communicate()
        seen = json.loads(report)
        for key, value in seen.items():
            setattr(abuse, key, value)
        stats.measuring = False
        elapsed = time.perf_counter() - start
        cpu2, client2 = cpu_seconds(proc.pid), sum(os.times()[:2])
        peak = peak_memory_mb(proc.pid)
    finally:
        await stop(tasks, proc)

    ms = [x * 1e3 for x in stats.latency_all]

    def summary(values: list[float]) -> dict[str, float | None]:
        return {
            "count": len(values),
            "p50": round(statistics.median(values), 2) if values else None,
            "p99": round(percentile(values, 0.99), 2) if values else None,
            "max": round(max(values), 2) if values else None,
        }

    return {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "seats": args.tables * 4,
        "think_ms": args.think,
        "seconds": round(elapsed, 1),
        "actions_per_s": round((stats.accepted - calm_accepted) / elapsed, 1),
        "seated_latency_ms": summary(ms),
        "seated_latency_ms_without_abuse": summary([x * 1e3 for x in calm]),
        "seated_disconnects": abuse.seated_disconnects,
        "seated_errors": stats.errors,
        "spectators": {
            "sockets": args.spectators,
            "joins": abuse.spectators_in,
            "refused": abuse.spectators_refused,
        },
        "flood": {
            "created": abuse.created,
            "refused_429": abuse.refused,
            "closed_unanswered": abuse.closed,
            "answer_ms": summary(abuse.flood_ms),
        },
        "oversize": {"status": abuse.oversize_status, "answer_ms": summary(abuse.oversize_ms)},
        "probe_ms": summary(abuse.probe_ms),
        "server_peak_mb": round(peak, 1),
        "server_cpu_pct": {
            "without_abuse": round(100 * (cpu1 - cpu0) / args.seconds),
            "under_abuse": round(100 * (cpu2 - cpu1) / elapsed),
        },
        "client_cpu_pct": {
            "without_abuse": round(100 * (client1 - client0) / args.seconds),
            "under_abuse": round(100 * (client2 - client1) / elapsed),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=250, help="tables of 4 seated people (default 250)")
    parser.add_argument(
        "--think", type=float, default=500.0, help="mean ms before a person acts (default 500)"
    )
    parser.add_argument(
        "--spectators", type=int, default=600, help="watchers joining and leaving (default 600)"
    )
    parser.add_argument("--spectator-addresses", type=int, default=20, help="their addresses (default 20)")
    parser.add_argument("--watched-tables", type=int, default=3, help="tables they crowd (default 3)")
    parser.add_argument("--seconds", type=float, default=30.0, help="the measurement window (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--abuser", type=int, help=argparse.SUPPRESS)  # the abusers' own process
    parser.add_argument("--watched", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.abuser:
        raise_file_limit(4 * args.spectators + 256)
        print(json.dumps(asyncio.run(abusers(args))))
        return
    with tempfile.TemporaryDirectory(prefix="ohhell-abuse-") as folder:
        out = asyncio.run(run(args, f"sqlite:///{folder}/abuse.db"))
    if args.json:
        print(json.dumps(out, indent=2))
        print()
    lat = out["seated_latency_ms"]
    calm = out["seated_latency_ms_without_abuse"]
    print(f"{'seated players':>22}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    print(f"{'without abuse (anchor)':>22}{calm['p50']:>9}{calm['p99']:>9}{calm['max']:>9}")
    print(f"{'under abuse':>22}{lat['p50']:>9}{lat['p99']:>9}{lat['max']:>9}")
    print(
        f"{out['seats']} seats; seated disconnects {out['seated_disconnects']}; probe max "
        f"{out['probe_ms']['max']} ms (p99 {out['probe_ms']['p99']}); server peak {out['server_peak_mb']} MB"
    )
    print(
        f"CPU, % of one core, without / under abuse: server {out['server_cpu_pct']['without_abuse']} / "
        f"{out['server_cpu_pct']['under_abuse']}; load generator {out['client_cpu_pct']['without_abuse']}"
        f" / {out['client_cpu_pct']['under_abuse']} ({out['machine']['cores']} cores in all)"
    )
    print(
        f"flood: {out['flood']['created']} tables made, {out['flood']['refused_429']} refused, "
        f"{out['flood']['closed_unanswered']} closed unanswered; "
        f"oversized options answered {out['oversize']['status']} "
        f"(max {out['oversize']['answer_ms']['max']} ms); "
        f"spectators joined {out['spectators']['joins']} times, refused {out['spectators']['refused']}"
    )
    ok = lat["p99"] is not None and lat["p99"] < 50 and out["seated_disconnects"] == 0
    print(
        f"targets (p99 < 50 ms, no seated disconnect, probe < 100 ms, < 1 GB): "
        f"{'met' if ok and out['probe_ms']['max'] < 100 and out['server_peak_mb'] < 1024 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
