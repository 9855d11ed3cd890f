"""Cloning a bot: record its decisions over tournament deals, fit the network to them.

A network trained from nothing first has to discover that bids are worth
making; cloning the intermediate bot gives it sensible bids and card play in
a few minutes, and proximal policy optimisation (``ppo``) then improves on
it. The deals are the tournament's (``tournament.deal_rules``: every hand
size of the schedule in turn, the dealer moving), so the observations are
those the bot meets when it is measured.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .. import Action, Observation, Rules
from ..bots import Bot, get_bot, play_match
from ..bots.tournament import deal_rules
from ..encoding import action_id, encode
from .compact import compact_index
from .net import PolicyValueNet, masked

ACTIONS = 95


@dataclass
class Decisions:
    """Recorded decisions: compact observations, masks and the ids chosen."""

    obs: np.ndarray[Any, Any]  # [N, compact] float16
    mask: np.ndarray[Any, Any]  # [N, ACTIONS] int8
    action: np.ndarray[Any, Any]  # [N] int16


class _Recorder:
    """Wraps a bot and writes down each decision with a choice in it."""

    def __init__(self, inner: Bot, index: np.ndarray[Any, Any], out: list[tuple[Any, Any, int]]) -> None:
        self.inner, self.index, self.out = inner, index, out
        self.name = inner.name

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        action = self.inner.choose(obs, rng)
        ids = []
        for a in obs.legal_actions:
            try:
                ids.append(action_id(a))
            except ValueError:
                continue
        if len(ids) > 1:
            mask = np.zeros(ACTIONS, np.int8)
            mask[ids] = 1
            self.out.append((encode(obs)[self.index].astype(np.float16), mask, action_id(action)))
        return action


def _record(job: tuple[Rules, str, int, int, int]) -> Decisions:
    rules, teacher, first, count, seed = job
    index = compact_index(rules)
    out: list[tuple[Any, Any, int]] = []
    for i in range(first, first + count):
        deal = deal_rules(rules, i)
        bots = [_Recorder(get_bot(teacher), index, out) for _ in range(rules.players)]
        play_match(deal, bots, random.Random(f"clone/{seed}/{i}"))
    return Decisions(
        np.stack([o for o, _, _ in out]),
        np.stack([m for _, m, _ in out]),
        np.array([a for _, _, a in out], np.int16),
    )


def record(rules: Rules, teacher: str, deals: int, seed: int = 0, jobs: int = 1) -> Decisions:
    """The teacher's decisions (those with a choice) over ``deals`` tournament deals."""
    per = -(-deals // jobs)
    work = [
        (rules, teacher, k * per, min(per, deals - k * per), seed) for k in range(jobs) if deals > k * per
    ]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            parts = pool.map(_record, work)
    else:
        parts = [_record(w) for w in work]
    return Decisions(
        np.concatenate([p.obs for p in parts]),
        np.concatenate([p.mask for p in parts]),
        np.concatenate([p.action for p in parts]),
    )


def fit(
    net: PolicyValueNet,
    data: Decisions,
    *,
    epochs: int = 4,
    batch: int = 1024,
    lr: float = 1e-3,
    seed: int = 0,
    device: str = "cpu",
    log: Any = print,
) -> float:
    """Fit the policy head to the recorded ids (cross-entropy over the legal
    ids); returns the share of the last epoch's decisions it agreed with."""
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    n = len(data.action)
    obs = torch.from_numpy(data.obs)
    mask = torch.from_numpy(data.mask)
    act = torch.from_numpy(data.action.astype(np.int64))
    agree = 0.0
    for epoch in range(epochs):
        order = torch.randperm(n, generator=gen)
        hits, seen, start = 0, 0, time.perf_counter()
        for k in range(0, n, batch):
            i = order[k : k + batch]
            x = obs[i].float().to(device)
            logits, _ = net(x)
            logits = masked(logits, mask[i].to(device))
            loss = torch.nn.functional.cross_entropy(logits, act[i].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            hits += int((logits.argmax(-1).cpu() == act[i]).sum())
            seen += len(i)
        agree = hits / seen
        log(f"clone epoch {epoch + 1}/{epochs}: agrees {agree:.3f}, {time.perf_counter() - start:.0f} s")
    return agree
