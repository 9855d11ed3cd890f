"""Train with maskable PPO on the batched simulator: thousands of games as arrays.

The environment is ``ohhell.env.sb3.OhHellSB3VecEnv``: ``--games`` games of
one rule set stepped together in this one process, one learning seat in each
(``--seat``), the other seats random (``--opponent random``) or the learner's
own current policy (``--opponent self``). MaskablePPO reads the legal ids from
it by itself. The network and the PPO settings are ``train_ppo.py``'s (tanh
layers, the policy and the value apart; its ``make_model`` builds both), so
the two examples differ only in where the decisions come from.

An episode is one hand of ``--hand-size`` cards (``match``: whole matches).
At the end the model is saved (``--out``, SB3's ``.zip``: reload it with
``MaskablePPO.load``) and a line of JSON gives the decisions, the seconds and
the decisions a second. The observation is the batch observation (552 values
at 4 players, docs/env.md), not the 1162-value one the ``ppo`` bot reads, so
the model is not exported for that bot.

    pip install -e ".[research,train]"
    python examples/train_batch_sb3.py --steps 200000 --games 256 --out batch.zip
    python examples/train_batch_sb3.py --steps 200000 --opponent self --out self.zip
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from train_ppo import Progress, make_model


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=200_000, help="learner decisions to train on")
    p.add_argument("--games", type=int, default=256, help="games stepped together (one learner seat each)")
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seat", type=int, default=0, help="the learner's seat in every game")
    p.add_argument("--hand-size", default="10", help="an episode: one hand of this size, or 'match'")
    p.add_argument("--opponent", choices=["random", "self"], default="random", help="the other seats' player")
    p.add_argument("--reward", choices=["hand", "final"], default="hand")
    # The rest as in train_ppo.py, so that the same network learns the same way.
    p.add_argument("--net", default="64,64", help="hidden layer widths")
    p.add_argument("--n-steps", type=int, default=32, help="decisions per game between updates")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="1: a hand's score counts for all its decisions")
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch threads for the updates")
    p.add_argument("--out", default="batch_ppo.zip", help="the trained model (SB3's .zip)")
    args = p.parse_args(argv)
    args.resume = None  # make_model's: always a fresh model here
    return args


def make_venv(args: argparse.Namespace) -> Any:
    from stable_baselines3.common.vec_env import VecMonitor

    from ohhell.env.sb3 import OhHellSB3VecEnv

    options: dict[str, Any] = {"players": args.players}
    if args.hand_size != "match":
        options["single_deal"] = int(args.hand_size)
    venv = OhHellSB3VecEnv(args.games, args.seat, args.preset, reward=args.reward, seed=args.seed, **options)
    return venv, VecMonitor(venv)  # VecMonitor: the episode returns for the progress lines


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from ohhell.env.sb3 import policy_opponent

    games, venv = make_venv(args)
    model = make_model(venv, args)
    if args.opponent == "self":
        # The other seats ask the learner's network as it is at each step.
        games.set_opponent(policy_opponent(model))
    progress = Progress(args.steps, max(args.steps // 20, args.n_steps * args.games))
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=progress.callback)
    seconds = time.perf_counter() - start
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    venv.close()
    summary = {
        "out": str(out),
        "decisions": int(model.num_timesteps),
        "wall_seconds": round(seconds, 1),
        "decisions_per_second": round(model.num_timesteps / seconds),
        "command": "python examples/train_batch_sb3.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
