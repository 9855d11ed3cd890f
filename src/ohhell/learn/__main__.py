"""``python -m ohhell.learn``: clone a bot, then train by PPO on the batched simulator.

    python -m ohhell.learn --out learned.npz --clone-deals 24000 --iterations 100 --seed 1

Writes the policy file the ``learned`` bot plays (``--out``) and, beside it,
a PyTorch checkpoint (``.pt``) to go on from (``--resume``). The file's meta
holds this command, the seed, the training time and the machine's cores.
``--record-out`` only records the teacher's decisions (for ``--clone-data``).
PPO runs ``--iterations`` iterations; ``--minutes`` only caps the wall clock,
so a run with a fixed number of iterations is the same on any machine
(``python -m ohhell.learn.rebuild`` rebuilds the shipped file that way).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from .. import PRESETS
from ..encoding import CHANGE_BASE, KEEP
from ..env.batch import BatchSimulator
from .arena import Arena, BotArena, NetOpponent, alternate, self_play
from .clone import Decisions, fit, record
from .net import PolicyValueNet, from_state, save_policy_file, state_of
from .ppo import Settings, snapshot, train

ACTIONS = 95


def _arenas(args: argparse.Namespace, net: PolicyValueNet, past: list[PolicyValueNet]) -> list[Arena]:
    rules = PRESETS[args.preset]
    seed = args.seed
    arenas = []
    sizes = sorted(set(rules.schedule))
    per = max(args.games // (len(sizes) + 1), 16)
    # One hand of each size, as tournaments deal them (totals at zero), and
    # whole matches, as tables play them.
    for k, size in enumerate(sizes):
        sim = BatchSimulator(per, args.preset, single_deal=size, seed=seed * 1000 + k)
        arenas.append(Arena(sim, seating=self_play, seed=seed * 1000 + k, name=f"hand-{size}"))
    sim = BatchSimulator(per, args.preset, seed=seed * 1000 + 99)
    arenas.append(Arena(sim, seating=self_play, seed=seed * 1000 + 99, name="matches"))
    if past:
        sim = BatchSimulator(args.league_games, args.preset, seed=seed * 1000 + 98)
        opponent = NetOpponent(past[-1], name="past", device=args.device)
        arenas.append(Arena(sim, [opponent], seating=alternate(1), seed=seed * 1000 + 98, name="league"))
    for k, name in enumerate(args.bots):
        base = seed * 1000 + 100 * (k + 1)
        if args.bot_hands:
            # Against the bot as tournaments measure it: one hand a game, every
            # size of the schedule, totals at zero; and some whole matches.
            each = max(args.bot_games // (len(sizes) + 1), 2)
            for j, size in enumerate(sizes):
                sim = BatchSimulator(each, args.preset, single_deal=size, seed=base + j)
                arenas.append(BotArena(sim, name, seed=base + j, name=f"{name} hand-{size}"))
            sim = BatchSimulator(each, args.preset, seed=base + 99)
            arenas.append(BotArena(sim, name, seed=base + 99, name=f"{name} matches"))
        else:
            sim = BatchSimulator(args.bot_games, args.preset, seed=base)
            arenas.append(BotArena(sim, name, seed=base))
    return arenas


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ohhell.learn", description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="pagat")
    p.add_argument("--out", type=Path, help="the policy file to write (.npz); needed unless --record-out")
    p.add_argument("--resume", type=Path, help="a .pt checkpoint to go on from (skips cloning)")
    p.add_argument("--clone-deals", type=int, default=0, help="deals of the teacher to clone first (0: none)")
    p.add_argument("--clone-data", type=Path, help="decisions recorded before (.npz of obs, mask, action)")
    p.add_argument(
        "--record-out",
        type=Path,
        help="record --clone-deals deals of the teacher into this .npz (for --clone-data) and stop",
    )
    p.add_argument("--clone-epochs", type=int, default=4)
    p.add_argument("--teacher", default="intermediate")
    p.add_argument(
        "--minutes", type=float, default=0.0, help="a wall-clock cap on PPO, in minutes (0: no cap)"
    )
    p.add_argument(
        "--iterations", type=int, default=0, help="PPO iterations after the value warm-up (0: none)"
    )
    p.add_argument("--value-warmup", type=int, default=5, help="iterations training the value alone first")
    p.add_argument("--games", type=int, default=2048)
    p.add_argument("--league-games", type=int, default=512)
    p.add_argument("--league-every", type=int, default=20, help="iterations between league snapshots")
    p.add_argument("--bots", nargs="*", default=[], help="shipped bots to train against as well")
    p.add_argument(
        "--bot-games", type=int, default=64, help="games against each of --bots (they run in Python)"
    )
    p.add_argument(
        "--bot-hands",
        action="store_true",
        help="games against --bots are single hands of every size, as tournaments deal them",
    )
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--entropy", type=float, default=0.003)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=0, help="PyTorch threads (0: its default)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--jobs", type=int, default=1, help="processes recording the teacher")
    args = p.parse_args(argv)
    if args.record_out is not None:
        return _record_only(args)
    if args.out is None:
        p.error("--out is needed: the policy file to write (.npz)")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    rules = PRESETS[args.preset]
    start = time.perf_counter()
    log = print
    clone_info: dict[str, Any] = {}
    if args.resume:
        # Onto the CPU first: a checkpoint written on a GPU loads on a machine without one.
        saved = torch.load(args.resume, weights_only=False, map_location="cpu")
        net = from_state(saved["net"])
        # The file's meta tells the whole story: what this run went on from.
        clone_info = {"resumed": str(args.resume), "before": saved.get("meta", {})}
    else:
        probe = BatchSimulator(1, args.preset)
        net = PolicyValueNet(probe.observation_size, ACTIONS, [int(h) for h in args.hidden.split(",")])
        data: Decisions | None = None
        if args.clone_data:
            with np.load(args.clone_data) as f:
                data = Decisions(f["obs"], f["mask"], f["action"])
        elif args.clone_deals:
            t = time.perf_counter()
            data = record(rules, args.teacher, args.clone_deals, seed=args.seed, jobs=args.jobs)
            log(f"recorded {len(data.action)} decisions of {args.teacher} in {time.perf_counter() - t:.0f} s")
        if data is not None:
            agree = fit(net, data, epochs=args.clone_epochs, seed=args.seed, device=args.device)
            clone_info = {
                "teacher": args.teacher,
                "decisions": len(data.action),
                "agreement": round(agree, 4),
            }
    if not clone_info.get("before", {}).get("bid_change_window", False):
        # R-BID-CHANGE: a policy that never met the bid-change window (cloned
        # from a bot, which is never asked) starts by keeping its bid there,
        # not by changing it at random; PPO then learns when a change pays.
        with torch.no_grad():
            net.policy.bias[CHANGE_BASE:KEEP] = -5.0
            net.policy.bias[KEEP] = 5.0
    net.to(args.device)
    cfg = Settings(steps=args.steps, lr=args.lr, entropy_coef=args.entropy)
    past: list[PolicyValueNet] = [snapshot(net)]
    arenas = _arenas(args, net, past)
    history: list[dict[str, Any]] = []

    def save(info: dict[str, Any]) -> None:
        meta = {
            "command": "python -m ohhell.learn " + shlex.join(argv if argv is not None else sys.argv[1:]),
            "seed": args.seed,
            "preset": args.preset,
            "players": rules.players,
            "observation": "ohhell.encoding (full; first layer from the compact form)",
            "hidden": list(net.hidden),
            "clone": clone_info,
            "ppo": {
                **cfg.__dict__,
                "iterations": len(history),
                "samples": int(sum(h["samples"] for h in history)),
            },
            "train_seconds": round(time.perf_counter() - start),
            "cores": os.cpu_count(),
            # R-BID-CHANGE: whether the batch asked the learner to change or keep.
            "bid_change_window": bool(rules.bid_changes and arenas[0].sim.action_size > KEEP),
            "device": args.device,
            "torch_threads": torch.get_num_threads(),
            **info,
        }
        save_policy_file(args.out, net, rules, meta)
        torch.save({"net": state_of(net), "meta": meta}, args.out.with_suffix(".pt"))

    def on_iteration(it: int, info: dict[str, Any]) -> None:
        history.append(info)
        pts = ", ".join(f"{k} {v:.2f}" for k, v in info["points_per_hand"].items())
        log(
            f"it {it + 1}: {info['samples']:.0f} samples, {info['samples_per_s']:.0f}/s, "
            f"value {info['value']:.3f}, entropy {info['entropy']:.3f}, clipped {info['clipped']:.3f}, "
            f"points/hand {pts}, {info['elapsed_s']:.0f} s",
            flush=True,
        )
        if (it + 1) % args.league_every == 0:
            past.append(snapshot(net))
            for arena in arenas:
                for o in arena.opponents:
                    if isinstance(o, NetOpponent):
                        o.net = past[-1]
            save({})

    if args.value_warmup:
        warm = Settings(**{**cfg.__dict__, "value_only": True})
        train(
            net,
            arenas,
            args.value_warmup,
            warm,
            device=args.device,
            seed=args.seed,
            on_iteration=on_iteration,
        )
    if args.iterations > 0:
        train(
            net,
            arenas,
            args.iterations,
            cfg,
            device=args.device,
            seed=args.seed,
            seconds=args.minutes * 60 if args.minutes > 0 else None,
            on_iteration=on_iteration,
        )
    save({})
    log(json.dumps({"out": str(args.out), "seconds": round(time.perf_counter() - start)}))
    return 0


def _record_only(args: argparse.Namespace) -> int:
    """``--record-out``: the teacher's decisions over ``--clone-deals`` deals,
    saved for ``--clone-data`` (each deal is seeded alone, so the first N
    deals of a recording are those of a recording of N deals, whatever
    ``--jobs``)."""
    if args.clone_deals <= 0:
        raise SystemExit("--record-out needs --clone-deals: how many deals of the teacher to record")
    t = time.perf_counter()
    data = record(PRESETS[args.preset], args.teacher, args.clone_deals, seed=args.seed, jobs=args.jobs)
    np.savez(args.record_out, obs=data.obs, mask=data.mask, action=data.action)
    print(
        json.dumps(
            {
                "out": str(args.record_out),
                "decisions": len(data.action),
                "seconds": round(time.perf_counter() - t),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
