"""Proximal policy optimisation on the batched simulator.

Each iteration plays ``steps`` steps in every arena, keeping the learner's
decisions; then a few epochs of clipped policy-gradient updates on them.

A seat's decisions within one hand form an episode: the hand's score (its
side's, in points / ``REWARD_SCALE``) is the reward of the seat's last
decision of the hand, the hand's end is the episode's end, and advantages are
generalised advantage estimates with no discount (the score of a hand is
what a decision in it is for; later hands depend on it only through the
totals). Decisions whose hand is still going when the iteration stops are
bootstrapped from the value of that seat's view at the stop.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from .arena import Arena
from .net import PolicyValueNet, masked

REWARD_SCALE = 10.0
"""Points per unit of value: hand scores are tens of points."""


@dataclass
class Settings:
    steps: int = 64  # steps per arena per iteration
    epochs: int = 3
    minibatch: int = 8192
    lr: float = 2e-4
    clip: float = 0.2
    lam: float = 0.95
    value_coef: float = 0.5
    entropy_coef: float = 0.003
    max_grad_norm: float = 0.5
    value_only: bool = False  # train the value head alone (after cloning, before the policy moves)


@dataclass
class Rollout:
    """The learner's decisions of one iteration, flat over arenas and steps."""

    obs: list[np.ndarray[Any, Any]] = field(default_factory=list)
    mask: list[np.ndarray[Any, Any]] = field(default_factory=list)
    action: list[np.ndarray[Any, Any]] = field(default_factory=list)
    logp: list[np.ndarray[Any, Any]] = field(default_factory=list)
    value: list[np.ndarray[Any, Any]] = field(default_factory=list)
    advantage: list[np.ndarray[Any, Any]] = field(default_factory=list)
    hands: int = 0
    points: float = 0.0  # the learner's points in the hands that ended
    others_hands: int = 0
    others_points: float = 0.0  # the opponents' points in the same hands


@torch.no_grad()
def _policy(net: PolicyValueNet, obs: np.ndarray[Any, Any], mask: np.ndarray[Any, Any], device: str) -> Any:
    x = torch.from_numpy(obs).to(device)
    logits, value = net(x)
    logits = masked(logits[:, : mask.shape[1]], torch.from_numpy(mask).to(device))
    dist = torch.distributions.Categorical(logits=logits)
    action = dist.sample()
    return action.cpu().numpy(), dist.log_prob(action).cpu().numpy(), value.cpu().numpy()


@torch.no_grad()
def _values(net: PolicyValueNet, obs: np.ndarray[Any, Any], device: str) -> np.ndarray[Any, Any]:
    return net(torch.from_numpy(obs).to(device))[1].cpu().numpy()  # type: ignore[no-any-return]


def collect(net: PolicyValueNet, arena: Arena, steps: int, lam: float, device: str, out: Rollout) -> None:
    """Play ``steps`` steps of ``arena``; add the learner's decisions to ``out``."""
    sim = arena.sim
    b, n = sim.num_games, sim.players
    last = np.full((b, n), -1, np.intp)  # the learner's last decision this hand, per game and seat
    # Per decision (flat index i, in order): step, value, reward, done, next decision.
    vals: list[np.ndarray[Any, Any]] = []
    rows: list[np.ndarray[Any, Any]] = []
    count = 0
    rewards = np.zeros(0, np.float32)
    done = np.zeros(0, np.bool_)
    nxt = np.zeros(0, np.intp)
    boot = np.zeros(0, np.float32)
    chunks = []
    for _ in range(steps):
        obs, mask, role = arena.look()
        seat = sim.to_act.copy()
        actions = np.zeros(b, np.intp)
        mine = np.flatnonzero(role == 0)
        if len(mine):
            a, lp, v = _policy(net, obs[mine], mask[mine], device)
            actions[mine] = a
            ids = np.arange(count, count + len(mine))
            prev = last[mine, seat[mine]]
            chunks.append((ids, prev))
            last[mine, seat[mine]] = ids
            out.obs.append(obs[mine].copy())
            out.mask.append(mask[mine].copy())
            out.action.append(a)
            out.logp.append(lp)
            vals.append(v)
            rows.append(mine)
            count += len(mine)
        arena.opponents_act(actions, role)
        arena.step(actions)
        ended = np.flatnonzero(sim.new_hand)
        if len(ended):
            rewards = _grow(rewards, count)
            done = _grow(done, count)
            for s in range(n):
                i = last[ended, s]
                has = i >= 0
                rewards[i[has]] += sim.rewards[ended[has], s] / REWARD_SCALE
                done[i[has]] = True
                mine_s = arena.roles[ended, s] == 0
                out.points += float(sim.rewards[ended[has & mine_s], s].sum())
                out.hands += int((has & mine_s).sum())
                theirs = ended[~mine_s]
                out.others_points += float(sim.rewards[theirs, s].sum())
                out.others_hands += len(theirs)
            last[ended] = -1
    rewards, done = _grow(rewards, count), _grow(done, count)
    nxt = np.full(count, -1, np.intp)
    for ids, prev in chunks:
        has = prev >= 0
        nxt[prev[has]] = ids[has]
    # Decisions still waiting for their hand's end: bootstrap from the
    # seat's view now.
    boot = np.zeros(count, np.float32)
    for s in range(n):
        pending = np.flatnonzero(last[:, s] >= 0)
        if len(pending):
            view = sim.observe(agent=s)[pending]
            boot[last[pending, s]] = _values(net, view, device)
    value = np.concatenate(vals) if vals else np.zeros(0, np.float32)
    has_next = nxt >= 0
    next_value = np.where(has_next, value[np.maximum(nxt, 0)], boot)
    delta = rewards + np.where(done, 0.0, next_value) - value
    adv = np.zeros(count, np.float32)
    # Backwards one step's decisions at a time: a decision's next one is later.
    for ids, _ in reversed(chunks):
        follow = nxt[ids]
        carry = np.where((follow >= 0) & ~done[ids], adv[np.maximum(follow, 0)], 0.0)
        adv[ids] = delta[ids] + lam * carry
    out.value.append(value)
    out.advantage.append(adv)


def _grow(a: np.ndarray[Any, Any], size: int) -> np.ndarray[Any, Any]:
    if len(a) >= size:
        return a
    out = np.zeros(size, a.dtype)
    out[: len(a)] = a
    return out


def update(
    net: PolicyValueNet,
    opt: torch.optim.Optimizer,
    data: Rollout,
    cfg: Settings,
    device: str,
    gen: torch.Generator,
) -> dict[str, float]:
    """A few epochs of clipped updates on ``data``; returns the losses."""
    width = max(m.shape[1] for m in data.mask)
    obs = torch.from_numpy(np.concatenate(data.obs))
    mask = torch.from_numpy(np.concatenate([_pad(m, width) for m in data.mask]))
    act = torch.from_numpy(np.concatenate(data.action).astype(np.int64))
    old_logp = torch.from_numpy(np.concatenate(data.logp))
    value = np.concatenate(data.value)
    adv = np.concatenate(data.advantage)
    ret = torch.from_numpy((adv + value).astype(np.float32))
    adv_t = torch.from_numpy(adv)
    n = len(act)
    stats: dict[str, float] = {"samples": float(n)}
    for _ in range(cfg.epochs):
        order = torch.randperm(n, generator=gen)
        for k in range(0, n, cfg.minibatch):
            i = order[k : k + cfg.minibatch]
            logits, v = net(obs[i].to(device))
            logits = masked(logits[:, :width], mask[i].to(device))
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(act[i].to(device))
            a = adv_t[i].to(device)
            a = (a - a.mean()) / (a.std() + 1e-8)
            ratio = torch.exp(logp - old_logp[i].to(device))
            policy_loss = -torch.min(ratio * a, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * a).mean()
            value_loss = torch.nn.functional.mse_loss(v, ret[i].to(device))
            entropy = dist.entropy().mean()
            if cfg.value_only:
                loss = cfg.value_coef * value_loss
            else:
                loss = policy_loss + cfg.value_coef * value_loss - cfg.entropy_coef * entropy
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            stats.update(
                policy=policy_loss.item(),
                value=value_loss.item(),
                entropy=entropy.item(),
                clipped=((ratio - 1).abs() > cfg.clip).float().mean().item(),
            )
    return stats


def _pad(m: np.ndarray[Any, Any], width: int) -> np.ndarray[Any, Any]:
    if m.shape[1] == width:
        return m
    out = np.zeros((len(m), width), m.dtype)
    out[:, : m.shape[1]] = m
    return out


def train(
    net: PolicyValueNet,
    arenas: Sequence[Arena],
    iterations: int,
    cfg: Settings,
    *,
    device: str = "cpu",
    seed: int = 0,
    seconds: float | None = None,
    on_iteration: Callable[[int, dict[str, Any]], None] | None = None,
    opt: torch.optim.Optimizer | None = None,
) -> torch.optim.Optimizer:
    """Run ``iterations`` iterations (or until ``seconds`` have passed)."""
    gen = torch.Generator().manual_seed(seed)
    opt = opt or torch.optim.Adam(net.parameters(), lr=cfg.lr)
    start = time.perf_counter()
    for it in range(iterations):
        t0 = time.perf_counter()
        data = Rollout()
        per_arena = {}
        against_bots = [0.0, 0, 0.0, 0]  # the learner's points and hands, the bots' points and hands
        for arena in arenas:
            before = (data.hands, data.points, data.others_hands, data.others_points)
            collect(net, arena, cfg.steps, cfg.lam, device, data)
            hands = data.hands - before[0]
            per_arena[arena.name] = (data.points - before[1]) / hands if hands else float("nan")
            theirs = data.others_hands - before[2]
            if theirs:
                per_arena[arena.name + " (them)"] = (data.others_points - before[3]) / theirs
            if hasattr(arena, "bots"):
                against_bots[0] += data.points - before[1]
                against_bots[1] += hands
                against_bots[2] += data.others_points - before[3]
                against_bots[3] += theirs
        if against_bots[1] and against_bots[3]:
            per_arena["all bots: learner"] = against_bots[0] / against_bots[1]
            per_arena["all bots: them"] = against_bots[2] / against_bots[3]
        t1 = time.perf_counter()
        stats = update(net, opt, data, cfg, device, gen)
        t2 = time.perf_counter()
        info = {
            **stats,
            "points_per_hand": per_arena,
            "play_s": t1 - t0,
            "learn_s": t2 - t1,
            "samples_per_s": stats["samples"] / (t2 - t0),
            "elapsed_s": t2 - start,
        }
        if on_iteration:
            on_iteration(it, info)
        if seconds is not None and t2 - start >= seconds:
            break
    return opt


def snapshot(net: PolicyValueNet) -> PolicyValueNet:
    """A frozen copy (for the league of past versions)."""
    frozen = copy.deepcopy(net)
    frozen.eval()
    for p in frozen.parameters():
        p.requires_grad_(False)
    return frozen
