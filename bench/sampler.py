"""How fast is the world sampler on positions with voids (where it must work)?

Plays 4-player 12-card hands at random and keeps seat-to-act observations
from the fourth trick on in which another seat has shown a void; samples
each ``--worlds`` times (as the expert does per decision) and prints
microseconds per call, as JSON with ``--json`` and a line of text.

    python bench/sampler.py [--deals 300] [--positions 1500] [--worlds 80] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

from ohhell import apply, chance_action, legal_actions, make_rules, new_game, observe, sample_hands


def positions(deals: int) -> list[object]:
    found = []
    rules = make_rules("common", {"hand-sizes": "12", "hook": "no"})
    for seed in range(deals):
        rng = random.Random(seed)
        state = new_game(rules)
        apply(state, chance_action(state, rng))
        while state.phase.value in ("bid", "play"):
            seat = state.to_act
            if state.phase.value == "play" and len(state.tricks) >= 3:
                obs = observe(state, seat)
                if any(obs.voids[s] for s in range(obs.players) if s != seat):
                    found.append(obs)
            apply(state, rng.choice(legal_actions(state, seat)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--positions", type=int, default=1500)
    parser.add_argument("--worlds", type=int, default=80)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found = positions(args.deals)[: args.positions]
    rng = random.Random(1)
    start = time.perf_counter()
    for obs in found:
        for _ in range(args.worlds):
            sample_hands(obs, rng)  # type: ignore[arg-type]
    us = (time.perf_counter() - start) / (len(found) * args.worlds) * 1e6
    out = {
        "positions": len(found),
        "worlds": args.worlds,
        "us_per_call": round(us, 1),
        "cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(out))
    print(f"sample_hands on {len(found)} positions with voids, {args.worlds} worlds each: {us:.1f} us a call")


if __name__ == "__main__":
    main()
