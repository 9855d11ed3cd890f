"""Self-play: a policy learns with maskable PPO against frozen copies of itself.

The learner takes one seat of ``ohhell.env.gym.OhHellGymEnv(flatten=True)``;
every other seat is an ``ohhell.bots.ppo.PpoBot`` playing a *frozen copy* of
the learner's policy: its network weights taken out as NumPy arrays, so the
copies are not trained through and stay fixed while the learner moves. Every
``--refresh`` decisions the copies are replaced by the learner as it is then:
the opponents grow with it, but never change under it within one stretch.
Like any bot, each copy sees only its own seat's observation.

Everything runs in this one process (the copies of the environment are
stepped in turn), so the refresh reaches the bots directly; for more
processes, train against fixed bots with ``train_ppo.py``.

``--start FILE`` begins from a policy file (``shipped`` for the one in the
package) instead of a fresh network: its policy weights are loaded, the value
network learns from scratch. At the end the policy is written like
``train_ppo.py``'s, and ``--eval-deals`` plays it against bots in duplicate
tournaments.

    python examples/selfplay_ppo.py --steps 200000 --refresh 20000 --out selfplay.npz --eval-deals 400
    python examples/selfplay_ppo.py --start shipped --steps 150000 --refresh 25000 --out selfplay.npz

The other options (``--hand-sizes``, ``--envs``, ``--net``, ...) are
``train_ppo.py``'s, but the copies always run in this process.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from train_ppo import env_options, evaluate, export_layers, load_layers, make_model, parse_args, policy_of

from ohhell.bots.ppo import Policy, PpoBot, load_policy, save_policy


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--refresh", type=int, default=20_000, help="decisions between copies of the learner")
    extra.add_argument("--start", help="a policy file to start from ('shipped': the package's)")
    mine, rest = extra.parse_known_args(argv)
    args = parse_args(rest)
    args.refresh, args.start = mine.refresh, mine.start
    args.vec = "dummy"  # the bots must live in this process for the refresh to reach them
    return args


def main(argv: Sequence[str] | None = None) -> int:
    import numpy as np
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ohhell.encoding import ACTION_SIZE, OBSERVATION_SIZE
    from ohhell.env.gym import OhHellGymEnv

    args = parse(argv)
    start = load_policy(None if args.start == "shipped" else args.start) if args.start else None
    if start is not None:
        args.net = ",".join(str(w.shape[1]) for w, _ in start.layers[:-1])
    # The bots are made before the network they copy; this stand-in is replaced
    # before their first decision (the copies of the environment are reset
    # only when learning starts).
    stand_in = Policy([(np.zeros((OBSERVATION_SIZE, ACTION_SIZE)), np.zeros(ACTION_SIZE))], {})
    copies = [PpoBot(name="copy", policy=stand_in) for _ in range(args.envs * (args.players - 1))]

    def maker(i: int) -> Any:
        bots = copies[i * (args.players - 1) : (i + 1) * (args.players - 1)]
        return Monitor(
            OhHellGymEnv(seat=i % args.players, opponents=bots, flatten=True, **env_options(args, i))
        )

    venv = DummyVecEnv([lambda i=i: maker(i) for i in range(args.envs)])  # type: ignore[misc]
    model = make_model(venv, args)  # its seed fixes the deals and the learner's sampling
    if start is not None:
        load_layers(model, start)
    frozen = policy_of(model)
    for bot in copies:
        bot.policy = frozen

    class Refresh(BaseCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.next = args.refresh
            self.began = time.perf_counter()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += args.refresh
                snapshot = policy_of(self.model)  # a frozen copy: NumPy arrays, not the live network
                for bot in copies:
                    bot.policy = snapshot
                episodes = [e["r"] for e in self.model.ep_info_buffer]
                mean = sum(episodes) / len(episodes) if episodes else float("nan")
                took = time.perf_counter() - self.began
                print(
                    f"{self.num_timesteps:>9}/{args.steps} decisions  copies refreshed  "
                    f"mean return {mean:8.1f}  {took:6.0f} s",
                    flush=True,
                )
            return True

    began = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=Refresh())
    seconds = time.perf_counter() - began
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "algorithm": "maskable PPO, self-play against frozen copies",
        "command": "python examples/selfplay_ppo.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "decisions": int(model.num_timesteps),
        "wall_seconds": round(seconds, 1),
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "checkpoint", "resume")},
    }
    save_policy(out, export_layers(model), meta)
    venv.close()
    if args.eval_deals:
        evaluate(out, [b for b in args.eval_against.split(",") if b], args.eval_deals, args)
    print(json.dumps({"out": str(out), "decisions": meta["decisions"], "wall_seconds": meta["wall_seconds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
