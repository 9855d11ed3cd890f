"""Engine speed: random legal play on one core, per preset.

Prints JSON (for machines) and a short table. Measures whole matches per
second, actions per second, the median time of one match, the median time of
a single 10-card 4-player deal (the figure compared with C++ engines), and
sample_world calls per second from observations taken during play.

    python bench/engine.py [--matches 200] [--deals 5000] [--samples 5000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time

from ohhell import actors, advance_chance, apply, legal_actions, new_game
from ohhell.bots.simulate import random_match
from ohhell.rules import PRESETS, Rules
from ohhell.view import observe, sample_world


def bench_matches(rules: Rules, count: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    times, actions = [], 0
    for _ in range(count):
        start = time.perf_counter()
        state = random_match(rules, rng)
        times.append(time.perf_counter() - start)
        actions += len(state.log)
    total = sum(times)
    return {
        "matches_per_s": count / total,
        "actions_per_s": actions / total,
        "match_ms_median": statistics.median(times) * 1e3,
        "match_ms_p95": sorted(times)[int(0.95 * (count - 1))] * 1e3,
        "actions_per_match": actions / count,
    }


def bench_single_deal(count: int, seed: int) -> dict[str, float]:
    """One 10-card 4-player deal with turned trump and the hook, random actions
    from the deal to the last trick (as C++ engines are usually measured)."""
    rules = PRESETS["pagat"].replace(hand_sizes=(10,), first_dealer=0, bid_changes=False)
    rng = random.Random(seed)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        state = new_game(rules)
        while True:
            advance_chance(state, rng)
            who = actors(state)
            if not who:
                break
            apply(state, rng.choice(legal_actions(state, who[0])))
        times.append(time.perf_counter() - start)
    return {"deal_ms_median": statistics.median(times) * 1e3, "deals_per_s": count / sum(times)}


def bench_sample_world(rules: Rules, count: int, seed: int) -> dict[str, float]:
    """sample_world from observations spread over random matches (voids included)."""
    rng = random.Random(seed)
    observations = []
    while len(observations) < count:
        state = new_game(rules)
        while True:
            advance_chance(state, rng)
            who = actors(state)
            if not who:
                break
            seat = who[0]
            if rng.random() < 0.3:
                observations.append(observe(state, seat))
            apply(state, rng.choice(legal_actions(state, seat)))
    observations = observations[:count]
    start = time.perf_counter()
    for obs in observations:
        sample_world(obs, rng)
    elapsed = time.perf_counter() - start
    return {"sample_world_per_s": count / elapsed, "sample_world_us": elapsed / count * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    results: dict[str, dict[str, float]] = {}
    for name, rules in PRESETS.items():
        row = bench_matches(rules, args.matches, args.seed)
        row |= bench_sample_world(rules, args.samples // len(PRESETS), args.seed)
        results[name] = row
    single = bench_single_deal(args.deals, args.seed)
    out = {
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "cpu": platform.processor(),
        },
        "presets": results,
        "single_deal_4p_10": single,
    }
    print(json.dumps(out, indent=2))
    print()
    head = f"{'preset':<13}{'matches/s':>10}{'actions/s':>11}{'match ms':>10}{'p95 ms':>8}{'worlds/s':>10}"
    print(head)
    for name, r in results.items():
        print(
            f"{name:<13}{r['matches_per_s']:>10.0f}{r['actions_per_s']:>11.0f}"
            f"{r['match_ms_median']:>10.2f}{r['match_ms_p95']:>8.2f}{r['sample_world_per_s']:>10.0f}"
        )
    median, rate = single["deal_ms_median"], single["deals_per_s"]
    print(f"single 10-card 4-player deal: {median:.3f} ms median, {rate:.0f} deals/s")


if __name__ == "__main__":
    main()
