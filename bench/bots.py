"""Bot speed and strength on 4-player pagat, one core per process.

Prints JSON (for machines) and a short table:
- decision time per level (median and 95th percentile), measured with the bot
  in seat 0 and intermediate bots in the other seats, over single 10-card
  deals;
- the expert's search speed: for bids, tree-search simulations per second
  (the bid search, the default) and, for flat bids (``bid_search=0``),
  sampled worlds and greedy playouts (one per candidate bid per world) per
  second; for cards, tree-search simulations (one world, one walk down the
  tree, one greedy playout) per second;
- a duplicate tournament of all levels (mean score per hand, 95% CI, exact
  bids), with the expert thinking ``--think`` seconds per decision.

    python bench/bots.py [--deals 20] [--tournament-deals 100] [--think 0.1] [--jobs 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time

from ohhell import Bid, Phase, actors, advance_chance, apply, new_game
from ohhell.bots import get_bot, play_match
from ohhell.bots.expert import ExpertBot
from ohhell.bots.tournament import make_bot, run_tournament
from ohhell.rules import PRESETS
from ohhell.view import observe

LEVELS = ("random", "beginner", "intermediate", "expert")


def decision_times(level: str, deals: int, think: float, seed: int) -> dict[str, float]:
    rules = PRESETS["pagat"].replace(hand_sizes=(10,), first_dealer=0)
    times: list[float] = []
    for d in range(deals):
        bots = [make_bot(level, think)] + [get_bot("intermediate") for _ in range(3)]
        timings: list[list[float]] = [[] for _ in range(4)]
        play_match(rules, bots, random.Random(seed + d), timings=timings)
        times.extend(timings[0])
    ordered = sorted(times)
    return {
        "decisions": len(times),
        "median_ms": statistics.median(times) * 1e3,
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1e3,
    }


def expert_speed(positions: int, worlds: int, seed: int) -> dict[str, float]:
    """The expert's search speed: tree simulations a second for bids and cards
    (the root's visits add up to them), and worlds and playouts a second for
    flat bids."""
    rules = PRESETS["pagat"].replace(hand_sizes=(10,), first_dealer=0, bid_changes=False)
    rng = random.Random(seed)
    bot = ExpertBot(worlds=worlds)
    flat = ExpertBot(worlds=worlds, bid_search=False)
    search_elapsed = searched = 0.0
    out: dict[str, float] = {}
    for phase in (Phase.BID, Phase.PLAY):
        elapsed = playouts = done = 0.0
        for _ in range(positions):
            state = new_game(rules)
            advance_chance(state, rng)
            while state.phase is not phase or rng.random() < 0.5:
                seat = actors(state)[0]
                obs = observe(state, seat)
                action = bot.choose(obs, rng) if state.phase is Phase.PLAY else Bid(seat, 2)
                if state.phase is Phase.BID and action not in obs.legal_actions:
                    action = Bid(seat, 3)
                apply(state, action)
                if state.phase is not Phase.PLAY and state.phase is not Phase.BID:
                    break
            if state.phase is not phase:
                continue
            obs = observe(state, actors(state)[0])
            if phase is Phase.BID:
                start = time.perf_counter()
                searched += sum(e.worlds for e in bot.analyse(obs, rng))
                search_elapsed += time.perf_counter() - start
            start = time.perf_counter()
            ranked = (flat if phase is Phase.BID else bot).analyse(obs, rng)
            elapsed += time.perf_counter() - start
            playouts += sum(e.worlds for e in ranked)  # pruned candidates stop early
            done += worlds
        if phase is Phase.BID:
            out["bid_simulations_per_s"] = searched / search_elapsed
            out["flat_bid_worlds_per_s"] = done / elapsed
            out["flat_bid_playouts_per_s"] = playouts / elapsed
        else:
            out["play_simulations_per_s"] = playouts / elapsed
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="deals per level for decision times")
    parser.add_argument("--tournament-deals", type=int, default=100)
    parser.add_argument("--think", type=float, default=0.1, help="expert seconds per decision")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    times = {level: decision_times(level, args.deals, args.think, args.seed) for level in LEVELS}
    speed = expert_speed(20, 200, args.seed)
    result = run_tournament(
        list(LEVELS[::-1]),
        PRESETS["pagat"],
        args.tournament_deals,
        args.seed,
        jobs=args.jobs,
        progress=False,
        think=args.think,
    )
    out = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
        "think_s": args.think,
        "decision_times": times,
        "expert_search": speed,
        "tournament": result.as_dict(),
    }
    print(json.dumps(out, indent=2))
    print()
    print(f"{'level':<14}{'median ms':>10}{'p95 ms':>10}{'score/hand':>12}{'95% CI':>18}{'exact':>8}")
    stats = {s.name: s for s in result.stats}
    for level in LEVELS:
        t, s = times[level], stats[level]
        ci = f"[{s.ci_low:.2f}, {s.ci_high:.2f}]"
        print(
            f"{level:<14}{t['median_ms']:>10.3f}{t['p95_ms']:>10.3f}{s.mean:>12.2f}{ci:>18}{s.exact_rate:>8.1%}"
        )
    print(
        f"expert search: {speed['bid_simulations_per_s']:.0f} tree simulations/s bidding "
        f"(flat bids: {speed['flat_bid_worlds_per_s']:.0f} worlds/s, "
        f"{speed['flat_bid_playouts_per_s']:.0f} playouts/s), "
        f"{speed['play_simulations_per_s']:.0f} tree simulations/s playing"
    )
    for d in result.differences:
        mark = "*" if d.significant else " "
        print(f"  {d.a} - {d.b}: {d.mean:+.2f} [{d.ci_low:+.2f}, {d.ci_high:+.2f}]{mark}")


if __name__ == "__main__":
    main()
