"""Research environment speed: random masked play on one core, per variant.

Prints JSON (for machines) and a short table. For the PettingZoo AEC
environment (``oh_hell_v0.env``, with its checking wrappers) one step is one
agent's action, including ``last()`` (the encoded observation and mask) for
the agent to act. For the Gymnasium wrapper one step is the learner's action
plus the random bots' actions until the learner's next turn. Also measures
``encode`` alone on observations taken during play.

    python bench/env.py [--steps 20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from typing import Any

import numpy as np

from ohhell import advance_chance, apply, legal_actions, new_game, seats_to_ask
from ohhell.env import encode, oh_hell_v0
from ohhell.env.gym import OhHellGymEnv
from ohhell.view import observe

VARIANTS: dict[str, dict[str, Any]] = {
    "pagat": {"preset": "pagat"},
    "okenuff": {"preset": "okenuff"},
    "simultaneous": {"preset": "pagat", "bidding": "simultaneous", "hook": False, "bid_changes": False},
    "australian-6": {"preset": "river", "players": 6, "deck": "australian"},
    "pagat-1-deal": {"preset": "pagat", "single_deal": True},
}


def bench_aec(options: dict[str, Any], steps: int, seed: int) -> dict[str, float]:
    env = oh_hell_v0.env(**options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done, matches = 0, 0
    start = time.perf_counter()
    while done < steps:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
                matches += 1
            continue
        mask = obs["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        done += 1
    elapsed = time.perf_counter() - start
    return {"aec_steps_per_s": done / elapsed, "aec_step_us": elapsed / done * 1e6, "aec_matches": matches}


def bench_gym(options: dict[str, Any], steps: int, seed: int) -> dict[str, float]:
    env = OhHellGymEnv(seat=0, opponents=("random",), **options)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done += 1
        if terminated:
            obs, _ = env.reset()
    elapsed = time.perf_counter() - start
    return {"gym_steps_per_s": done / elapsed, "gym_step_us": elapsed / done * 1e6}


def bench_encode(count: int, seed: int) -> dict[str, float]:
    env = oh_hell_v0.raw_env(preset="pagat")
    rules = env.rules
    rng = random.Random(seed)
    views = []
    while len(views) < count:
        state = new_game(rules)
        while True:
            advance_chance(state, rng)
            if state.is_over:
                break
            seat = seats_to_ask(state)[0]
            views.append(observe(state, seat))
            apply(state, rng.choice(legal_actions(state, seat)))
    views = views[:count]
    start = time.perf_counter()
    for view in views:
        encode(view)
    elapsed = time.perf_counter() - start
    return {"encode_per_s": count / elapsed, "encode_us": elapsed / count * 1e6}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    results: dict[str, dict[str, float]] = {}
    for name, options in VARIANTS.items():
        row = bench_aec(options, args.steps, args.seed)
        row |= bench_gym(options, max(args.steps // 4, 1), args.seed)
        results[name] = row
    out = {
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "cpu": platform.processor(),
        },
        "variants": results,
        "encode_pagat": bench_encode(args.steps, args.seed),
    }
    print(json.dumps(out, indent=2))
    print()
    print(f"{'variant':<14}{'AEC steps/s':>12}{'AEC us':>8}{'gym steps/s':>12}{'gym us':>8}")
    for name, r in results.items():
        print(
            f"{name:<14}{r['aec_steps_per_s']:>12.0f}{r['aec_step_us']:>8.0f}"
            f"{r['gym_steps_per_s']:>12.0f}{r['gym_step_us']:>8.0f}"
        )
    enc = out["encode_pagat"]
    print(f"encode alone (pagat): {enc['encode_per_s']:.0f}/s, {enc['encode_us']:.1f} us")


if __name__ == "__main__":
    main()
