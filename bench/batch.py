"""Batched simulator speed: environment steps per second on one core, by batch size.

Prints JSON (for machines) and a short table. A step is one action in each of
the B games; its cost here is ``step`` plus the legal mask (``action_mask``)
and the observation of the seat to act (``observe``) for every game, as a
learner needs them. The random legal choice of the actions is timed apart
(``random_actions``) and given as a second rate that includes it. The
process is pinned to one core where the system allows, and each figure is the
best of ``--repeats`` timed runs (other work on the machine only slows runs),
by the wall clock and by the process's CPU time: on a machine shared with
other work the CPU-time rate is the one an idle core would give.
``--out`` writes the masks and observations into arrays given once instead of
new arrays each step, as a learner filling its rollout buffer would.

    python bench/batch.py [--batches 1,64,1024,4096] [--game-steps 2000000] [--max-steps 10000]
                          [--preset pagat] [--hand-size 10] [--repeats 5] [--out] [--core N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

import numpy as np

from ohhell.env.batch import BatchSimulator


def cpu_name() -> str:
    """The processor's model name, where the system tells it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor()


def machine(core: int | None) -> dict[str, object]:
    """What a result was measured on (the benches under bench/ print it beside their figures)."""
    return {
        "cores_on_machine": os.cpu_count(),
        "pinned_to_core": core,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu": cpu_name(),
    }


def pin_to_one_core(core: int | None) -> int | None:
    """Run on one core (``core``, or the first this process may use); its number, or None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    if core is None:
        core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


PARTS = ("mask", "observe", "random_actions", "step")


def run_once(sim: BatchSimulator, steps: int, out: bool) -> dict[str, dict[str, float]]:
    """Seconds spent in each part over ``steps`` batch steps, by the wall clock
    and by this process's CPU time."""
    b = sim.num_games
    mask_buf = np.zeros((b, sim.action_size), np.int8) if out else None
    obs_buf = np.zeros((b, sim.observation_size), np.float32) if out else None
    wall, cpu = time.perf_counter, time.process_time
    spent = {"wall": dict.fromkeys(PARTS, 0.0), "cpu": dict.fromkeys(PARTS, 0.0)}
    w, c = spent["wall"], spent["cpu"]
    for _ in range(steps):
        w0, c0 = wall(), cpu()
        sim.action_mask(out=mask_buf)
        w1, c1 = wall(), cpu()
        sim.observe(out=obs_buf)
        w2, c2 = wall(), cpu()
        actions = sim.random_actions()
        w3, c3 = wall(), cpu()
        sim.step(actions)
        w4, c4 = wall(), cpu()
        w["mask"] += w1 - w0
        w["observe"] += w2 - w1
        w["random_actions"] += w3 - w2
        w["step"] += w4 - w3
        c["mask"] += c1 - c0
        c["observe"] += c2 - c1
        c["random_actions"] += c3 - c2
        c["step"] += c4 - c3
    return spent


def _env(part: dict[str, float]) -> float:
    return part["mask"] + part["observe"] + part["step"]


def bench_batch(
    batch: int, game_steps: int, max_steps: int, repeats: int, out: bool, options: dict[str, Any], seed: int
) -> dict[str, Any]:
    sim = BatchSimulator(batch, seed=seed, **options)
    steps = min(max(game_steps // batch, 50), max_steps)
    run_once(sim, max(steps // 10, 5), out)  # warm up: caches, allocator, the first deals
    runs = [run_once(sim, steps, out) for _ in range(repeats)]
    # The best run of each clock: other work on the machine only slows a run.
    wall = min((r["wall"] for r in runs), key=_env)
    cpu = min((r["cpu"] for r in runs), key=_env)
    done = batch * steps
    return {
        "batch": batch,
        "batch_steps_timed": steps,
        "steps_per_s": done / _env(wall),
        "steps_per_s_with_random_actions": done / (_env(wall) + wall["random_actions"]),
        # Wall-clock time counts whatever else runs on that core; CPU time
        # counts this process only, so on a shared machine it is the figure an
        # idle core would give (less what other work costs in shared caches).
        "steps_per_cpu_s": done / _env(cpu),
        "steps_per_cpu_s_with_random_actions": done / (_env(cpu) + cpu["random_actions"]),
        "us_per_batch_step": {k: v / steps * 1e6 for k, v in wall.items()},
        "cpu_us_per_batch_step": {k: v / steps * 1e6 for k, v in cpu.items()},
        "observation_size": sim.observation_size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,64,1024,4096", help="batch sizes, comma-separated")
    parser.add_argument("--game-steps", type=int, default=2_000_000, help="game steps timed per run")
    parser.add_argument("--max-steps", type=int, default=10_000, help="at most this many batch steps a run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per batch size (the best counts)")
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hand-size", type=int, default=10, help="hand size; 0: whole matches")
    parser.add_argument("--out", action="store_true", help="write into arrays given once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--core", type=int, default=None, help="the core to run on (default: the first allowed)"
    )
    args = parser.parse_args()

    core = pin_to_one_core(args.core)
    options: dict[str, Any] = {"preset": args.preset, "players": args.players}
    if args.hand_size:
        options["single_deal"] = args.hand_size
    rows = [
        bench_batch(int(b), args.game_steps, args.max_steps, args.repeats, args.out, options, args.seed)
        for b in args.batches.split(",")
    ]
    out = {
        "machine": machine(core),
        "game": options,
        "arrays": "given once (--out)" if args.out else "new each step",
        "results": rows,
    }
    print(json.dumps(out, indent=2))
    print()
    episode = f"one {args.hand_size}-card hand" if args.hand_size else "whole matches"
    print(f"{args.preset}, {args.players} players, {episode} an episode; {out['arrays']}; one core")
    head = (
        "batch",
        "steps/s",
        "+random",
        "cpu: steps/s",
        "+random",
        "step us",
        "mask us",
        "obs us",
        "pick us",
    )
    print(f"{head[0]:>6}" + "".join(f"{h:>13}" for h in head[1:5]) + "".join(f"{h:>9}" for h in head[5:]))
    for r in rows:
        us = r["us_per_batch_step"]
        rates = (
            "steps_per_s",
            "steps_per_s_with_random_actions",
            "steps_per_cpu_s",
            "steps_per_cpu_s_with_random_actions",
        )
        print(
            f"{r['batch']:>6}"
            + "".join(f"{r[k]:>13,.0f}" for k in rates)
            + "".join(f"{us[k]:>9.1f}" for k in ("step", "mask", "observe", "random_actions"))
        )
    print(
        "steps/s: game steps a second (step + mask + observation), by the wall clock; +random: with the "
        "random legal choice;\ncpu: by this process's CPU time; us: wall-clock microseconds a batch step"
    )


if __name__ == "__main__":
    main()
