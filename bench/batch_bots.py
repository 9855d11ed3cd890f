"""Shipped bots in the batched simulator: bot decisions per second on one core.

Prints JSON (for machines) and a short table. A learner (uniformly random
here, drawn by the simulator) holds seat 0 of every game and a shipped bot
the other seats (``ohhell.env.batch_bots.BatchBots``); each batch step is the
learner's action or a bot's in each game. A bot's cost depends on the hand
size and on the point of the hand, so each run is whole episodes of every
game: one deal of each size asked (``--hand-sizes``; 0 is a whole match,
about 100,000 bot decisions at 256 games). Timed apart: the bots' decisions
(``BatchBots.fill``: ``observe`` of the seat and the bot's ``choose``, of which
``choose`` alone is timed too) and the step (``BatchBots.step``: the
simulator's step and the same action in every shadow ``GameState``; the
simulator's own share is timed on a copy of the run without bots). So a
trainer reads what a game against bots costs: a bot decision, and the upkeep
of a shadow game for each game step. The process is pinned to one core where
the system allows; each figure is the best of ``--repeats`` runs, by the wall
clock and by this process's CPU time (on a shared machine the CPU-time rate is
the one an idle core would give).

    python bench/batch_bots.py [--bots beginner,intermediate] [--batch 256] [--hand-sizes 1,5,10]
                               [--preset pagat] [--players 4] [--repeats 3] [--core N]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import numpy as np

# Its sibling script (run as a script, its folder is on the path): the same
# pinning and processor name as the simulator's own benchmark.
from batch import machine, pin_to_one_core
from ohhell import Action, Observation
from ohhell.bots import Bot, get_bot
from ohhell.env.batch import BatchSimulator
from ohhell.env.batch_bots import BatchBots


class Timed:
    """A bot that counts the time its inner bot spends choosing."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.wall = 0.0
        self.cpu = 0.0

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        w, c = time.perf_counter(), time.process_time()
        action = self.bot.choose(obs, rng)
        self.wall += time.perf_counter() - w
        self.cpu += time.process_time() - c
        return action


def run_once(bots: BatchBots, timed: Timed, rng: np.random.Generator, steps: int = 0) -> dict[str, Any]:
    """Batch steps until every game has finished an episode (or ``steps``
    steps, for a warm-up); the decisions made and the time spent in each part."""
    sim = bots.sim
    wall, cpu = time.perf_counter, time.process_time
    spent = {"wall": {"fill": 0.0, "step": 0.0}, "cpu": {"fill": 0.0, "step": 0.0}}
    timed.wall = timed.cpu = 0.0
    made = game_steps = ended = 0
    while ended < sim.num_games if not steps else game_steps < steps * sim.num_games:
        learner = sim.random_actions(rng)
        made += int(bots.to_act_mask().sum())
        w0, c0 = wall(), cpu()
        actions = bots.fill(learner)
        w1, c1 = wall(), cpu()
        bots.step(actions)
        w2, c2 = wall(), cpu()
        spent["wall"]["fill"] += w1 - w0
        spent["wall"]["step"] += w2 - w1
        spent["cpu"]["fill"] += c1 - c0
        spent["cpu"]["step"] += c2 - c1
        game_steps += sim.num_games
        ended += int(sim.terminations.sum())
    spent["wall"]["choose"] = timed.wall
    spent["cpu"]["choose"] = timed.cpu
    return {"decisions": made, "game_steps": game_steps, "spent": spent}


def sim_step_seconds(sim: BatchSimulator, batch_steps: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``batch_steps`` plain simulator steps (random actions, untimed)."""
    rng = np.random.default_rng(seed)
    w = c = 0.0
    for _ in range(batch_steps):
        actions = sim.random_actions(rng)
        w0, c0 = time.perf_counter(), time.process_time()
        sim.step(actions)
        w += time.perf_counter() - w0
        c += time.process_time() - c0
    return w, c


def bench_bot(name: str, batch: int, repeats: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    timed = Timed(get_bot(name))

    def fresh() -> BatchBots:
        sim = BatchSimulator(batch, seed=seed, **options)
        return BatchBots(sim, {s: timed for s in range(1, sim.players)}, seed=seed)

    run_once(fresh(), timed, np.random.default_rng(seed), steps=8)  # warm up: imports, caches
    # Each run plays the same deals from their start, so the runs differ only by the machine.
    runs = [run_once(fresh(), timed, np.random.default_rng(seed)) for _ in range(repeats)]
    made, steps = runs[0]["decisions"], runs[0]["game_steps"]
    result: dict[str, Any] = {"bot": name, "batch": batch, "decisions_timed": made, "game_steps_timed": steps}
    for clock in ("wall", "cpu"):
        # The best run by each clock: other work on the machine only slows a run.
        s = min((r["spent"][clock] for r in runs), key=lambda t: t["fill"] + t["step"])
        plain = sim_step_seconds(BatchSimulator(batch, seed=seed, **options), steps // batch, seed)
        sim_s = plain[0] if clock == "wall" else plain[1]
        suffix = "" if clock == "wall" else "_cpu"
        result[f"decisions_per_s{suffix}"] = made / s["fill"]
        result[f"us_per_decision{suffix}"] = s["fill"] / made * 1e6
        result[f"us_choose_per_decision{suffix}"] = s["choose"] / made * 1e6
        # observe, the legality check and the id: what the module adds to a decision
        result[f"us_observe_per_decision{suffix}"] = (s["fill"] - s["choose"]) / made * 1e6
        # Each followed game replays each game step in its GameState: the step's
        # cost beyond the simulator's own, per game step.
        result[f"us_shadow_per_game_step{suffix}"] = max(s["step"] - sim_s, 0.0) / steps * 1e6
        result[f"game_steps_per_s{suffix}"] = steps / (s["fill"] + s["step"])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bots", default="beginner,intermediate", help="bot names, comma-separated")
    parser.add_argument("--batch", type=int, default=256, help="games in the batch")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per bot (the best counts)")
    parser.add_argument("--preset", default="pagat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--hand-sizes", default="1,5,10", help="one deal of each size an episode; 0: whole matches"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--core", type=int, default=None, help="the core to run on (default: the first allowed)"
    )
    args = parser.parse_args()

    core = pin_to_one_core(args.core)
    rows = []
    for size in (int(x) for x in args.hand_sizes.split(",")):
        options: dict[str, Any] = {"preset": args.preset, "players": args.players}
        if size:
            options["single_deal"] = size
        for name in args.bots.split(","):
            row = bench_bot(name.strip(), args.batch, args.repeats, options, args.seed)
            rows.append({"hand_size": size or "match"} | row)
    out = {
        "machine": machine(core),
        "game": {"preset": args.preset, "players": args.players},
        "learner": "seat 0, random; bots at the other seats",
        "results": rows,
    }
    print(json.dumps(out, indent=2))
    print()
    print(f"{args.preset}, {args.players} players; batch {args.batch}; one core; whole episodes timed")
    head = ("hand", "bot", "dec/s", "cpu dec/s", "us/dec", "choose", "observe", "shadow/step", "steps/s")
    print(f"{head[0]:>6} {head[1]:<14}" + "".join(f"{h:>12}" for h in head[2:]))
    for r in rows:
        values = (
            f"{r['decisions_per_s']:,.0f}",
            f"{r['decisions_per_s_cpu']:,.0f}",
            f"{r['us_per_decision_cpu']:.0f}",
            f"{r['us_choose_per_decision_cpu']:.0f}",
            f"{r['us_observe_per_decision_cpu']:.0f}",
            f"{r['us_shadow_per_game_step_cpu']:.1f}",
            f"{r['game_steps_per_s_cpu']:,.0f}",
        )
        print(f"{r['hand_size']!s:>6} {r['bot']:<14}" + "".join(f"{v:>12}" for v in values))
    print(
        "hand: cards a deal (one deal an episode); dec/s: bot decisions a second (observe + choose) by the "
        "wall clock;\ncpu dec/s and the rest: by CPU time; us/dec: microseconds a decision, of which choose "
        "and observe (+ checks);\nshadow/step: microseconds a game step to keep its GameState; steps/s: "
        "game steps a second, learner's\nand bots', bots' time included"
    )


if __name__ == "__main__":
    main()
