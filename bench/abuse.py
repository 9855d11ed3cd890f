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
- one client (127.0.3.4) holding ``--slow-bodies`` connections (4,100) that
  each send the head of a ``POST /api/replay`` and then its body one byte
  every 2 s, opening another 1-3 s after one is refused or closed;
- one client (127.0.3.5) sending ``--replayers`` (6) of the longest records
  a match can make (6 players, 200 hands of 13 cards from an Australian
  pack: 17,760 actions) to ``POST /api/replay`` at once, each again as soon
  as it is answered (a second later when refused);
- a probe (127.0.3.3, in a process of its own, so that the load generators'
  own event loops add nothing to what it measures) asking
  ``GET /api/options`` every 100 ms: how long a request of someone else
  waits because of all this, and whether it is served at all.

Measured over ``--seconds`` after a warm-up, first with nobody abusing the
server (the anchor, in the same run: the machine may be shared) and then
with the abuse: the seated players' latency from
an action to every seat's update (p50, p99, max), seated disconnects, the
flooders' answers (and how quickly they came), spectators admitted and
refused, the slow bodies' and the replays' answers, the probe's answers
(slowest, and any that was not 200), and the server's peak memory (VmHWM).
Prints JSON with ``--json``, a short table and whether each target is met.
Bounded: it stops by itself.

    python bench/abuse.py [--tables 250] [--think 500] [--spectators 600] [--slow-bodies 4100]
                          [--replayers 6] [--seconds 30] [--json]
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
    machine_busy,
    percentile,
    post,
    raise_file_limit,
    raw_post,
    stop,
    wait_listening,
)

# ``ohhell serve`` with its default limits and its worker processes (the
# expert's, and the replays'); only the bots' pause is off (the tables are
# all people) and nobody counts as away during the run.
SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import create_app
from ohhell.web.tables.thinking import default_workers
app = create_app(sys.argv[1], away_after=3600.0, bot_delay=0.0, clock=0, think_workers=default_workers())
run(app, "127.0.0.1", int(sys.argv[2]))
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
        self.probe_status: dict[int, int] = {}
        self.seated_disconnects = 0
        self.slow_status: dict[int, int] = {}  # how each slow body ended (0: closed unanswered)
        self.slow_open_s = 0.0  # the longest a slow body's connection stayed open
        self.replay_status: dict[int, int] = {}
        self.replay_ms: list[float] = []


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
        answer = await reader.read()
        writer.close()
        abuse.probe_ms.append((time.perf_counter() - t0) * 1e3)
        status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
        abuse.probe_status[status] = abuse.probe_status.get(status, 0) + 1
        await asyncio.sleep(0.1)


async def slow_bodies(port: int, abuse: Abuse, until: float, count: int) -> None:
    """``count`` connections from one address, each sending a replay's head
    and then its body a byte every 2 s (the red team's slow bodies)."""
    head = f"POST /api/replay HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Length: 100000\r\n\r\n".encode()

    async def one(rng: random.Random) -> None:
        await asyncio.sleep(rng.uniform(0.0, 3.0))  # they arrive over the first 3 s
        while time.perf_counter() < until:
            status = 0
            opened = time.perf_counter()
            try:
                reader, writer = await asyncio.open_connection(HOST, port, local_addr=("127.0.3.4", 0))
            except OSError:
                status = -1  # not even connected
            else:
                try:
                    writer.write(head)
                    while time.perf_counter() < until:
                        try:
                            answer = await asyncio.wait_for(reader.read(64), 2.0)
                        except TimeoutError:
                            writer.write(b"x")  # one more byte of the body
                            continue
                        if answer.startswith(b"HTTP/"):
                            status = int(answer.split(b" ", 2)[1])
                        break
                    else:
                        status = -2  # still open when the abuse ended
                except OSError:
                    pass
                finally:
                    writer.close()
            abuse.slow_status[status] = abuse.slow_status.get(status, 0) + 1
            abuse.slow_open_s = max(abuse.slow_open_s, time.perf_counter() - opened)
            await asyncio.sleep(rng.uniform(1.0, 3.0))

    await asyncio.gather(*(one(random.Random(i)) for i in range(count)))


async def replays(port: int, abuse: Abuse, until: float, count: int, record: bytes) -> None:
    """``count`` replays of the longest record at once from one address,
    each sent again as soon as it is answered."""
    head = (
        f"POST /api/replay HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Length: {len(record)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()

    async def one() -> None:
        while time.perf_counter() < until:
            t0 = time.perf_counter()
            status = 0
            try:
                reader, writer = await asyncio.open_connection(HOST, port, local_addr=("127.0.3.5", 0))
                try:
                    writer.write(head + record)
                    answer = await reader.read()
                finally:
                    writer.close()
                if answer.startswith(b"HTTP/"):
                    status = int(answer.split(b" ", 2)[1])
            except OSError:
                pass
            abuse.replay_ms.append((time.perf_counter() - t0) * 1e3)
            abuse.replay_status[status] = abuse.replay_status.get(status, 0) + 1
            if status != 200:
                await asyncio.sleep(1.0)  # refused: again a second later, as a script would

    await asyncio.gather(*(one() for _ in range(count)))


def longest_record() -> bytes:
    """The record of the longest match the rules allow a replay of: the
    worst case for ``POST /api/replay`` (about 3 s of CPU, an 8 MB answer)."""
    from ohhell.bots.simulate import random_match
    from ohhell.record import Record, dumps
    from ohhell.rules import make_rules

    options = {
        "players": "6",
        "deck": "australian",
        "sequence": "fixed",
        "fixed-hands": "200",
        "start-cards": "13",
    }
    state = random_match(make_rules("pagat", options), random.Random(1))
    return dumps(Record.from_state(state)).encode()


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
    """The abusers' side (``--abuser PORT``): watchers, the flood, the
    oversized options, the slow bodies and the replays."""
    port, watched = args.abuser, args.watched.split(",")
    abuse = Abuse()
    with open(args.record, "rb") as f:
        record = f.read()
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
        *tasks,
        flood(port, abuse, until),
        oversize(port, abuse, until),
        slow_bodies(port, abuse, until, args.slow_bodies),
        replays(port, abuse, until, args.replayers, record),
        return_exceptions=True,
    )
    return {
        k: v for k, v in vars(abuse).items() if k not in ("probe_ms", "probe_status", "seated_disconnects")
    }


async def prober(args: argparse.Namespace) -> dict[str, Any]:
    """The probe's side (``--probe PORT``): its own process, its own event loop."""
    abuse = Abuse()
    await probe(args.probe, abuse, time.perf_counter() + args.seconds)
    return {"probe_ms": abuse.probe_ms, "probe_status": abuse.probe_status}


def peak_memory_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def run(args: argparse.Namespace, db: str, folder: str) -> dict[str, Any]:
    raise_file_limit(4 * (args.tables * 4 + args.spectators + args.slow_bodies) + 512)
    record = os.path.join(folder, "longest.ohr")
    with open(record, "wb") as f:
        f.write(longest_record())
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
        cpu0, client0, busy0 = cpu_seconds(proc.pid), sum(os.times()[:2]), machine_busy()
        await asyncio.sleep(args.seconds)
        cpu1, client1, busy1 = cpu_seconds(proc.pid), sum(os.times()[:2]), machine_busy()
        children1 = sum(os.times()[2:4])
        calm = list(stats.latency_all)
        calm_accepted = stats.accepted
        stats.latency_all.clear()

        start = time.perf_counter()
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
            "--slow-bodies",
            str(args.slow_bodies),
            "--replayers",
            str(args.replayers),
            "--record",
            record,
            stdout=asyncio.subprocess.PIPE,
        )
        prober = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--probe",
            str(port),
            "--seconds",
            str(args.seconds),
            stdout=asyncio.subprocess.PIPE,
        )
        (report, _), (probed, _) = await asyncio.gather(child.communicate(), prober.communicate())
        for key, value in {**json.loads(report), **json.loads(probed)}.items():
            if key.endswith("_status"):  # JSON made the statuses text
                value = {int(k): v for k, v in value.items()}
            setattr(abuse, key, value)
        stats.measuring = False
        elapsed = time.perf_counter() - start
        cpu2, client2, busy2 = cpu_seconds(proc.pid), sum(os.times()[:2]), machine_busy()
        abusers = sum(os.times()[2:4]) - children1  # the abusers' and the probe's processes, waited for
        peak = peak_memory_mb(proc.pid)
    finally:
        await stop(tasks, proc)

    ms = [x * 1e3 for x in stats.latency_all]
    cores = os.cpu_count() or 1

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
        "slow_bodies": {
            "connections": args.slow_bodies,
            "status": abuse.slow_status,
            "longest_open_s": round(abuse.slow_open_s, 1),
        },
        "replays": {
            "at_once": args.replayers,
            "status": abuse.replay_status,
            "answer_ms": summary(abuse.replay_ms),
        },
        "probe_ms": summary(abuse.probe_ms),
        "probe_status": abuse.probe_status,
        "server_peak_mb": round(peak, 1),
        "server_cpu_pct": {
            "without_abuse": round(100 * (cpu1 - cpu0) / args.seconds),
            "under_abuse": round(100 * (cpu2 - cpu1) / elapsed),
        },
        "client_cpu_pct": {
            "without_abuse": round(100 * (client1 - client0) / args.seconds),
            "under_abuse": round(100 * (client2 - client1) / elapsed),
        },
        "abusers_cpu_pct": round(100 * abusers / elapsed),
        # The whole machine, as a percentage of one core; what the processes
        # above do not explain is other work on the machine.
        "machine_cpu_pct": {
            "without_abuse": round(cores * 100 * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])),
            "under_abuse": round(cores * 100 * (busy2[0] - busy1[0]) / max(1, busy2[1] - busy1[1])),
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
    parser.add_argument(
        "--slow-bodies", type=int, default=4100, help="slow-body connections from one address (default 4100)"
    )
    parser.add_argument(
        "--replayers", type=int, default=6, help="longest replays at once from one address (default 6)"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="the measurement window (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--abuser", type=int, help=argparse.SUPPRESS)  # the abusers' own process
    parser.add_argument("--watched", help=argparse.SUPPRESS)
    parser.add_argument("--record", help=argparse.SUPPRESS)
    parser.add_argument("--probe", type=int, help=argparse.SUPPRESS)  # the probe's own process
    args = parser.parse_args()
    if args.abuser:
        raise_file_limit(4 * (args.spectators + args.slow_bodies) + 256)
        print(json.dumps(asyncio.run(abusers(args))))
        return
    if args.probe:
        print(json.dumps(asyncio.run(prober(args))))
        return
    with tempfile.TemporaryDirectory(prefix="ohhell-abuse-") as folder:
        out = asyncio.run(run(args, f"sqlite:///{folder}/abuse.db", folder))
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
    machine = out["machine_cpu_pct"]
    print(
        f"CPU, % of one core, without / under abuse: server {out['server_cpu_pct']['without_abuse']} / "
        f"{out['server_cpu_pct']['under_abuse']}; load generator {out['client_cpu_pct']['without_abuse']}"
        f" / {out['client_cpu_pct']['under_abuse']}; abusers and probe - / {out['abusers_cpu_pct']}; "
        f"the whole machine {machine['without_abuse']} / {machine['under_abuse']}"
        f" ({out['machine']['cores']} cores in all)"
    )
    print(
        f"flood: {out['flood']['created']} tables made, {out['flood']['refused_429']} refused, "
        f"{out['flood']['closed_unanswered']} closed unanswered; "
        f"oversized options answered {out['oversize']['status']} "
        f"(max {out['oversize']['answer_ms']['max']} ms); "
        f"spectators joined {out['spectators']['joins']} times, refused {out['spectators']['refused']}"
    )
    slow, replayed = out["slow_bodies"], out["replays"]
    print(
        f"slow bodies ({slow['connections']} connections): ended {slow['status']} "
        f"(-1: not connected, -2: still open at the end), the longest open {slow['longest_open_s']} s; "
        f"replays ({replayed['at_once']} at once): answered {replayed['status']}, "
        f"p50 {replayed['answer_ms']['p50']} ms"
    )
    probe, statuses = out["probe_ms"], out["probe_status"]
    targets = [
        ("seated p99 under abuse < 50 ms", f"{lat['p99']} ms", lat["p99"] is not None and lat["p99"] < 50),
        ("no seated disconnect", str(out["seated_disconnects"]), out["seated_disconnects"] == 0),
        (
            "no probe answer slower than 100 ms",
            f"max {probe['max']} ms",
            probe["max"] is not None and probe["max"] < 100,
        ),
        ("every probe answered 200", str(statuses), set(statuses) == {200}),
        ("server peak memory < 1 GB", f"{out['server_peak_mb']} MB", out["server_peak_mb"] < 1024),
    ]
    print("targets:")
    for name, value, met in targets:
        print(f"  {name}: {value}: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
