"""How long another table's expert waits while one address keeps the workers busy.

``ohhell serve`` thinks in a few worker processes shared by every table
(``ohhell.web.tables.thinking``). This bench runs the server's own ``Thinkers`` with
real expert searches in real worker processes (``--workers``, the server's
default unless told), and from one asyncio process, for ``--seconds`` each:

- the *victim*: one expert table of another address, deciding again and
  again with about ``--delay`` seconds between its decisions (the server's
  bot pause, 0.5x to 1.5x at random so the tables do not fall into step);
  what is measured is its decision time, from asking to the answer;
- the *load*, one of two scenarios: ``--tables`` expert tables of one
  address deciding the same way (``tables``), or ``--spammers``
  connections of one address asking for hints back to back, each at a new
  position (``hints``; refused hints are asked again 50 ms later).

Each scenario runs with the victim alone (the anchor), then the way the
server thought before (arrival order; hints two at a time server-wide),
then with fair turns only, then with fair turns and the shorter think
under load (the server now): the same positions, the same machine, one
run. Prints a table, and JSON with ``--json``.

    python bench/thinkers.py                       # 10 expert tables of one address, think 1 s, 30 s a mode
    python bench/thinkers.py --scenario hints --spammers 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import time
from typing import Any

from ohhell import PRESETS, Observation, apply, chance_action, new_game, observe, seats_to_ask
from ohhell.bots import get_bot
from ohhell.web.tables.table import TableError
from ohhell.web.tables.thinking import Thinkers, default_workers

LOAD, VICTIM = "10.0.0.66", "10.0.0.7"
MODES = {
    "alone": {"fair": False, "shorter": False},
    "before": {"fair": False, "shorter": False},
    "fair": {"fair": True, "shorter": False},
    "after": {"fair": True, "shorter": True},
}
WORDS = {
    "alone": "the victim alone",
    "before": "before: arrival order",
    "fair": "fair turns, full think",
    "after": "after: fair turns, shorter think",
}


def positions(count: int, seed: int) -> list[Observation]:
    """Observations of 4-player pagat matches where the seat asked has a
    real choice (a bid or a card), played by the intermediate bot."""
    rng = random.Random(seed)
    bot = get_bot("intermediate")
    found: list[Observation] = []
    while len(found) < count:
        state = new_game(PRESETS["pagat"])
        for _ in range(rng.randrange(10, 60)):
            if state.is_chance:
                apply(state, chance_action(state, rng))
                continue
            if not state.results and seats_to_ask(state):
                seat = seats_to_ask(state)[0]
                apply(state, bot.choose(observe(state, seat), rng))
        while state.is_chance:
            apply(state, chance_action(state, rng))
        seat = seats_to_ask(state)[0]
        obs = observe(state, seat)
        if len(obs.legal_actions) > 1:
            found.append(obs)
    return found


async def run_mode(mode: str, args: argparse.Namespace, obs: list[Observation]) -> dict[str, Any]:
    thinkers = Thinkers(args.workers, **MODES[mode])  # type: ignore[arg-type]
    # Workers spawn and load the compiled search before the clock starts.
    await asyncio.gather(
        *(
            thinkers.choose("expert", {"seconds": 0.01}, obs[i], f"warm:{i}", owner=f"warm{i}", table=f"w{i}")
            for i in range(args.workers)
        )
    )
    victim: list[float] = []
    load = {"decisions": 0, "hints": 0, "refused": 0}
    hinting = asyncio.Semaphore(2)  # before: two hints at a time on the whole server
    end = time.monotonic() + args.seconds
    rng = random.Random(1)

    async def table(owner: str, name: str, times: list[float] | None) -> None:
        n = 0
        while time.monotonic() < end:
            await asyncio.sleep(args.delay * rng.uniform(0.5, 1.5))
            start = time.monotonic()
            position = obs[rng.randrange(len(obs))]
            await thinkers.choose(
                "expert", {"seconds": args.think}, position, f"{name}:{n}", owner=owner, table=name
            )
            n += 1
            if times is None:
                load["decisions"] += 1
            elif time.monotonic() <= end:
                times.append(time.monotonic() - start)

    async def spammer(name: str) -> None:
        n = 0
        while time.monotonic() < end:
            position = obs[rng.randrange(len(obs))]
            seed = f"hint:{name}:{n}:0"
            n += 1
            try:
                if mode == "before":
                    async with hinting:
                        await thinkers.hint(position, seed, min(args.think, 1.0), owner=LOAD, table=name)
                else:
                    await thinkers.hint(position, seed, min(args.think, 1.0), owner=LOAD, table=name)
                load["hints"] += 1
            except TableError:
                load["refused"] += 1
                await asyncio.sleep(0.05)

    tasks = [asyncio.create_task(table(VICTIM, "victim", victim))]
    if mode != "alone":
        if args.scenario == "tables":
            tasks += [asyncio.create_task(table(LOAD, f"load{i}", None)) for i in range(args.tables)]
        else:
            tasks += [asyncio.create_task(spammer(f"spam{i}")) for i in range(args.spammers)]
    await asyncio.sleep(args.seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    thinkers.close()
    victim.sort()
    return {
        "mode": mode,
        "victim_decisions": len(victim),
        "median_s": statistics.median(victim) if victim else None,
        "p90_s": victim[min(len(victim) - 1, int(0.9 * len(victim)))] if victim else None,
        "max_s": victim[-1] if victim else None,
        **load,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=("tables", "hints"), default="tables")
    parser.add_argument("--tables", type=int, default=10, help="expert tables of the loading address")
    parser.add_argument("--spammers", type=int, default=8, help="hint-spamming connections (scenario hints)")
    parser.add_argument("--think", type=float, default=1.0, help="the expert's seconds a decision (--think)")
    parser.add_argument(
        "--delay", type=float, default=0.6, help="seconds between a table's decisions, on average"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds each mode runs")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--modes", default="alone,before,fair,after")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    obs = positions(60, 1)
    rows = [asyncio.run(run_mode(mode, args, obs)) for mode in args.modes.split(",")]
    load = f"{args.tables} expert tables" if args.scenario == "tables" else f"{args.spammers} hint spammers"
    print(
        f"another table's expert decisions while one address runs {load}: think {args.think:g} s, "
        f"{args.workers} worker(s), {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{args.seconds:g} s a mode"
    )
    print(f"{'mode':34} {'decisions':>9} {'median':>8} {'p90':>8} {'max':>8}  load done (refused)")
    for r in rows:
        cells = [f"{r[k]:7.2f}s" if r[k] is not None else "       -" for k in ("median_s", "p90_s", "max_s")]
        done = r["decisions"] if args.scenario == "tables" else r["hints"]
        refused = f" ({r['refused']})" if args.scenario == "hints" else ""
        print(f"{WORDS[r['mode']]:34} {r['victim_decisions']:9d} {' '.join(cells)}  {done}{refused}")
    if args.json:
        print(json.dumps({"args": vars(args), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
