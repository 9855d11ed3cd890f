"""One learning seat in many games at once, as a Gymnasium vector environment.

>>> from ohhell.env.batch_vector import OhHellVectorEnv
>>> envs = OhHellVectorEnv(8, seat=0, preset="pagat", single_deal=True)
>>> obs, infos = envs.reset(seed=3)
>>> masks = envs.action_masks()  # [8, 95] int8, for masked policies
>>> actions = envs.sample_legal()
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> obs.shape, rewards.dtype, masks.dtype
((8, 552), dtype('float32'), dtype('int8'))

``num_envs`` games of ``batch.BatchSimulator``; in each the learner holds
``seat`` and the other seats are played by a built-in policy (``opponent``):
``"random"`` (a uniformly random legal action) or any callable that takes
the observations and masks of the games where an opponent is to act
(``[G, obs]`` float32, ``[G, 95]`` int8) and returns their actions. Each step
is the learner's action in every game, then the opponents' until the learner
is asked again or the match is over.

Observations are the batch observation of the learner's seat (a ``Box``; its
fields are ``layout``, see ``batch_observe``). ``action_masks()`` gives the
learner's legal ids as int8 (1 for a legal id, like every mask of the
package), and so does ``infos["action_mask"]``. The reward is the
learner's side's score for each hand that ended during the step
(``reward="hand"``) or its match total at the end (``"final"``), as in
``gym.OhHellGymEnv``. An episode is the match (``single_deal`` makes it one
hand). Finished games reset on the next step, Gymnasium's default
``AutoresetMode.NEXT_STEP``: the step after ``terminated`` ignores that
game's action and returns the first observation of a new match, reward 0.
An illegal action (``illegal_action="penalty"``, the default) leaves that game
as it was, gives ``illegal_penalty`` and sets ``infos["illegal_action"]``;
``"raise"`` raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import Rules
from ..encoding import ACTION_SIZE, describe_action_id
from .batch import OVER, BatchSimulator
from .gym import ILLEGAL

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
IP = npt.NDArray[np.intp]
B8 = npt.NDArray[np.bool_]
Policy = Callable[[F32, I8], npt.ArrayLike]
"""An opponent: (observations, masks) of the games where it acts -> their actions."""

OPPONENTS: Final = ("random",)


class OhHellVectorEnv(gymnasium.vector.VectorEnv[F32, IP, npt.NDArray[Any]]):
    """``num_envs`` games, one learning ``seat`` in each; see the module."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 64,
        seat: int = 0,
        preset: str | Rules = "pagat",
        *,
        opponent: str | Policy = "random",
        reward: str = "hand",
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL)}, not {illegal_action!r}")
        if isinstance(opponent, str) and opponent not in OPPONENTS:
            raise ValueError(f"opponent must be {' or '.join(OPPONENTS)} or a callable, not {opponent!r}")
        self.sim = BatchSimulator(num_envs, preset, reward=reward, autoreset=False, seed=seed, **options)
        n = self.sim.players
        if not 0 <= seat < n:
            raise ValueError(f"the learning seat must be 0..{n - 1}, not {seat}")
        self.num_envs = num_envs
        self.seat = seat
        self.opponent = opponent
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.layout = self.sim.layout
        low, high = self.sim.observation_bounds()
        self.single_observation_space = spaces.Box(low, high, (self.sim.observation_size,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(ACTION_SIZE)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._pending_reset: B8 = np.zeros(num_envs, np.bool_)

    @property
    def rules(self) -> Rules:
        return self.sim.rules

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[F32, dict[str, Any]]:
        """New matches in every game; ``seed`` fixes the deals and the opponents' choices."""
        super().reset(seed=seed)
        self.sim.reset(seed=seed)
        self._pending_reset[:] = False
        self._play_opponents(np.ones(self.num_envs, np.bool_))
        return self.sim.observe(self.seat), self._infos()

    def step(self, actions: npt.ArrayLike) -> tuple[F32, F32, B8, B8, dict[str, Any]]:
        sim, seat = self.sim, self.seat
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"step takes one action per game: shape ({self.num_envs},), not {a.shape}")
        a = a.astype(np.intp, copy=False)
        rewards = np.zeros(self.num_envs, np.float32)
        restart = self._pending_reset.copy()
        if restart.any():
            sim.reset(games=restart)
        mask = sim.action_mask(seat)
        legal = (a >= 0) & (a < ACTION_SIZE)
        legal &= mask[np.arange(self.num_envs), np.where(legal, a, 0)] == 1
        illegal = ~restart & ~legal
        if illegal.any():
            if self.illegal_action == "raise":
                game = int(np.flatnonzero(illegal)[0])
                raise ValueError(
                    f"{int(illegal.sum())} illegal action(s); the first: game {game}, action {int(a[game])} "
                    f"({describe_action_id(int(a[game]))}); legal ids: {np.flatnonzero(mask[game]).tolist()}"
                )
            rewards[illegal] = self.illegal_penalty
        moving = ~restart & legal
        sim.step(a, games=moving)
        rewards += sim.rewards[:, seat]
        rewards += self._play_opponents(moving | restart)
        terminated = sim.phase == OVER
        self._pending_reset = terminated.copy()
        infos = self._infos()
        if self.illegal_action == "penalty":
            infos["illegal_action"] = illegal
        return sim.observe(seat), rewards, terminated, np.zeros(self.num_envs, np.bool_), infos

    def action_masks(self) -> I8:
        """[num_envs, 95] int8, 1 for each legal id of the learner in each game
        (none once it is over): int8 like every mask of the package (it was
        bool before the masks were made one dtype); masked policies read
        nonzero as legal."""
        return self.sim.action_mask(self.seat)

    def sample_legal(self, rng: np.random.Generator | None = None) -> IP:
        """A uniformly random legal action of the learner in each game."""
        actions = self.sim.random_actions(rng)
        return np.where(self.sim.to_act == self.seat, actions, 0)

    def _play_opponents(self, games: B8) -> F32:
        """Let the other seats act in ``games`` until the learner is asked or
        the match is over; the learner's rewards meanwhile."""
        sim, seat = self.sim, self.seat
        rewards = np.zeros(self.num_envs, np.float32)
        while True:
            waiting = games & (sim.phase != OVER) & (sim.to_act != seat)
            if not waiting.any():
                return rewards
            if callable(self.opponent):
                idx = np.flatnonzero(waiting)
                actions = np.zeros(self.num_envs, np.intp)
                chosen = self.opponent(sim.observe()[idx], sim.action_mask()[idx])
                actions[idx] = np.asarray(chosen, np.intp)
            else:
                actions = sim.random_actions()
            sim.step(actions, games=waiting)
            rewards += sim.rewards[:, seat]

    def _infos(self) -> dict[str, Any]:
        sim = self.sim
        return {
            "action_mask": sim.action_mask(self.seat),
            "hand_number": sim.number.copy(),
            "totals": sim.totals.copy(),
        }
