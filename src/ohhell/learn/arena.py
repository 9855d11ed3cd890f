"""A batch of games in which the learner holds some seats and opponents the rest.

An ``Arena`` is one ``BatchSimulator`` and, per game and seat, who plays it:
the learner (role 0) or one of the arena's opponents (role k, the k-th in
``opponents``). Each step asks every game's seat to act: the learner's seats
from the network the trainer passes in, the others from their opponent. When
a game's match ends the arena may draw its roles again (``reseat``), so the
learner meets every seat and every opponent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from .. import Rules
from ..bots.learned import NetPolicy
from ..encoding import KEEP
from ..env.batch import BatchSimulator
from .compact import compact_index
from .net import PolicyValueNet, masked

IP = npt.NDArray[np.intp]
F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]


class Opponent(Protocol):
    """Chooses the action ids of the games where it is to act."""

    name: str

    def act(self, arena: Arena, games: IP, obs: F32, mask: I8) -> IP: ...


class RandomOpponent:
    """A uniformly random legal action."""

    name = "random"

    def act(self, arena: Arena, games: IP, obs: F32, mask: I8) -> IP:
        return arena.sim.random_actions()[games]


class NetOpponent:
    """A frozen copy of a network (a past checkpoint, or the learner now),
    playing its highest-scored legal id, or sampling with ``greedy=False``."""

    def __init__(
        self, net: PolicyValueNet, name: str = "past", greedy: bool = False, device: str = "cpu"
    ) -> None:
        self.net, self.name, self.greedy, self.device = net, name, greedy, device

    @torch.no_grad()
    def act(self, arena: Arena, games: IP, obs: F32, mask: I8) -> IP:
        x = torch.from_numpy(obs).to(self.device)
        logits, _ = self.net(x)
        logits = masked(logits[:, : mask.shape[1]], torch.from_numpy(mask).to(self.device))
        if self.greedy:
            return logits.argmax(-1).cpu().numpy().astype(np.intp)  # type: ignore[no-any-return,unused-ignore]
        return torch.distributions.Categorical(logits=logits).sample().cpu().numpy().astype(np.intp)  # type: ignore[no-any-return]


class PolicyFileOpponent:
    """A policy file (``ohhell.bots.learned``) in NumPy, as the ``learned``
    bot plays it: the highest-scored legal id, ties to the lower one. Its
    first layer's rows for this table's compact observation are picked once."""

    def __init__(self, policy: NetPolicy, rules: Rules, name: str = "learned") -> None:
        self.policy, self.name = policy, name
        self.first = policy.layers[0][0][compact_index(rules)]
        # R-BID-CHANGE: a policy trained without the bid-change window keeps
        # its bid there, as the bot at a table is never asked.
        self.keeps = not policy.meta.get("bid_change_window", False)

    def act(self, arena: Arena, games: IP, obs: F32, mask: I8) -> IP:
        scores = self.policy.scores(obs, first=self.first)[:, : mask.shape[1]]
        scores = np.where(mask != 0, scores, -np.inf)
        out: IP = scores.argmax(axis=1).astype(np.intp)
        if self.keeps and mask.shape[1] > KEEP:
            out[mask[:, KEEP] != 0] = KEEP
        return out


Seating = Callable[[np.random.Generator, int], npt.NDArray[np.intp]]
"""Draws the roles of one game: [players] ints, 0 the learner, k the k-th opponent."""


def self_play(rng: np.random.Generator, players: int) -> IP:
    """Every seat is the learner."""
    return np.zeros(players, np.intp)


def alternate(opponent: int = 1) -> Seating:
    """The learner in every other seat (as a duplicate tournament of two bots
    seats them), starting at seat 0 or 1 at random; ``opponent`` the rest."""

    def draw(rng: np.random.Generator, players: int) -> IP:
        start = int(rng.integers(2))
        roles = np.full(players, opponent, np.intp)
        roles[start::2] = 0
        return roles

    return draw


def one_seat(opponents: Sequence[int]) -> Seating:
    """The learner in one random seat; each other seat an opponent drawn from ``opponents``."""

    def draw(rng: np.random.Generator, players: int) -> IP:
        roles = rng.choice(np.asarray(opponents, np.intp), players)
        roles[int(rng.integers(players))] = 0
        return roles

    return draw


class Arena:
    """A simulator, its opponents and who sits where (see the module)."""

    def __init__(
        self,
        sim: BatchSimulator,
        opponents: Sequence[Opponent] = (),
        seating: Seating = self_play,
        seed: int = 0,
        name: str = "arena",
    ) -> None:
        self.sim, self.opponents, self.seating, self.name = sim, list(opponents), seating, name
        self.rng = np.random.default_rng(seed)
        self.roles = np.stack([seating(self.rng, sim.players) for _ in range(sim.num_games)])
        self.obs = np.zeros((sim.num_games, sim.observation_size), np.float32)
        self.mask = np.zeros((sim.num_games, sim.action_size), np.int8)

    def look(self) -> tuple[F32, I8, IP]:
        """Observations and masks of each game's seat to act, and its role there."""
        sim = self.sim
        sim.observe(out=self.obs)
        sim.action_mask(out=self.mask)
        role = self.roles[np.arange(sim.num_games), np.maximum(sim.to_act, 0)]
        return self.obs, self.mask, role

    def opponents_act(self, actions: IP, role: IP) -> None:
        """Fill ``actions`` where an opponent is to act."""
        for k, opponent in enumerate(self.opponents, start=1):
            games = np.flatnonzero(role == k)
            if len(games):
                actions[games] = opponent.act(self, games, self.obs[games], self.mask[games])

    def step(self, actions: IP) -> None:
        self.sim.step(actions)
        ended = np.flatnonzero(self.sim.terminations)
        for g in ended:  # a new match: new seats
            self.roles[g] = self.seating(self.rng, self.sim.players)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.sim.num_games,
            "opponents": [o.name for o in self.opponents],
        }


class BotArena(Arena):
    """The learner against a shipped bot (``get_bot`` name) that runs beside
    the batch on shadow games (``env.batch_bots``), seated as a duplicate
    tournament of two bots seats them: the learner in every other seat. Seats
    stay as drawn for the arena's life (the shadow games follow fixed
    lineups); half the games start the learner at seat 0, half at seat 1."""

    def __init__(self, sim: BatchSimulator, bot: str, seed: int = 0, name: str | None = None) -> None:
        from ..env.batch_bots import BatchBots

        super().__init__(sim, [], seating=alternate(1), seed=seed, name=name or bot)
        n = sim.players
        self.roles[:] = 1
        for g in range(sim.num_games):
            self.roles[g, g % 2 :: 2] = 0
        lineups = [{s: bot for s in range(n) if self.roles[g, s] != 0} for g in range(sim.num_games)]
        self.bots = BatchBots(sim, lineups, seed=seed)
        self.bot_name = bot

    def opponents_act(self, actions: IP, role: IP) -> None:
        games = np.flatnonzero(role != 0)
        if len(games):
            actions[games] = self.bots.actions(games)

    def step(self, actions: IP) -> None:
        self.bots.step(actions)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "opponents": [self.bot_name]}
