"""The batched simulator as a Stable-Baselines3 vector environment.

>>> from ohhell.env.sb3 import OhHellSB3VecEnv
>>> venv = OhHellSB3VecEnv(8, seat=0, preset="pagat", single_deal=True, seed=3)
>>> obs = venv.reset()
>>> masks = venv.action_masks()  # [8, action ids] int8, as every mask of the package
>>> obs, rewards, dones, infos = venv.step(venv.sample_legal())
>>> obs.shape, rewards.dtype, dones.dtype, len(infos)
((8, 552), dtype('float32'), dtype('bool'), 8)

Stable-Baselines3 trains on its own ``VecEnv`` class, not on Gymnasium's
vector environments, so ``batch_vector.OhHellVectorEnv`` cannot be handed to
it. ``OhHellSB3VecEnv`` wraps one and speaks SB3's protocol: ``num_envs``
games stepped as arrays, one learning ``seat`` in each, the other seats
played by ``opponent`` (``"random"`` or a callable taking the observations and
masks of the games where an opponent acts, as ``OhHellVectorEnv`` takes it;
``policy_opponent(model)`` makes one of a learner, for self-play).

What differs from the Gymnasium vector environment is SB3's reset rule: a
game that ends in a step starts its next match in that same step. The step
returns the new match's first observation, ``dones[i]`` is True, and
``infos[i]["terminal_observation"]`` holds the last observation of the match
that ended. ``action_masks()`` and ``env_method("action_masks")`` (which
sb3-contrib's ``MaskablePPO`` calls) give the learner's legal ids for the
observations just returned. Nothing truncates: every match ends by the rules.
Episode returns and lengths come from SB3's ``VecMonitor``, as for any VecEnv.

Every game shares one simulator, so an attribute or a method is the batch's:
``get_attr`` gives its value once per index asked, ``set_attr`` sets it once
and ``env_method`` calls it once and repeats its result per index, except
``action_masks``, which gives each game's own row.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

# Stable-Baselines3 is typed when it is installed; without it (the test extra
# alone) mypy must still pass, hence the ignores that are allowed to be unused.
from stable_baselines3.common.vec_env import VecEnv  # type: ignore[import-not-found, unused-ignore]
from stable_baselines3.common.vec_env.base_vec_env import (  # type: ignore[import-not-found, unused-ignore]
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from .. import Rules
from ..encoding import MASK_DTYPE
from .batch import BatchSimulator
from .batch_vector import OPPONENTS, OhHellVectorEnv, Policy
from .gym import ILLEGAL

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
IP = npt.NDArray[np.intp]

HOLD = -1
"""An id outside the action space: the inner environment leaves a game where
it is given one (its documented answer to an illegal action)."""


class OhHellSB3VecEnv(VecEnv):  # type: ignore[misc, unused-ignore]  # VecEnv is Any when SB3 is absent
    """``num_envs`` games, one learning ``seat`` in each, for Stable-Baselines3; see the module.

    The arguments are ``OhHellVectorEnv``'s: ``preset`` and any rule option
    (``players``, ``single_deal``, ...), ``opponent``, ``reward`` (``"hand"``:
    each hand's score when it ends; ``"final"``: the match total at the end),
    ``illegal_action`` (``"penalty"``: the game stays as it was and the step
    gives ``illegal_penalty`` and ``infos[i]["illegal_action"]``; ``"raise"``:
    ``ValueError``) and ``seed``.
    """

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
        # The inner environment always answers an illegal id by leaving the
        # game as it was: step_wait relies on that to restart finished games
        # while holding the others still. "raise" is checked here instead.
        self.games = OhHellVectorEnv(
            num_envs,
            seat,
            preset,
            opponent=opponent,
            reward=reward,
            illegal_action="penalty",
            illegal_penalty=illegal_penalty,
            seed=seed,
            **options,
        )
        self.illegal_action = illegal_action
        self.render_mode: str | None = None  # nothing to draw; VecEnv reads it while it starts
        self._masks: I8 = np.zeros((num_envs, self.sim.action_size), MASK_DTYPE)
        self._actions: IP = np.zeros(num_envs, np.intp)
        self._rows: IP = np.arange(num_envs, dtype=np.intp)
        super().__init__(num_envs, self.games.single_observation_space, spaces.Discrete(self.sim.action_size))
        self._masks = self._learner_masks()

    # --- What the batch is ---

    @property
    def sim(self) -> BatchSimulator:
        """The simulator of every game (read it; step it only through this environment)."""
        return self.games.sim

    @property
    def seat(self) -> int:
        return self.games.seat

    @property
    def rules(self) -> Rules:
        return self.games.rules

    @property
    def opponent(self) -> str | Policy:
        return self.games.opponent

    def set_opponent(self, opponent: str | Policy) -> None:
        """Who plays the other seats from the next step on: ``"random"`` or a
        callable (observations, masks) -> actions, such as ``policy_opponent``."""
        if isinstance(opponent, str) and opponent not in OPPONENTS:
            raise ValueError(f"opponent must be {' or '.join(OPPONENTS)} or a callable, not {opponent!r}")
        self.games.opponent = opponent

    # --- SB3's protocol ---

    def reset(self) -> VecEnvObs:
        """New matches in every game. A seed given by ``seed()`` (SB3's models
        call it with theirs) restarts the stream of chance first."""
        obs, infos = self.games.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()  # the rules are fixed at construction; there are no reset options
        self._masks = infos["action_mask"].astype(MASK_DTYPE, copy=False)
        self.reset_infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            # SB3 hands Discrete actions as (num_envs,); a column is the same choices
            a = a.reshape(-1)
        self._actions = a.astype(np.intp, copy=False)

    def step_wait(self) -> VecEnvStepReturn:
        a = self._actions
        if self.illegal_action == "raise":
            self._check(a)
        obs, rewards, dones, _, step_infos = self.games.step(a)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(step_infos["illegal_action"]):
            infos[i]["illegal_action"] = True
        ended = np.flatnonzero(dones)
        if len(ended):
            # SB3 starts the next match in the step that ends one; the inner
            # environment does it on the next step (Gymnasium's NEXT_STEP).
            # So step it once more at once, every game held still by an
            # illegal id except the finished ones, which ignore their action
            # and restart, their opponents playing up to the learner's turn.
            # That step's rewards are dropped: no hand ends before the learner
            # has played in it, so they are zero.
            last = obs
            obs, _, _, _, step_infos = self.games.step(np.full(self.num_envs, HOLD, np.intp))
            for i in ended:
                infos[i]["terminal_observation"] = last[i]
        self._masks = step_infos["action_mask"].astype(MASK_DTYPE, copy=False)
        return obs, rewards, dones, infos

    def close(self) -> None:
        self.games.close()

    def action_masks(self) -> I8:
        """[num_envs, action ids] int8, 1 where legal (the package's one mask
        dtype; MaskablePPO reads nonzero as legal): the learner's legal ids for
        the observations last returned (a fresh array)."""
        return self._masks.copy()

    def sample_legal(self, rng: np.random.Generator | None = None) -> IP:
        """A uniformly random legal action of the learner in each game."""
        return self.games.sample_legal(rng)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value] * len(self._index_list(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        index = self._index_list(indices)
        if method_name == "action_masks":
            # Rows of one array: MaskablePPO stacks them again without a
            # Python call per game.
            return list(self._masks if indices is None else self._masks[index])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(index)

    def env_is_wrapped(self, wrapper_class: type[Any], indices: VecEnvIndices = None) -> list[bool]:
        # The games are arrays, not Gymnasium environments: none is wrapped.
        return [False] * len(self._index_list(indices))

    # --- Helpers ---

    def _index_list(self, indices: VecEnvIndices) -> list[int]:
        return [int(i) for i in self._get_indices(indices)]

    def _learner_masks(self) -> I8:
        return self.sim.action_mask(self.seat)

    def _check(self, a: IP) -> None:
        size = self._masks.shape[1]
        legal = (a >= 0) & (a < size)
        legal &= self._masks[self._rows, np.where(legal, a, 0)] != 0
        if not legal.all():
            game = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"{int((~legal).sum())} illegal action(s); the first: game {game}, action {int(a[game])}; "
                f"legal ids: {np.flatnonzero(self._masks[game]).tolist()}"
            )


def policy_opponent(
    model: Any,
    *,
    frozen: bool = False,
    deterministic: bool = False,
    normalize: Callable[[F32], F32] | None = None,
) -> Policy:
    """An opponent that plays as ``model`` does: anything with MaskablePPO's
    ``predict(obs, action_masks=..., deterministic=...)``, such as the model
    itself or its ``policy``.

    The other seats then play the model's current policy at every step
    (self-play that follows the learner). ``frozen=True`` takes a copy of the
    model as it is now instead (saved and loaded again, so an SB3 model, not
    a bare policy): it stays fixed while the learner moves on. Each opponent
    sees its own seat's observation, laid out as the learner's.
    ``normalize`` is applied to the observations first: pass
    ``VecNormalize.normalize_obs`` when the learner trains on normalised
    observations."""
    if frozen:
        buffer = io.BytesIO()
        model.save(buffer)
        buffer.seek(0)
        model = type(model).load(buffer, device=model.device)

    def act(observations: F32, masks: I8) -> npt.ArrayLike:
        obs = observations if normalize is None else normalize(observations)
        actions, _ = model.predict(obs, action_masks=masks.astype(np.bool_), deterministic=deterministic)
        result: npt.ArrayLike = actions
        return result

    return act


__all__ = ["HOLD", "OhHellSB3VecEnv", "policy_opponent"]
