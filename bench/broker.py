"""Brokers for live updates between server processes: Redis pub/sub against
PostgreSQL LISTEN/NOTIFY, as the server would use them from asyncio.

One publisher process and one subscriber process (started with
multiprocessing, so every message really crosses processes) per run; the
messages are JSON table updates of about 300 bytes. Four ways to publish:
- ``redis``: ``PUBLISH`` on a ``redis.asyncio`` client, each message awaited
  before the next; the subscriber reads a ``pubsub()`` connection of its own;
- ``redis-pipe``: the same, but the messages due in one event-loop tick go in
  one pipeline (``transaction=False``), and ``--batch`` messages a pipeline at
  the highest rate;
- ``pg``: ``SELECT pg_notify(ch, payload)`` on a psycopg 3 async connection in
  autocommit, so each message is a transaction of its own; the subscriber
  runs ``LISTEN ch`` and reads ``conn.notifies()``;
- ``pg-batch``: the messages of one tick (``--batch`` at the highest rate) in
  one statement and transaction, ``SELECT pg_notify(ch, p) FROM unnest(...)``.

Each run has two phases:
- steady: ``--rate`` messages a second (default 2,000; the loop wakes about
  every millisecond and publishes what is due) for 60% of the run's time.
  Latency is one way, from the publisher handing a message to the client
  library to the subscriber's loop having it (before parsing), on
  ``time.monotonic()`` (CLOCK_MONOTONIC, one clock for every process on
  Linux): median, p99, max;
  also the rate the publisher kept up (below ``--rate`` when it cannot);
- highest rate: the publisher publishes as fast as it can for the other 40%,
  never more than ``WINDOW`` messages ahead of the subscriber (it reads the
  subscriber's count from shared memory, not through the broker), so the
  broker's buffers stay bounded and the rate is one the pair sustains:
  messages the subscriber received while the publisher ran, a second.
CPU seconds per 10,000 messages (``getrusage``) of the publisher (in the
steady phase while it publishes, its loop's idle wake-ups left out: the JSON
has them in too; at the highest rate, from its first to its last message),
the subscriber (from the phase's start marker to its end marker,
parsing included) and the broker (the Redis server process, or both
PostgreSQL backends, from /proc; none when the broker is not on this machine).

The four alternate, Redis and PostgreSQL in turn, for ``--rounds`` rounds (the
even rounds in reverse order), since a shared machine is noisy; latencies are
pooled over the rounds, the highest rate is the best round's, CPU is the sum
over the rounds per message. ``--seconds`` is the measured time of the whole
run (default 40, a little more with the processes' start-up); the broker, the
publisher and the subscriber share the machine's cores.

Prints JSON with ``--json`` and a short table.

    python bench/broker.py [--seconds 40] [--rate 2000] [--batch 100] [--rounds 2]
                           [--redis URL] [--pg URL] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import importlib.util
import json
import multiprocessing as mp
import os
import platform
import resource
import statistics
import time
from multiprocessing.connection import Connection
from typing import Any

import orjson
import psycopg
import redis.asyncio as aioredis

REDIS = "redis://127.0.0.1:6379/0"
PG = "postgresql://postgres@127.0.0.1:5432/test"
CHANNEL = "ohhell_bench"
MODES = ("redis", "pg", "redis-pipe", "pg-batch")
WINDOW = 10_000  # messages the publisher may be ahead of the subscriber at the highest rate
CLK_TCK = os.sysconf("SC_CLK_TCK")
TICK = 0.001  # the steady phase's loop wakes up this often


# --- Measurements ---


def cpu_self() -> float:
    """User + system CPU seconds of this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_of(pids: list[int]) -> float | None:
    """User + system CPU seconds of other processes (from /proc), None where one cannot be read."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def update(seq: int, t: float) -> bytes:
    """A table update of about 300 bytes, stamped with its sequence number and handing-over time."""
    return orjson.dumps(
        {
            "type": "state",
            "table": "t7Kq2mX9",
            "version": seq,
            "seq": seq,
            "t": t,
            "obs": {
                "phase": "play",
                "round": 7,
                "dealer": 3,
                "lead": 0,
                "trump": "S",
                "actors": [seq % 4],
                "trick": [["QH", 0], ["10H", 1], ["2S", 2]],
                "bids": [2, 1, 0, 3],
                "tricks": [1, 0, 0, 2],
                "scores": [34, 21, 18, 40],
            },
            "last": {"kind": "play", "seat": 2, "card": "2S"},
        }
    )


# --- The brokers, behind one small interface ---


class Publisher:
    """Publishes lists of payloads on one connection."""

    pids: list[int]  # broker processes whose CPU counts (PostgreSQL: this connection's backend)

    async def one(self, payload: bytes) -> None:
        raise NotImplementedError

    async def many(self, payloads: list[bytes]) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class RedisPublisher(Publisher):
    def __init__(self, url: str, batched: bool) -> None:
        self.url = url
        self.batched = batched

    async def open(self) -> RedisPublisher:
        self.client = aioredis.from_url(self.url)
        self.pids = [int((await self.client.info("server"))["process_id"])]
        return self

    async def one(self, payload: bytes) -> None:
        await self.client.publish(CHANNEL, payload)

    async def many(self, payloads: list[bytes]) -> None:
        if not self.batched:
            for payload in payloads:
                await self.client.publish(CHANNEL, payload)
            return
        pipe = self.client.pipeline(transaction=False)
        for payload in payloads:
            pipe.publish(CHANNEL, payload)
        await pipe.execute()

    async def close(self) -> None:
        await self.client.aclose()


class PgPublisher(Publisher):
    def __init__(self, url: str, batched: bool) -> None:
        self.url = url
        self.batched = batched

    async def open(self) -> PgPublisher:
        self.conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        cur = await self.conn.execute("SELECT pg_backend_pid()")
        row = await cur.fetchone()
        assert row is not None
        self.pids = [int(row[0])]
        return self

    async def one(self, payload: bytes) -> None:
        await self.conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload.decode()))

    async def many(self, payloads: list[bytes]) -> None:
        if not self.batched:
            for payload in payloads:
                await self.conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload.decode()))
            return
        await self.conn.execute(
            "SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p", (CHANNEL, [p.decode() for p in payloads])
        )

    async def close(self) -> None:
        await self.conn.close()


async def open_publisher(mode: str, args: argparse.Namespace) -> Publisher:
    if mode.startswith("redis"):
        return await RedisPublisher(args.redis, mode == "redis-pipe").open()
    return await PgPublisher(args.pg, mode == "pg-batch").open()


# --- The publisher process ---


async def steady(pub: Publisher, seconds: float, rate: float, seq: int) -> dict[str, float]:
    """Publish ``rate`` messages a second for ``seconds``; CPU in all and
    while publishing (the loop's idle wake-ups left out)."""
    sent = 0
    busy = 0.0
    cpu = cpu_self()
    start = time.monotonic()
    end = start + seconds
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * rate) + 1 - sent
        if due > 0:
            before = cpu_self()
            t = time.monotonic()
            await pub.many([update(seq + sent + i, t) for i in range(due)])
            busy += cpu_self() - before
            sent += due
        await asyncio.sleep(TICK)
    finished = time.monotonic()
    return {"sent": sent, "start": start, "end": finished, "cpu": cpu_self() - cpu, "cpu_publishing": busy}


async def flat_out(pub: Publisher, seconds: float, batch: int, seq: int, received: Any) -> dict[str, float]:
    """Publish as fast as possible for ``seconds``, at most WINDOW messages
    ahead of the subscriber."""
    sent = 0
    cpu = cpu_self()
    start = time.monotonic()
    end = start + seconds
    while time.monotonic() < end:
        if seq + sent - received.value > WINDOW:
            await asyncio.sleep(TICK)
            continue
        if batch > 1:
            t = time.monotonic()
            await pub.many([update(seq + sent + i, t) for i in range(batch)])
            sent += batch
        else:
            await pub.one(update(seq + sent, time.monotonic()))
            sent += 1
    finished = time.monotonic()
    used = cpu_self() - cpu
    return {"sent": sent, "start": start, "end": finished, "cpu": used, "cpu_publishing": used}


async def publisher(
    mode: str, args: argparse.Namespace, phases: dict[str, float], received: Any
) -> dict[str, Any]:
    pub = await open_publisher(mode, args)
    batch = args.batch if mode in ("redis-pipe", "pg-batch") else 1
    out: dict[str, Any] = {}
    seq = 0
    try:
        for phase, seconds in phases.items():
            await pub.one(orjson.dumps({"mark": "start", "phase": phase, "pids": pub.pids, "seq": seq}))
            if phase == "steady":
                done = await steady(pub, seconds, args.rate, seq)
            else:
                done = await flat_out(pub, seconds, batch, seq, received)
            seq += int(done["sent"])
            await pub.one(
                orjson.dumps({"mark": "end", "phase": phase, "start": done["start"], "end": done["end"]})
            )
            out[phase] = {**done, "seconds": done["end"] - done["start"]}
        await pub.one(orjson.dumps({"mark": "done"}))
    finally:
        await pub.close()
    return out


# --- The subscriber process ---


class Phase:
    """What the subscriber counts between a phase's start and end markers."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.latency: list[float] = []  # seconds
        self.arrival: list[float] = []
        self.cpu = cpu_self()
        self.broker_cpu = cpu_of(pids)

    def close(self, mark: dict[str, Any]) -> dict[str, Any]:
        broker = cpu_of(self.pids)
        return {
            "received": len(self.latency),
            "in_window": bisect.bisect_right(self.arrival, mark["end"]),  # before the publisher stopped
            "latency_ms": [x * 1e3 for x in self.latency],
            "cpu": cpu_self() - self.cpu,
            "broker_cpu": None if broker is None or self.broker_cpu is None else broker - self.broker_cpu,
        }


class Subscriber:
    """Counts the messages, by phase, given to ``on_message``."""

    def __init__(self, own_pids: list[int], received: Any) -> None:
        self.own_pids = own_pids  # broker processes serving this subscriber
        self.received = received
        self.count = 0
        self.phase: Phase | None = None
        self.phases: dict[str, dict[str, Any]] = {}
        self.done = False

    def on_message(self, data: bytes | str) -> None:
        now = time.monotonic()
        message = orjson.loads(data)
        if "mark" not in message:
            self.count += 1
            self.received.value = self.count
            if self.phase is not None:
                self.phase.latency.append(now - message["t"])
                self.phase.arrival.append(now)
            return
        mark = message["mark"]
        if mark == "start":
            self.count = message["seq"]
            self.phase = Phase(sorted(set(self.own_pids + message["pids"])))
        elif mark == "end" and self.phase is not None:
            self.phases[message["phase"]] = self.phase.close(message)
            self.phase = None
        elif mark == "done":
            self.done = True


async def subscribe_redis(args: argparse.Namespace, sub: Subscriber, ready: Connection) -> None:
    client = aioredis.from_url(args.redis)
    sub.own_pids = [int((await client.info("server"))["process_id"])]
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(CHANNEL)
        ready.send("ready")
        async for message in pubsub.listen():
            if message["type"] == "message":
                sub.on_message(message["data"])
                if sub.done:
                    break
    finally:
        await pubsub.aclose()
        await client.aclose()


async def subscribe_pg(args: argparse.Namespace, sub: Subscriber, ready: Connection) -> None:
    async with await psycopg.AsyncConnection.connect(args.pg, autocommit=True) as conn:
        cur = await conn.execute("SELECT pg_backend_pid()")
        row = await cur.fetchone()
        assert row is not None
        sub.own_pids = [int(row[0])]
        await conn.execute(f"LISTEN {CHANNEL}")
        ready.send("ready")
        async for notify in conn.notifies():
            sub.on_message(notify.payload)
            if sub.done:
                break


def run_subscriber(mode: str, args: argparse.Namespace, received: Any, pipe: Connection) -> None:
    sub = Subscriber([], received)
    try:
        if mode.startswith("redis"):
            asyncio.run(subscribe_redis(args, sub, pipe))
        else:
            asyncio.run(subscribe_pg(args, sub, pipe))
        pipe.send(sub.phases)
    except Exception as e:  # the parent reports it
        pipe.send(f"subscriber: {e!r}")


def run_publisher(
    mode: str, args: argparse.Namespace, phases: dict[str, float], received: Any, pipe: Connection
) -> None:
    try:
        pipe.send(asyncio.run(publisher(mode, args, phases, received)))
    except Exception as e:
        pipe.send(f"publisher: {e!r}")


# --- One run: a subscriber process, then a publisher process ---


def receive(pipe: Connection, timeout: float, who: str) -> Any:
    if not pipe.poll(timeout):
        raise RuntimeError(f"{who}: no answer in {timeout:.0f} s")
    answer = pipe.recv()
    if isinstance(answer, str) and answer != "ready":
        raise RuntimeError(answer)
    return answer


def one_run(mode: str, args: argparse.Namespace, phases: dict[str, float]) -> dict[str, Any]:
    ctx = mp.get_context("fork")
    received = ctx.Value("q", 0, lock=False)  # the subscriber's count, for the publisher's window
    sub_end, sub_pipe = ctx.Pipe()
    pub_end, pub_pipe = ctx.Pipe()
    procs = [ctx.Process(target=run_subscriber, args=(mode, args, received, sub_pipe), daemon=True)]
    try:
        procs[0].start()
        receive(sub_end, 30, "subscriber")  # subscribed before anything is published
        procs.append(
            ctx.Process(target=run_publisher, args=(mode, args, phases, received, pub_pipe), daemon=True)
        )
        procs[1].start()
        limit = sum(phases.values()) + 60
        pub = receive(pub_end, limit, "publisher")
        sub = receive(sub_end, 60, "subscriber")
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
                proc.join()
    return {phase: {"pub": pub[phase], "sub": sub[phase]} for phase in phases}


# --- The whole run ---


def summary(mode: str, runs: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    def per_10k(cpu: list[float | None], messages: int) -> float | None:
        if any(c is None for c in cpu) or not messages:
            return None
        return round(1e4 * sum(c for c in cpu if c is not None) / messages, 3)

    out: dict[str, Any] = {"mode": mode, "broker": "redis" if mode.startswith("redis") else "postgresql"}
    steady = [r["steady"] for r in runs]
    ms = [x for r in steady for x in r["sub"]["latency_ms"]]
    sent = sum(r["pub"]["sent"] for r in steady)
    received = sum(r["sub"]["received"] for r in steady)
    out["steady"] = {
        "rate": args.rate,
        "sent_per_s": round(sent / sum(r["pub"]["seconds"] for r in steady), 1),
        "sent": sent,
        "lost": sent - received,
        "latency_ms": {
            "count": len(ms),
            "median": round(statistics.median(ms), 3) if ms else None,
            "p90": round(percentile(ms, 0.90), 3),
            "p99": round(percentile(ms, 0.99), 3),
            "max": round(max(ms), 3) if ms else None,
        },
        "pub_cpu_s_per_10k": per_10k([r["pub"]["cpu_publishing"] for r in steady], sent),
        "pub_cpu_s_per_10k_with_idle_loop": per_10k([r["pub"]["cpu"] for r in steady], sent),
        "sub_cpu_s_per_10k": per_10k([r["sub"]["cpu"] for r in steady], received),
        "broker_cpu_s_per_10k": per_10k([r["sub"]["broker_cpu"] for r in steady], received),
    }
    top = [r["max"] for r in runs]
    rates = [r["sub"]["in_window"] / r["pub"]["seconds"] for r in top]
    sent = sum(r["pub"]["sent"] for r in top)
    received = sum(r["sub"]["received"] for r in top)
    top_ms = [x for r in top for x in r["sub"]["latency_ms"]]
    out["max"] = {
        "batch": args.batch if mode in ("redis-pipe", "pg-batch") else 1,
        "per_s": round(max(rates)),
        "rounds_per_s": [round(x) for x in rates],
        "published_per_s": [round(r["pub"]["sent"] / r["pub"]["seconds"]) for r in top],
        "lost": sent - received,
        "latency_ms": {"median": round(statistics.median(top_ms), 3) if top_ms else None},
        "pub_cpu_s_per_10k": per_10k([r["pub"]["cpu"] for r in top], sent),
        "sub_cpu_s_per_10k": per_10k([r["sub"]["cpu"] for r in top], received),
        "broker_cpu_s_per_10k": per_10k([r["sub"]["broker_cpu"] for r in top], received),
    }
    return out


async def versions(args: argparse.Namespace) -> dict[str, Any]:
    """The brokers' versions and the PostgreSQL settings that bear on a NOTIFY's commit."""
    client = aioredis.from_url(args.redis)
    try:
        info = await client.info("server")
    finally:
        await client.aclose()
    async with await psycopg.AsyncConnection.connect(args.pg, autocommit=True) as conn:
        cur = await conn.execute(
            "SELECT current_setting('server_version'), current_setting('fsync'), "
            "current_setting('synchronous_commit')"
        )
        row = await cur.fetchone()
    assert row is not None
    return {
        "redis": info["redis_version"],
        "postgresql": row[0],
        "pg_fsync": row[1],
        "pg_synchronous_commit": row[2],
    }


def bench(args: argparse.Namespace) -> dict[str, Any]:
    each = args.seconds / (args.rounds * len(MODES))
    phases = {"steady": 0.6 * each, "max": 0.4 * each}
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    load = os.getloadavg()[0]  # other work on the machine shows here
    started = time.monotonic()
    for round_ in range(args.rounds):
        for mode in MODES if round_ % 2 == 0 else MODES[::-1]:
            runs[mode].append(one_run(mode, args, phases))
    try:
        from importlib.metadata import version

        libraries = {name: version(name) for name in ("redis", "psycopg", "orjson")}
    except Exception:  # pragma: no cover
        libraries = {}
    hiredis = importlib.util.find_spec("hiredis") is not None  # redis-py parses replies with it if installed
    return {
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "load_before": load,
            "load_after": os.getloadavg()[0],
        },
        "brokers": asyncio.run(versions(args)),
        "libraries": {**libraries, "hiredis": hiredis},
        "message_bytes": len(update(123456, time.monotonic())),
        "rounds": args.rounds,
        "steady_s_per_run": round(phases["steady"], 2),
        "max_s_per_run": round(phases["max"], 2),
        "window": WINDOW,
        "wall_s": round(time.monotonic() - started, 1),
        "results": [summary(mode, runs[mode], args) for mode in MODES],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="measured time in all (default 40)")
    parser.add_argument("--rate", type=float, default=2000.0, help="messages a second, steady (default 2000)")
    parser.add_argument("--batch", type=int, default=100, help="messages a batch at the highest rate (100)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the four (default 2)")
    parser.add_argument("--redis", default=REDIS, help=f"Redis URL (default {REDIS})")
    parser.add_argument("--pg", default=PG, help=f"PostgreSQL URL (default {PG})")
    parser.add_argument("--json", action="store_true", help="print the JSON too")
    args = parser.parse_args()

    out = bench(args)

    if args.json:
        print(json.dumps(out, indent=2))
        print()
    rate = f"{args.rate:.0f}/s"
    print(
        f"{'':>11}{'steady ' + rate + ': latency ms':>33}{'sent/s':>9}{'CPU s/10k msgs':>24}"
        f"{'highest':>10}{'CPU s/10k msgs':>24}"
    )
    print(
        f"{'mode':<11}{'median':>11}{'p99':>11}{'max':>11}{'':>9}{'pub':>8}{'sub':>8}{'broker':>8}"
        f"{'msgs/s':>10}{'pub':>8}{'sub':>8}{'broker':>8}"
    )

    def cpu(x: float | None) -> str:
        return f"{x:>8.2f}" if x is not None else f"{'-':>8}"

    for r in out["results"]:
        s, m = r["steady"], r["max"]
        lat = s["latency_ms"]
        print(
            f"{r['mode']:<11}{lat['median']:>11.2f}{lat['p99']:>11.2f}{lat['max']:>11.2f}{s['sent_per_s']:>9.0f}"
            f"{cpu(s['pub_cpu_s_per_10k'])}{cpu(s['sub_cpu_s_per_10k'])}{cpu(s['broker_cpu_s_per_10k'])}"
            f"{m['per_s']:>10}{cpu(m['pub_cpu_s_per_10k'])}{cpu(m['sub_cpu_s_per_10k'])}"
            f"{cpu(m['broker_cpu_s_per_10k'])}"
        )
    lost = {r["mode"]: r["steady"]["lost"] + r["max"]["lost"] for r in out["results"]}
    lost = {k: v for k, v in lost.items() if v}
    brokers = out["brokers"]
    hiredis = "yes" if out["libraries"].get("hiredis") else "no"
    print(
        f"{out['message_bytes']} B messages; {out['rounds']} rounds of {out['steady_s_per_run']:.1f} s "
        f"steady and {out['max_s_per_run']:.1f} s flat out (-pipe/-batch: {args.batch} messages a batch, at "
        f"most {WINDOW} ahead); lost {lost or 'none'}; hiredis {hiredis}; "
        f"Redis {brokers['redis']}, PostgreSQL {brokers['postgresql']} (fsync {brokers['pg_fsync']}, "
        f"synchronous_commit {brokers['pg_synchronous_commit']}); {out['machine']['cores']} cores shared by "
        f"the broker, the publisher, the subscriber and other work (load {out['machine']['load_before']:.1f} "
        f"before, {out['machine']['load_after']:.1f} after); {out['wall_s']:.0f} s in all"
    )


if __name__ == "__main__":
    main()
