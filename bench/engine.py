"""Engine speed: random legal play on one core, per preset.

Prints JSON (for machines) and a short table. Measures whole matches per
second, actions per second, the median time of one match, the median time of
a single 10-card 4-player deal (the figure compared with C++ engines),
sample_world calls per second from observations taken during play, and one
deal of ours beside one deal of OpenSpiel's C++ ``oh_hell`` driven from Python,
timed in alternating rounds (``pyspiel`` is optional: without it the comparison
is skipped and says so).

    python bench/engine.py [--matches 200] [--deals 5000] [--samples 5000] [--seed 1]
    python bench/engine.py --compare-only [--rounds 9] [--round-deals 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from typing import Any

from ohhell import actors, advance_chance, apply, chance_action, legal_actions, new_game, seats_to_ask
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


# OpenSpiel's oh_hell is our ``common`` preset narrowed to one hand, the hook
# included (see bench/openspiel_bridge.py), so both sides play the same game.
VERSUS_RULES = PRESETS["common"].replace(hand_sizes=(10,), first_dealer=0)
VERSUS_PARAMS = {"players": 4, "num_suits": 4, "num_cards_per_suit": 13, "num_tricks_fixed": 10}


def time_our_deals(count: int, rng: random.Random) -> float:
    """Seconds for ``count`` deals of random legal play, driven as a client would."""
    rules = VERSUS_RULES
    start = time.perf_counter()
    for _ in range(count):
        state = new_game(rules)
        while True:
            if state.is_chance:
                apply(state, chance_action(state, rng))
                continue
            seats = seats_to_ask(state)
            if not seats:
                break
            apply(state, rng.choice(legal_actions(state, seats[0])))
    return time.perf_counter() - start


def time_pyspiel_deals(game: Any, count: int, rng: random.Random) -> float:
    """Seconds for ``count`` deals of OpenSpiel's ``oh_hell``, driven from Python.

    Its chance nodes (the dealer, each card dealt, the turned card) have
    uniform outcomes, so a uniform pick among them is a fair draw and the
    cheapest one a Python driver can make."""
    start = time.perf_counter()
    for _ in range(count):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return time.perf_counter() - start


def bench_versus_openspiel(rounds: int, deals: int, seed: int) -> dict[str, Any]:
    """Ours and OpenSpiel's C++ engine in alternating rounds (ours, pyspiel,
    ours, ...), so that whatever else the machine does falls on both alike.
    ``ratio`` is pyspiel's time over ours: 1 or more means ours is faster."""
    try:
        import pyspiel
    except ImportError as err:
        return {"skipped": f"pyspiel is not installed ({err}); pip install open-spiel to compare"}
    game = pyspiel.load_game("oh_hell", VERSUS_PARAMS)
    ours_rng, theirs_rng = random.Random(seed), random.Random(seed)
    time_our_deals(max(deals // 10, 1), ours_rng)  # warm up both before timing
    time_pyspiel_deals(game, max(deals // 10, 1), theirs_rng)
    rows = []
    for _ in range(rounds):
        ours = time_our_deals(deals, ours_rng) / deals * 1e3
        theirs = time_pyspiel_deals(game, deals, theirs_rng) / deals * 1e3
        rows.append({"ours_ms": ours, "pyspiel_ms": theirs, "ratio": theirs / ours})
    ratios = [r["ratio"] for r in rows]
    return {
        "ratio_is": "pyspiel ms / ours ms per deal; 1 or more: ours is faster",
        "rounds": rounds,
        "deals_per_round": deals,
        "ours_ms_median": statistics.median(r["ours_ms"] for r in rows),
        "pyspiel_ms_median": statistics.median(r["pyspiel_ms"] for r in rows),
        "ratio_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "by_round": rows,
    }


def print_versus(versus: dict[str, Any]) -> None:
    if "skipped" in versus:
        print(f"versus OpenSpiel: skipped: {versus['skipped']}")
        return
    deals = versus["deals_per_round"]
    print(f"one 10-card 4-player deal, ours vs OpenSpiel's oh_hell (pyspiel), {deals} deals a round")
    print(f"{'round':<7}{'ours ms':>9}{'pyspiel ms':>12}{'ratio':>8}")
    for i, r in enumerate(versus["by_round"], 1):
        print(f"{i:<7}{r['ours_ms']:>9.4f}{r['pyspiel_ms']:>12.4f}{r['ratio']:>8.3f}")
    print(
        f"{'median':<7}{versus['ours_ms_median']:>9.4f}{versus['pyspiel_ms_median']:>12.4f}"
        f"{versus['ratio_median']:>8.3f}  (ratio = pyspiel time / ours; >= 1: ours is faster;"
        f" range {versus['ratio_min']:.3f}-{versus['ratio_max']:.3f})"
    )


def machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "python": platform.python_version(), "cpu": platform.processor()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=9, help="alternating rounds against OpenSpiel")
    parser.add_argument("--round-deals", type=int, default=2000, help="deals a side plays in a round")
    parser.add_argument("--compare-only", action="store_true", help="only the comparison with OpenSpiel")
    args = parser.parse_args()

    if args.compare_only:
        versus = bench_versus_openspiel(args.rounds, args.round_deals, args.seed)
        print(json.dumps({"machine": machine(), "versus_openspiel": versus}, indent=2))
        print()
        print_versus(versus)
        return

    results: dict[str, dict[str, float]] = {}
    for name, rules in PRESETS.items():
        row = bench_matches(rules, args.matches, args.seed)
        row |= bench_sample_world(rules, args.samples // len(PRESETS), args.seed)
        results[name] = row
    single = bench_single_deal(args.deals, args.seed)
    versus = bench_versus_openspiel(args.rounds, args.round_deals, args.seed)
    out = {
        "machine": machine(),
        "presets": results,
        "single_deal_4p_10": single,
        "versus_openspiel": versus,
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
    print()
    print_versus(versus)


if __name__ == "__main__":
    main()
