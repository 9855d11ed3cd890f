"""The learned bot against the rule bots, and the trainer's speed.

Strength: duplicate tournaments (``ohhell.bots.tournament``: every deal is
one hand of the schedule in turn, replayed with the bots rotated through
the seats) of ``learned`` (or ``--policy FILE``) against each of random,
beginner and intermediate, with the 95% interval of the paired difference
per hand.

    python bench/learned.py --deals 2000 --jobs 2
    python bench/learned.py --policy /tmp/mine.npz --deals 500 --against intermediate

Speed (``--trainer``): learner decisions a second of the PPO trainer
(``ohhell.learn``) on one core (one PyTorch thread), self-play on every hand
size plus whole matches, playing and learning both counted; and, in the same
run as an anchor, the batched simulator alone stepping random actions on the
same games.

    python bench/learned.py --trainer --iterations 6

Prints a short table, or JSON with ``--json``. Deterministic from ``--seed``
except the times.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ohhell import PRESETS
from ohhell.bots import register_bot
from ohhell.bots.tournament import run_tournament


def strength(
    policy: str | None, against: list[str], deals: int, seed: int, jobs: int
) -> list[dict[str, Any]]:
    name = "learned"
    if policy:
        name = "learned-file"
        register_bot(name, _file_factory(policy))
    out = []
    for other in against:
        result = run_tournament([name, other], PRESETS["pagat"], deals, seed, jobs=jobs, progress=False)
        diff = result.differences[0]
        mine, theirs = result.stats
        out.append(
            {
                "against": other,
                "deals": deals,
                "learned": round(mine.mean, 3),
                "other": round(theirs.mean, 3),
                "difference": round(diff.mean, 3),
                "ci95": [round(diff.ci_low, 3), round(diff.ci_high, 3)],
                "learned_exact": round(mine.exact_rate, 3),
                "other_exact": round(theirs.exact_rate, 3),
                "learned_median_ms": round(mine.median_ms, 3),
            }
        )
    return out


def _file_factory(path: str) -> Any:
    from ohhell.bots.learned import LearnedBot

    def make(**options: Any) -> LearnedBot:
        return LearnedBot("learned-file", path=path, **options)

    return make


def trainer_speed(iterations: int, games: int, seed: int, device: str = "cpu") -> dict[str, Any]:
    import torch

    from ohhell.env.batch import BatchSimulator
    from ohhell.learn.arena import Arena
    from ohhell.learn.net import PolicyValueNet
    from ohhell.learn.ppo import Settings, train

    torch.set_num_threads(1)
    rules = PRESETS["pagat"]
    sizes = sorted(set(rules.schedule))
    per = games // (len(sizes) + 1)

    def arenas() -> list[Arena]:
        made = [
            Arena(BatchSimulator(per, "pagat", single_deal=s, seed=seed + s), name=f"hand-{s}") for s in sizes
        ]
        made.append(Arena(BatchSimulator(per, "pagat", seed=seed), name="matches"))
        return made

    probe = arenas()
    net = PolicyValueNet(probe[0].sim.observation_size, 95)
    samples = [0.0]

    def count(it: int, info: dict[str, Any]) -> None:
        samples[0] += info["samples"]

    start = time.perf_counter()
    net.to(device)
    train(net, probe, iterations, Settings(), device=device, seed=seed, on_iteration=count)
    trained = time.perf_counter() - start
    # The anchor: the same simulators alone, random actions, as many steps.
    sims = [a.sim for a in arenas()]
    start = time.perf_counter()
    steps = 0
    for _ in range(iterations * Settings().steps):
        for sim in sims:
            sim.observe()
            sim.action_mask()
            sim.step(sim.random_actions())
            steps += sim.num_games
    alone = time.perf_counter() - start
    return {
        "games": per * len(sims),
        "iterations": iterations,
        "learner_decisions_per_s": round(samples[0] / trained),
        "simulator_steps_per_s": round(steps / alone),
        "torch_threads": 1,
        "device": device,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--policy", help="a policy file instead of the shipped one")
    p.add_argument("--against", default="random,beginner,intermediate")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--trainer", action="store_true", help="measure the trainer's speed instead")
    p.add_argument("--iterations", type=int, default=6)
    p.add_argument("--games", type=int, default=2048)
    p.add_argument("--device", default="cpu", help="where the trainer's network runs: cpu, cuda, cuda:1...")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.trainer:
        speed = trainer_speed(args.iterations, args.games, args.seed, args.device)
        if args.json:
            print(json.dumps(speed, indent=2))
        else:
            print(
                f"trainer: {speed['learner_decisions_per_s']} learner decisions/s, one core, {args.device} "
                f"({speed['games']} games); the simulator alone: {speed['simulator_steps_per_s']} steps/s"
            )
        return 0
    rows = strength(args.policy, args.against.split(","), args.deals, args.seed, args.jobs)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'against':<14}{'learned':>9}{'other':>9}{'difference':>12}  95% CI")
    for r in rows:
        lo, hi = r["ci95"]
        print(
            f"{r['against']:<14}{r['learned']:>9.2f}{r['other']:>9.2f}{r['difference']:>+12.2f}"
            f"  [{lo:+.2f}, {hi:+.2f}]"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
