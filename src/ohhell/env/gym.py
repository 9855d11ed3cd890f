"""One learning seat against ohhell bots, as a Gymnasium environment.

>>> from ohhell.env.gym import OhHellGymEnv
>>> env = OhHellGymEnv(seat=0, opponents=("random",), preset="pagat", single_deal=True)
>>> obs, info = env.reset(seed=7)
>>> sorted(obs), int(obs["action_mask"].sum()) > 0
(['action_mask', 'observation'], True)

The learner's observation and action space are those of ``oh_hell_v0`` (a
``Dict`` of the encoded vector and the action mask over the 95 ids;
``observation="history"`` gives the perfect-recall information state instead).
``flatten=True`` makes the observation the vector alone (a ``Box``), for
learners that take one array; the legal actions then come from
``action_masks()`` (an int8 array over the 95 ids, 1 for a legal one, like
every mask of the package; maskable policy learners call it before each
step and read nonzero as legal), available in either form. Between
the learner's turns the other seats are played by bots, each choosing from its
own ``view.Observation`` only, as in ``bots.play_match``. Under R-BID-CHANGE
the learner is asked, right after each of its bids, whether it changes it
(ids 76..93) or keeps it (94), as in ``oh_hell_v0``; a bot is never made to
decide that and keeps its bid. ``reset(seed=...)``
fixes the deals and the bots' choices: bots given by name search with a fixed
budget (``FIXED_BUDGETS``: the expert 40 worlds a decision), never with a
time limit, so the same seed gives the same episode on any machine.

Reward (``reward=``): ``"hand"`` (default) is the change of the learner's
score during the step: the learner's side's score for each hand that ended
(its own score, or its team's sum under R-TEAMS), 0 on other steps;
``"final"`` is the side's match total, given on the last step. The episode
terminates when the match ends (``single_deal=True``: after one deal).

An illegal action (``illegal_action=``): ``"penalty"`` (default) leaves the game
as it was, gives ``illegal_penalty`` (-1.0) and sets ``info["illegal_action"]``,
so unmasked samplers (and ``gymnasium.utils.env_checker``) can run;
``"raise"`` raises ``ValueError`` naming the action and what is legal.

>>> flat = OhHellGymEnv(opponents=("random",), single_deal=True, flatten=True)
>>> vector, info = flat.reset(seed=7)
>>> vector.shape, flat.action_masks().shape, flat.action_masks().dtype
((1162,), (95,), dtype('int8'))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt

from .. import Rules
from ..bots import Bot, get_bot
from ..encoding import ACTION_SIZE, KEEP, MASK_DTYPE, action_id, changer, describe_action_id
from .oh_hell_v0 import ObsDict, raw_env

ILLEGAL: Final = ("penalty", "raise")

# Bots named by a string get a fixed budget, not thinking time, so an episode
# is reproducible from its seed on any machine under any load. Pass a Bot
# object (get_bot("expert", seconds=1.0)) to have the time budget instead.
FIXED_BUDGETS: Final[dict[str, dict[str, Any]]] = {"expert": {"worlds": 40}, "ismcts": {"simulations": 200}}

GymObs = ObsDict | npt.NDArray[Any]
"""The ``Dict`` observation, or with ``flatten=True`` the vector alone."""


class OhHellGymEnv(gymnasium.Env[GymObs, np.int64]):
    """``seat`` learns; ``opponents`` (bot names or ``Bot`` objects, one per
    other seat in seat order, or a single one for all) play the rest. Other
    keywords (``players``, ``single_deal``, rule options) go to ``oh_hell_v0``.
    ``flatten=True`` gives the vector alone as the observation; the legal ids
    are then ``action_masks()``."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 - Gymnasium reads the class

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[str | Bot] = ("intermediate",),
        preset: str | Rules = "pagat",
        *,
        reward: str = "hand",
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        flatten: bool = False,
        **options: Any,
    ) -> None:
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL)}, not {illegal_action!r}")
        self.aec = raw_env(preset=preset, reward=reward, render_mode=render_mode, **options)
        n = self.aec.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"the learning seat must be 0..{n - 1}, not {seat}")
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents *= n - 1
        if len(opponents) != n - 1:
            raise ValueError(
                f"a {n}-player table needs {n - 1} opponents (or one for all), not {len(opponents)}"
            )
        self.seat = seat
        self.agent = f"player_{seat}"
        others = [s for s in range(n) if s != seat]
        self.bots: dict[int, Bot] = {
            s: get_bot(b, **FIXED_BUDGETS.get(b.lower(), {})) if isinstance(b, str) else b
            for s, b in zip(others, opponents, strict=True)
        }
        self._bot_rngs = {s: random.Random(s) for s in others}
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.flatten = bool(flatten)
        space: Any = self.aec.observation_space(self.agent)  # a Dict: "observation", "action_mask"
        self.observation_space = space["observation"] if self.flatten else space
        self.action_space = gymnasium.spaces.Discrete(ACTION_SIZE)
        self._mask = np.zeros(ACTION_SIZE, MASK_DTYPE)

    @property
    def rules(self) -> Rules:
        return self.aec.rules

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[GymObs, dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**62)))
        for s in self._bot_rngs:
            self._bot_rngs[s] = random.Random(int(self.np_random.integers(2**62)))
        self._play_opponents()
        return self._observe(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[GymObs, SupportsFloat, bool, bool, dict[str, Any]]:
        aec, state = self.aec, self.aec.state
        if state.is_over:
            raise ValueError("the match is over: call reset()")
        aid = int(action)
        legal = aec.legal_action_ids(self.agent)
        if aid not in legal:
            why = f"action {aid} ({describe_action_id(aid)}) is not legal; legal: {legal}"
            if self.illegal_action == "raise":
                raise ValueError(why)
            info = self._info()
            info["illegal_action"] = why
            return self._observe(), self.illegal_penalty, False, False, info
        side = aec.side_of(self.seat)
        before = sum(state.totals[s] for s in side)
        aec.step(aid)
        self._play_opponents()
        over = state.is_over
        if self.reward_mode == "hand":
            reward = float(sum(state.totals[s] for s in side) - before)
        else:
            reward = float(sum(state.totals[s] for s in side)) if over else 0.0
        return self._observe(), reward, over, False, self._info()

    def render(self) -> str | None:
        return self.aec.render()

    def legal_action_ids(self) -> list[int]:
        return self.aec.legal_action_ids(self.agent)

    def action_masks(self) -> npt.NDArray[np.int8]:
        """1 for each id the learner may take now (all 0 once the match is
        over), int8 like every mask here: the mask of the last observation
        returned, as a fresh array. Maskable policy learners call this method
        by name before each step."""
        return self._mask.copy()

    def _observe(self) -> GymObs:
        obs = self.aec.observe(self.agent)
        self._mask = obs["action_mask"]
        return obs["observation"] if self.flatten else obs

    def _play_opponents(self) -> None:
        aec = self.aec
        while not aec.state.is_over and aec.agent_selection != self.agent:
            seat = int(aec.agent_selection.rpartition("_")[2])
            if seat == changer(aec.match):
                # R-BID-CHANGE: a bot is never made to decide a change (as in
                # play_match); it keeps its bid and the next bidder is asked.
                aec.step(KEEP)
                continue
            obs = aec.observation_of(aec.agent_selection)
            aec.step(action_id(self.bots[seat].choose(obs, self._bot_rngs[seat])))

    def _info(self) -> dict[str, Any]:
        state = self.aec.state
        return {"hand_number": state.hand_number, "totals": tuple(state.totals)}


ENV_ID: Final = "ohhell/OhHell-v0"
"""``gymnasium.make(ENV_ID, seat=0, opponents=("intermediate",), preset="pagat")``."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="ohhell.env.gym:OhHellGymEnv")
