"""Train an Oh Hell policy with maskable PPO and export it for the ``ppo`` bot.

The environment is ``ohhell.env.gym.OhHellGymEnv(flatten=True)`` as it is: its
observation is the 1162-value vector (a ``Box``) and its ``action_masks()``
gives the legal ids, which ``MaskablePPO`` reads by itself, so no wrapper is
written here. One learning seat plays against ohhell bots; each copy of the
environment has its own table of opponents (``--opponents``: copy i plays
against the i-th table, cycling; ``a+b+c`` gives one bot per seat) and its own
hand size (``--hand-sizes``: an episode is one hand, so a hand's score is the
return of every decision in it; ``match`` plays whole matches instead).

At the end the policy network (tanh layers, then one score per action id) is
written as a NumPy file that ``ohhell.bots.ppo.PpoBot(path=...)`` plays with
NumPy alone; the settings, the steps and the wall-clock time go into its
``meta``. The defaults are the settings of the shipped
``src/ohhell/bots/data/ppo_pagat4.npz``; docs/env.md ("Baselines: PPO and
self-play") gives the command, its time and the policy's results.

Processes: ``--vec subproc`` (default) steps the copies in worker processes on
this machine; ``--ray`` puts them in Ray actors instead (``--ray-address``
joins a cluster, default a local Ray on the loopback address started for the
run), the learner staying in this process.

    pip install -e ".[research,train]"        # and ".[ray]" for --ray
    python examples/train_ppo.py --out ppo.npz --eval-deals 400
    python examples/train_ppo.py --steps 20000 --ray --ray-workers 2 --out ppo.npz
    python examples/train_ppo.py --resume ppo.zip --checkpoint more.zip --out more.npz  # train on

A policy file of one's own plays as ``PpoBot(path="ppo.npz")``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ohhell.bots.ppo import Policy, save_policy
from ohhell.env.gym import OhHellGymEnv

EnvMaker = Callable[[], Any]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # The defaults are the settings of the shipped policy (docs/env.md).
    p.add_argument("--steps", type=int, default=300_000, help="learner decisions to train on")
    p.add_argument("--envs", type=int, default=10, help="copies of the environment stepped together")
    p.add_argument(
        "--opponents",
        default="beginner,intermediate,random+beginner+intermediate,beginner,random",
        help="comma-separated tables, one per copy in turn: a bot name for every seat, or a+b+c per seat",
    )
    p.add_argument("--preset", default="pagat")
    p.add_argument("--players", type=int, default=4)
    p.add_argument(
        "--hand-sizes",
        default="1,2,3,4,5,6,7,8,9,10",
        help="episodes of one hand, copy i dealing the i-th of these sizes in turn; 'match': whole matches",
    )
    p.add_argument("--net", default="64,64", help="hidden layer widths")
    p.add_argument("--n-steps", type=int, default=256, help="decisions per copy between updates")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="1: a hand's score counts for all its decisions")
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--vec", choices=["dummy", "subproc"], default="subproc", help="how copies are stepped")
    p.add_argument("--ray", action="store_true", help="step the copies in Ray actors (the ray extra)")
    p.add_argument("--ray-workers", type=int, default=2, help="Ray actors (each holds envs/workers copies)")
    p.add_argument("--ray-address", default=None, help="a Ray cluster to join (default: a local Ray)")
    p.add_argument("--threads", type=int, default=1, help="torch threads for the updates")
    p.add_argument("--out", default="ppo.npz", help="the exported policy (.npz)")
    p.add_argument("--checkpoint", help="also save the whole model (.zip) to train on later")
    p.add_argument("--resume", help="start from a model saved with --checkpoint")
    p.add_argument("--eval-deals", type=int, default=0, help="then a duplicate tournament of this many deals")
    p.add_argument("--eval-against", default="random,beginner,intermediate", help="its opponents, in turn")
    p.add_argument("--jobs", type=int, default=1, help="worker processes for the tournament")
    return p.parse_args(argv)


def tables(spec: str) -> list[tuple[str, ...]]:
    """``"beginner,random+beginner+intermediate"`` -> one opponent tuple per table."""
    return [tuple(t.split("+")) for t in spec.split(",") if t]


def env_maker(opponents: tuple[str, ...], seat: int, seed: int, options: dict[str, Any]) -> EnvMaker:
    """A function that builds one copy (for vectorised envs, which call it in
    their own process). Seeding it here makes every later reset reproducible."""

    def make() -> Any:
        from stable_baselines3.common.monitor import Monitor

        env = OhHellGymEnv(seat=seat, opponents=opponents, flatten=True, **options)
        env.reset(seed=seed)
        return Monitor(env)  # records episode returns for the progress lines

    return make


def env_options(args: argparse.Namespace, i: int) -> dict[str, Any]:
    """The rules of copy ``i``: one hand of its size, or the whole match."""
    options: dict[str, Any] = {"preset": args.preset, "players": args.players}
    if args.hand_sizes != "match":
        sizes = [int(k) for k in args.hand_sizes.split(",") if k]
        options["single_deal"] = sizes[i % len(sizes)]
    return options


def env_makers(args: argparse.Namespace) -> list[EnvMaker]:
    table_list = tables(args.opponents)
    return [
        env_maker(
            table_list[i % len(table_list)], i % args.players, args.seed * 1000 + i, env_options(args, i)
        )
        for i in range(args.envs)
    ]


def make_vec_env(makers: list[EnvMaker], how: str) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if how == "subproc" and len(makers) > 1:
        return SubprocVecEnv(makers)
    return DummyVecEnv(makers)


# --- Ray: the copies in actors, anywhere in a cluster ---


class _RayWorker:
    """Holds a few copies (a DummyVecEnv) and steps them for the learner."""

    def __init__(self, makers: list[EnvMaker]) -> None:
        from stable_baselines3.common.vec_env import DummyVecEnv

        self.venv = DummyVecEnv(makers)

    def masks(self) -> Any:
        return np.stack(self.venv.env_method("action_masks"))

    def reset(self, seed: int | None) -> tuple[Any, Any, list[dict[str, Any]]]:
        if seed is not None:
            self.venv.seed(seed)
        obs = self.venv.reset()
        return obs, self.masks(), self.venv.reset_infos

    def step(self, actions: Any) -> tuple[Any, ...]:
        obs, rewards, dones, infos = self.venv.step(actions)
        return obs, rewards, dones, infos, self.masks()

    def call(
        self, what: str, name: str, local: list[int], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[Any]:
        if what == "get":
            return list(self.venv.get_attr(name, local))
        if what == "set":
            self.venv.set_attr(name, args[0], local)
            return []
        if what == "wrapped":
            return list(self.venv.env_is_wrapped(args[0], local))
        return list(self.venv.env_method(name, *args, indices=local, **kwargs))


def ray_vec_env(makers: list[EnvMaker], workers: int, address: str | None) -> Any:
    """A VecEnv whose copies live in ``workers`` Ray actors. The actor sends
    the action masks back with each step, so ``action_masks()`` costs no
    extra round trip."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine unasked
    if address is None:
        # A local Ray of one machine: every part of it on the loopback address
        # (Ray's switch for single-machine use; the name says Windows or macOS).
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray
    from stable_baselines3.common.vec_env import VecEnv

    started = False
    if not ray.is_initialized():
        if address is None:  # a local Ray on the loopback address only
            ray.init(num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1")
        else:
            ray.init(address=address)
        started = True
    actor = ray.remote(num_cpus=1)(_RayWorker)
    chunks = [
        [int(i) for i in c] for c in np.array_split(np.arange(len(makers)), max(1, min(workers, len(makers))))
    ]
    probe = makers[0]()

    class RayVecEnv(VecEnv):  # type: ignore[misc]
        def __init__(self) -> None:
            self.actors = [actor.remote([makers[i] for i in c]) for c in chunks]
            self.sizes = [len(c) for c in chunks]
            self._masks = np.zeros((len(makers), probe.action_space.n), bool)
            self._pending: list[Any] = []
            super().__init__(len(makers), probe.observation_space, probe.action_space)

        def _split(self, values: Any) -> list[Any]:
            return np.split(np.asarray(values), np.cumsum(self.sizes)[:-1])

        def reset(self) -> Any:
            seeds = [
                None if self._seeds[0] is None else self._seeds[0] + sum(self.sizes[:k])
                for k in range(len(self.actors))
            ]
            out = ray.get([a.reset.remote(s) for a, s in zip(self.actors, seeds, strict=True)])
            self._seeds = [None] * self.num_envs
            self._masks = np.concatenate([o[1] for o in out])
            self.reset_infos = [i for o in out for i in o[2]]
            return np.concatenate([o[0] for o in out])

        def step_async(self, actions: Any) -> None:
            self._pending = [a.step.remote(c) for a, c in zip(self.actors, self._split(actions), strict=True)]

        def step_wait(self) -> Any:
            out = ray.get(self._pending)
            self._masks = np.concatenate([o[4] for o in out])
            infos = [i for o in out for i in o[3]]
            return (
                np.concatenate([o[0] for o in out]),
                np.concatenate([o[1] for o in out]),
                np.concatenate([o[2] for o in out]),
                infos,
            )

        def _all(self, what: str, name: str, indices: Any, *args: Any, **kwargs: Any) -> list[Any]:
            # Each actor is asked about its own copies among ``indices``, in order.
            wanted = list(self._get_indices(indices))
            calls = []
            for actor_handle, c in zip(self.actors, chunks, strict=True):
                local = [j for j, i in enumerate(c) if i in wanted]
                if local:
                    calls.append((actor_handle.call.remote(what, name, local, args, kwargs), c, local))
            found = {c[j]: v for ref, c, local in calls for j, v in zip(local, ray.get(ref), strict=False)}
            return [found[i] for i in wanted] if what != "set" else []

        def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
            if method_name == "action_masks":
                return [self._masks[i] for i in self._get_indices(indices)]
            return self._all("call", method_name, indices, *args, **kwargs)

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            return self._all("get", attr_name, indices)

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            self._all("set", attr_name, indices, value)

        def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
            return self._all("wrapped", "", indices, wrapper_class)

        def close(self) -> None:
            for a in self.actors:
                ray.kill(a)
            if started:
                ray.shutdown()

    return RayVecEnv()


# --- The model and its export ---


def make_model(venv: Any, args: argparse.Namespace) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(args.threads)
    if args.resume:
        return MaskablePPO.load(args.resume, env=venv, device="cpu")
    widths = [int(w) for w in args.net.split(",") if w]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        learning_rate=args.lr,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        # tanh layers, the policy and the value apart: the export reads the policy's alone
        policy_kwargs={"net_arch": {"pi": widths, "vf": widths}, "activation_fn": torch.nn.Tanh},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )


def export_layers(model: Any) -> list[tuple[Any, Any]]:
    """The policy network as (weight: inputs x outputs, bias) pairs, input first."""
    from torch import nn

    layers = []
    for module in [*model.policy.mlp_extractor.policy_net, model.policy.action_net]:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().T, module.bias.detach().cpu().numpy()))
        elif not isinstance(module, nn.Tanh):
            raise ValueError(f"the export knows tanh layers only, not {module}")
    return layers


def policy_of(model: Any) -> Policy:
    """The learner's current policy as the ``ppo`` bot runs it (NumPy)."""
    return Policy(export_layers(model), {})


def load_layers(model: Any, policy: Policy) -> None:
    """Set the learner's policy network to ``policy``'s weights (the value
    network is left as it is: it learns again from the first updates)."""
    import torch
    from torch import nn

    from ohhell.encoding import ACTION_SIZE, CHANGE_BASE, KEEP

    modules = [*model.policy.mlp_extractor.policy_net, model.policy.action_net]
    linear = [m for m in modules if isinstance(m, nn.Linear)]
    layers = [(np.array(w), np.array(b)) for w, b in policy.layers]  # writable: the policy's are read-only
    w, b = layers[-1]
    if w.shape[1] == CHANGE_BASE:
        # A policy from before bid changes had ids (the shipped one) scores 76
        # ids: the new outputs start as "keep one's bid" (R-BID-CHANGE), a
        # change unlikely, and learn from there.
        w = np.concatenate([w, np.zeros((w.shape[0], ACTION_SIZE - CHANGE_BASE), w.dtype)], axis=1)
        extra = np.full(ACTION_SIZE - CHANGE_BASE, -5.0, b.dtype)
        extra[KEEP - CHANGE_BASE] = 0.0
        layers[-1] = (w, np.concatenate([b, extra]))
    if [tuple(m.weight.shape) for m in linear] != [w.shape[::-1] for w, _ in layers]:
        raise ValueError("the policy file's layer sizes differ from --net")
    with torch.no_grad():
        for m, (w, b) in zip(linear, layers, strict=True):
            m.weight.copy_(torch.as_tensor(w.T.copy()))
            m.bias.copy_(torch.as_tensor(b))


def evaluate(path: Path, against: Sequence[str], deals: int, args: argparse.Namespace) -> None:
    """Print a duplicate tournament of the policy in ``path`` against each
    bot: two seats each, rotated, on ``deals`` single hands of the rules."""
    from ohhell.bots import register_bot
    from ohhell.bots.ppo import PpoBot
    from ohhell.bots.tournament import format_result, run_tournament
    from ohhell.env.oh_hell_v0 import build_rules

    # Worker processes are forked, so they know the name registered here.
    register_bot("trained", lambda **_: PpoBot(name="trained", path=path), opponent=False)
    rules = build_rules(args.preset, args.players)
    for name in against:
        result = run_tournament(["trained", name], rules, deals, seed=1, jobs=args.jobs, progress=False)
        print(format_result(result), flush=True)


class Progress:
    """A line every ``every`` decisions: steps, speed, the mean episode return."""

    def __init__(self, total: int, every: int) -> None:
        from stable_baselines3.common.callbacks import BaseCallback

        outer = self

        class Callback(BaseCallback):  # type: ignore[misc]
            def _on_step(self) -> bool:
                done = self.num_timesteps - self.model._num_timesteps_at_start  # this run's
                if done >= outer.next:
                    outer.next += every
                    episodes = [e["r"] for e in self.model.ep_info_buffer]
                    mean = f"{np.mean(episodes):8.1f}" if episodes else "       -"
                    took = time.perf_counter() - outer.start
                    print(
                        f"{done:>9}/{total} decisions  {done / took:6.0f}/s  "
                        f"mean return {mean}  {took:6.0f} s",
                        flush=True,
                    )
                return True

        self.start = time.perf_counter()
        self.next = every
        self.callback = Callback()


def load_meta_of(checkpoint: str | None) -> dict[str, Any] | None:
    """The meta of the policy exported with a checkpoint (``--out`` beside
    ``--checkpoint``), so a resumed run records the runs before it."""
    if not checkpoint:
        return None
    meta_file = Path(checkpoint).with_suffix(".json")
    return dict(json.loads(meta_file.read_text())) if meta_file.is_file() else {"checkpoint": checkpoint}


def check_export(model: Any, venv: Any, policy: Policy) -> float:
    """The largest gap between the network's scores in torch and as exported."""
    import torch

    obs = venv.reset()
    with torch.no_grad():  # the raw scores, before masking: what the bot compares
        latent = model.policy.mlp_extractor.forward_actor(torch.as_tensor(obs))
        raw = model.policy.action_net(latent).numpy()
    ours = np.stack([policy.scores(o) for o in obs])
    return float(np.abs(ours - raw).max())


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    makers = env_makers(args)
    venv = (
        ray_vec_env(makers, args.ray_workers, args.ray_address)
        if args.ray
        else make_vec_env(makers, args.vec)
    )
    model = make_model(venv, args)
    progress = Progress(args.steps, max(args.steps // 20, args.n_steps * args.envs))
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=progress.callback, reset_num_timesteps=not args.resume)
    seconds = time.perf_counter() - start
    layers = export_layers(model)
    meta = {
        "algorithm": "maskable PPO",
        "command": "python examples/train_ppo.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "decisions": int(model.num_timesteps),
        "wall_seconds": round(seconds, 1),
        "resumed_from": load_meta_of(args.resume),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "settings": {k: v for k, v in vars(args).items() if k not in ("out", "checkpoint", "resume")},
        "observation": "ohhell.encoding.encode (full, 1162 values)",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_policy(out, layers, meta)
    from ohhell.bots.ppo import load_policy

    gap = check_export(model, venv, load_policy(out))
    if args.checkpoint:
        model.save(args.checkpoint)
        Path(args.checkpoint).with_suffix(".json").write_text(json.dumps(meta))
    venv.close()
    if args.eval_deals:
        evaluate(out, [b for b in args.eval_against.split(",") if b], args.eval_deals, args)
    print(
        json.dumps(
            {
                "out": str(out),
                "bytes": out.stat().st_size,
                "decisions": meta["decisions"],
                "wall_seconds": meta["wall_seconds"],
                "largest_score_gap_after_export": float(f"{gap:.2g}"),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
