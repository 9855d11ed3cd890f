"""A claim storm against another table's player's ping, beside the same play without claims.

One client (address 127.0.0.2, a process of its own) holds every seat of
``--tables`` tables of its own, hands of ``--cards`` cards, and plays them
(the first legal action, ``--pace`` seconds apart per table). In the *claim*
rounds it also claims from every seat at the start of each hand's play,
refusing each claim put to it from another of its seats, so the next seat
can claim. Another client (127.0.0.3, this process), a player at a table of
their own, pings the server every ``--every`` seconds: a WebSocket ping,
answered by the server's event loop, so its round trip is the wait any
message of theirs has.

Claim rounds and plain rounds alternate, ``--rounds`` of each, ``--seconds``
long; the first ``--settle`` seconds of each round are not counted (a search
started in one round may end in the next). So both kinds of round see the
same machine at the same time, whatever else it is doing. The server is one
process as ``ohhell serve`` runs it on a 2-core machine: one worker process
for the searches, on a fresh SQLite file.

Prints the victim's ping p50, p90 and p99 in each kind of round, their
ratios, and the claims made (and refused as too many at once); JSON with
``--json``. tests/web/test_web_claim_storm.py runs it briefly.

    python bench/claims.py                  # 7 tables, 6 rounds of each, 3 s each
    python bench/claims.py --tables 4 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

HOST = "127.0.0.1"
STORM, VICTIM = "127.0.0.2", "127.0.0.3"

SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import Limits, create_app
db, port = sys.argv[1], int(sys.argv[2])
limits = Limits(
    rate=1e6, create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0
)
app = create_app(
    store_url=db, away_after=3600.0, bot_delay=0.0, clock=0, think_workers=1, limits=limits
)
run(app, "127.0.0.1", port, per_address=0, requests_per_address=0)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def post(port: int, path: str, body: dict[str, Any], local: str) -> dict[str, Any]:
    """POST JSON from the loopback address ``local``; the JSON answer (not 200 raises)."""
    data = json.dumps(body).encode()
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(local, 0))
    try:
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()
        raw = await reader.read()
    finally:
        writer.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    if status != 200:
        raise RuntimeError(f"POST {path}: {status} {payload[:200]!r}")
    return json.loads(payload)  # type: ignore[no-any-return]


async def new_table(port: int, local: str, seats: list[str], cards: int, hands: int) -> tuple[str, list[str]]:
    """A started table; the tokens of its people's seats, in seat order."""
    options = {"players": str(len(seats)), "hand-sizes": ",".join([str(cards)] * hands), "hook": "no"}
    made = await post(port, "/api/tables", {"options": options, "seats": seats, "name": "Host"}, local)
    table, tokens = made["table"], [made["token"]]
    for seat in range(1, len(seats)):
        if seats[seat] == "human":
            joined = await post(port, f"/api/tables/{table}/join", {"seat": seat, "name": f"P{seat}"}, local)
            tokens.append(joined["token"])
    await post(port, f"/api/tables/{table}/start", {"token": made["token"]}, local)
    return table, tokens


# --- The storm: one address at every seat of its tables ---


class Storm:
    """What the storm does now, and what it counted."""

    def __init__(self) -> None:
        self.claiming = False
        self.stopping = False
        self.counts: Counter[str] = Counter()


class StormTable:
    """One of the storm's tables: a socket per seat, driven by the newest state."""

    def __init__(self, storm: Storm, players: int, pace: float) -> None:
        self.storm = storm
        self.players = players
        self.pace = pace
        self.latest: dict[int, dict[str, Any]] = {}
        self.ws: dict[int, ClientConnection] = {}
        self.wake = asyncio.Event()
        self.claimed: set[tuple[int, int]] = set()  # (hand, seat): claimed, or its claim answered
        self.standing: set[tuple[int, int]] = set()  # the server plays these seats' cards
        self.pending: int | None = None  # the seat whose claim awaits its outcome

    async def seat(self, port: int, table: str, seat: int, token: str) -> None:
        async with connect(
            f"ws://{HOST}:{port}/ws/{table}", ping_interval=None, max_size=2**22, local_addr=(STORM, 0)
        ) as ws:
            self.ws[seat] = ws
            await ws.send(json.dumps({"type": "hello", "token": token}))
            async for text in ws:
                self._heard(seat, json.loads(text))

    def _heard(self, seat: int, m: dict[str, Any]) -> None:
        kind = m["type"]
        if kind == "state":
            old = self.latest.get(seat)
            if old is None or m["version"] >= old["version"]:
                self.latest[seat] = m
        elif kind == "claim" and m["seat"] == seat:  # told on the claimer's own socket
            hand = self.latest[seat]["obs"]["hand_number"]
            status = m["status"]
            if status == "asked":
                self._send(m["waiting"][0], {"type": "answer", "accept": False})
            else:
                self.storm.counts[status] += 1
                self.claimed.add((hand, seat))
                if status == "accepted" and m["tricks"] < m["left"]:
                    self.standing.add((hand, seat))
                self.pending = None
        elif kind == "error" and self.pending == seat and m.get("code") in ("busy", "claim", "turn"):
            self.storm.counts["busy" if m["code"] == "busy" else "refused at once"] += 1
            if m["code"] == "busy":  # too many at once: this seat claims again after a pause
                asyncio.get_running_loop().call_later(self.pace, self._unpend, seat)
                return
            self.claimed.add((self.latest[seat]["obs"]["hand_number"], seat))
            self.pending = None
        self.wake.set()

    def _unpend(self, seat: int) -> None:
        if self.pending == seat:
            self.pending = None
            self.wake.set()

    def _send(self, seat: int, message: dict[str, Any]) -> None:
        ws = self.ws.get(seat)
        if ws is not None:
            asyncio.get_running_loop().create_task(self._send_now(ws, message))

    async def _send_now(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(message))

    async def drive(self) -> None:
        while not self.storm.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), 0.5)
            self.wake.clear()
            if len(self.latest) < self.players or self.pending is not None:
                continue
            version = max(m["version"] for m in self.latest.values())
            newest = next(m for m in self.latest.values() if m["version"] == version)
            obs = newest["obs"]
            if obs["phase"] == "over":
                return
            hand = obs["hand_number"]
            if (
                self.storm.claiming
                and obs["phase"] == "play"
                and not (newest.get("claims") or {}).get("made")
            ):
                seat = next((s for s in range(self.players) if (hand, s) not in self.claimed), None)
                if seat is not None:
                    left = obs["hand_size"] - len(obs["tricks"])
                    self.pending = seat
                    self.storm.counts["claims"] += 1
                    self._send(seat, {"type": "claim", "tricks": (left + 1) // self.players})
                    continue
            for seat, m in self.latest.items():
                legal = [a for a in m["obs"]["legal"] if a["kind"] != "change"]
                if m["version"] == version and legal and (hand, seat) not in self.standing:
                    await asyncio.sleep(self.pace)
                    action = {k: v for k, v in legal[0].items() if k != "seat"}
                    self._send(seat, {"type": "act", "version": version, "action": action})
                    self.storm.counts["actions"] += 1
                    break


def _listen(storm: Storm) -> None:
    """The parent says what to do, a line at a time: claims, plain, stop."""
    for line in sys.stdin:
        word = line.strip()
        storm.claiming = word == "claims"
        if word == "stop":
            storm.stopping = True
            return
    storm.stopping = True


async def storm_main(port: int, tables: int, cards: int, pace: float) -> None:
    storm = Storm()
    made = [await new_table(port, STORM, ["human"] * 4, cards, 60) for _ in range(tables)]
    threading.Thread(target=_listen, args=(storm,), daemon=True).start()
    tasks = []
    for table, tokens in made:
        st = StormTable(storm, 4, pace)
        tasks += [asyncio.create_task(st.seat(port, table, seat, token)) for seat, token in enumerate(tokens)]
        tasks.append(asyncio.create_task(st.drive()))
    print("ready", flush=True)
    while not storm.stopping:
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(dict(storm.counts)), flush=True)


# --- The victim and the rounds ---


async def victim(port: int, samples: list[tuple[float, float]], every: float, stop: asyncio.Event) -> None:
    """A player at a table of their own pings the server: (sent at, round trip) each."""
    table, (token,) = await new_table(port, VICTIM, ["human", "random", "random", "random"], 5, 2)
    async with connect(f"ws://{HOST}:{port}/ws/{table}", ping_interval=None, local_addr=(VICTIM, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))

        async def drain() -> None:  # read what the server sends, so its pongs are read too
            with contextlib.suppress(ConnectionClosed):
                async for _ in ws:
                    pass

        reader = asyncio.create_task(drain())
        while not stop.is_set():
            sent = time.perf_counter()
            pong = await ws.ping()
            await asyncio.wait_for(pong, 30)
            samples.append((sent, time.perf_counter() - sent))
            await asyncio.sleep(every)
        reader.cancel()


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 0.5) * 1000, 2),
        "p90_ms": round(percentile(values, 0.9) * 1000, 2),
        "p99_ms": round(percentile(values, 0.99) * 1000, 2),
    }


async def measure(
    tables: int = 7,
    rounds: int = 6,
    seconds: float = 3.0,
    settle: float = 0.75,
    cards: int = 10,
    every: float = 0.01,
    pace: float = 0.02,
) -> dict[str, Any]:
    """Run the storm against a fresh server; the victim's ping in each kind of round."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        db = f"sqlite:///{os.path.join(tmp, 'claims.db')}"
        server = subprocess.Popen([sys.executable, "-c", SERVER, db, str(port)], stdout=subprocess.DEVNULL)
        storm: subprocess.Popen[str] | None = None
        try:
            for _ in range(300):
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(f"http://{HOST}:{port}/", timeout=1).close()
                    break
                if server.poll() is not None:
                    raise RuntimeError("the server exited")
                await asyncio.sleep(0.1)
            storm = subprocess.Popen(
                [sys.executable, __file__, "--storm", str(port), str(tables), str(cards), str(pace)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert storm.stdin is not None and storm.stdout is not None
            ready = await asyncio.to_thread(storm.stdout.readline)
            if ready.strip() != "ready":
                raise RuntimeError(f"the storm did not start: {ready!r}")
            samples: list[tuple[float, float]] = []
            stop = asyncio.Event()
            pinging = asyncio.create_task(victim(port, samples, every, stop))
            windows: dict[str, list[tuple[float, float]]] = {"plain": [], "claims": []}
            for _ in range(rounds):
                for kind in ("plain", "claims"):
                    storm.stdin.write(kind + "\n")
                    storm.stdin.flush()
                    start = time.perf_counter()
                    await asyncio.sleep(seconds)
                    windows[kind].append((start + settle, time.perf_counter()))
            stop.set()
            await pinging
            storm.stdin.write("stop\n")
            storm.stdin.flush()
            counts = json.loads(await asyncio.to_thread(storm.stdout.readline))
        finally:
            for proc in (storm, server):
                if proc is not None:
                    proc.terminate()
                    try:
                        proc.wait(10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
    pings = {
        kind: [rtt for sent, rtt in samples if any(a <= sent < b for a, b in spans)]
        for kind, spans in windows.items()
    }
    plain, claims = summary(pings["plain"]), summary(pings["claims"])
    return {
        "plain": plain,
        "claims": claims,
        "p50_ratio": round(claims["p50_ms"] / plain["p50_ms"], 2),
        "p99_ratio": round(claims["p99_ms"] / plain["p99_ms"], 2),
        "storm": counts,
        "tables": tables,
        "rounds": rounds,
        "seconds": seconds,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--storm":
        port, tables, cards, pace = sys.argv[2:6]
        asyncio.run(storm_main(int(port), int(tables), int(cards), float(pace)))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=7, help="the storm's tables (4 seats each)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of each kind")
    parser.add_argument("--seconds", type=float, default=3.0, help="each round's length")
    parser.add_argument("--settle", type=float, default=0.75, help="seconds at a round's start not counted")
    parser.add_argument("--cards", type=int, default=10, help="cards a hand at the storm's tables")
    parser.add_argument("--every", type=float, default=0.01, help="seconds between the victim's pings")
    parser.add_argument("--pace", type=float, default=0.02, help="seconds between a storm table's actions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(
        measure(args.tables, args.rounds, args.seconds, args.settle, args.cards, args.every, args.pace)
    )
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"claim storm: {args.tables} tables of one address, {args.rounds} rounds of each kind,",
        result["machine"],
    )
    for kind in ("plain", "claims"):
        s = result[kind]
        print(
            f"  {kind:6}  n={s['n']:5}  p50 {s['p50_ms']:7.2f} ms",
            f"p90 {s['p90_ms']:7.2f} ms  p99 {s['p99_ms']:7.2f} ms",
        )
    print(f"  claims/plain: p50 x{result['p50_ratio']}, p99 x{result['p99_ratio']}")
    print(f"  the storm: {result['storm']}")


if __name__ == "__main__":
    main()
