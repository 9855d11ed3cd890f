"""Oh Hell as a PettingZoo AEC environment, for every rule set and the whole match.

>>> from ohhell.env import oh_hell_v0
>>> env = oh_hell_v0.env(preset="pagat", players=4, render_mode="ansi")
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, obs["action_mask"].shape, terminated
((1162,), (95,), False)

Agents are ``player_0`` .. ``player_{n-1}`` (seat numbers). The agent asked to
act is ``encoding.seat_to_ask`` of the referee (``ohhell.Match``), as in the
OpenSpiel game: under R-BID-CHANGE, right after a seat bids it is asked
whether it changes its bid (ids 76..93, at most ``MAX_BID_CHANGES`` times) or
keeps it (94), before the next bidder bids; otherwise the bidder, the trump
namer or the player; under simultaneous bidding (R-BID-SIMULTANEOUS) each
seat that has not bid, in seat order, while the bids stay sealed in
everyone's observation. Chance (the draw for dealer and every deal) is
internal, from ``reset(seed=...)``.

Observations are ``{"observation": encoding.encode(view), "action_mask": ...}``
(``observation="compact"``, the default) or, with ``observation="history"``,
``{"observation": history.information_state(view), ...}``: the seat's
perfect-recall information state of the current hand. The view is
``view.observe(state, seat)`` (the only redaction point) and the mask is zero
except for the agent to act. Rewards (``reward=``):
``"hand"`` (default) gives every agent its side's score for each hand as the
hand ends (its own score, or its team's sum under R-TEAMS); ``"final"`` gives
the side's match total once, at the end. Every agent terminates when the match
ends; nothing truncates. An illegal action raises ``ValueError`` naming the
action and what is legal, and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import logger, spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from .. import (
    Action,
    GameState,
    IllegalActionError,
    Match,
    Observation,
    Phase,
    Rules,
    TieBreak,
    make_rules,
    observe,
    parse_option,
    sides,
)
from .. import sample_world as _sample_world
from ..encoding import (
    ACTION_SIZE,
    KEEP,
    MASK_DTYPE,
    OBSERVATION_SIZE,
    action_from_id,
    describe_action_id,
    encode,
    legal_ids,
    observation_bounds,
    observation_text,
    seat_to_ask,
    take_id,
)
from .history import HISTORY_SIZE, history_bounds, information_state, information_state_string

REWARDS: Final = ("hand", "final")
OBSERVATIONS: Final = ("compact", "history")

ObsDict = dict[str, npt.NDArray[Any]]


def build_rules(
    preset: str | Rules = "pagat",
    players: int | None = None,
    single_deal: bool | int = False,
    **options: Any,
) -> Rules:
    """The rules an environment plays: a preset (by name or value), ``players``,
    and rule options as values or as text (``hook=False`` or ``hook="no"``).

    ``single_deal=True`` plays only the first hand of the schedule and an
    integer plays one hand of that size; either way there are no tie-break
    hands, and Devil's Bridge stays on only if that hand has one card.
    """
    rules = make_rules(preset)
    changes: dict[str, Any] = {}
    if players is not None:
        changes["players"] = players
    for name, value in options.items():
        key, parsed = parse_option(name, value) if isinstance(value, str) else (name, value)
        changes[key] = parsed
    if changes:
        rules = rules.replace(**changes)
    if single_deal is not False:
        size = rules.schedule[0] if single_deal is True else int(single_deal)
        rules = rules.replace(
            hand_sizes=(size,),
            tie_break=TieBreak.NONE if rules.tie_break is TieBreak.EXTRA_HANDS else rules.tie_break,
            devils_bridge=rules.devils_bridge and size == 1,
        )
    return rules


class raw_env(AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # PettingZoo's name for the unwrapped class
    """The unwrapped environment; ``env()`` adds PettingZoo's usual checks."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["human", "ansi"],
        "name": "oh_hell_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | Rules = "pagat",
        players: int | None = None,
        single_deal: bool | int = False,
        reward: str = "hand",
        render_mode: str | None = None,
        observation: str = "compact",
        **options: Any,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, not {observation!r}")
        self.observation_mode = observation
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'human', 'ansi' or None, not {render_mode!r}")
        self.rules = build_rules(preset, players, single_deal, **options)
        self.reward_mode = reward
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        self._side = [next(side for side in sides(self.rules) if s in side) for s in range(n)]
        low, high = observation_bounds() if observation == "compact" else history_bounds()
        size = OBSERVATION_SIZE if observation == "compact" else HISTORY_SIZE
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (ACTION_SIZE,), MASK_DTYPE),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTION_SIZE) for a in self.possible_agents}
        self._master: random.Random | None = None
        self._chance = random.Random()
        # The referee: it alone changes the state, and says whose turn it is.
        self.match = Match.new(self.rules, random.Random(0), track_turns=False)

    # --- PettingZoo API ---

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        # The same object every call, so seeding a space sticks (api_test checks).
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match. The same seed gives the same deals (and, with the same
        actions, the same match); without one, the next match of the stream."""
        if seed is not None or self._master is None:
            self._master = random.Random(seed)
        self._chance = random.Random(self._master.getrandbits(64))
        self.match = Match.new(self.rules, self._chance, track_turns=False)
        self._deal()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for agents whose match has ended")
        seat = self._seat[agent]
        state = self.state
        aid = int(action)
        legal = legal_ids(self.match, seat)
        if aid not in legal:
            raise ValueError(
                f"{agent} cannot take action {aid} ({describe_action_id(aid)}): "
                f"{self._reason(seat, aid)}; legal ids: {legal}"
            )
        self._cumulative_rewards[agent] = 0.0
        hands_before = len(state.results)
        take_id(self.match, seat, aid)  # KEEP is the referee's keep_bid (R-BID-CHANGE)
        self._deal()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward_mode == "hand" and len(state.results) > hands_before:
            scores = state.results[-1].scores
            for a in self.agents:
                self.rewards[a] = float(sum(scores[s] for s in self._side[self._seat[a]]))
        if state.is_over:
            if self.reward_mode == "final":
                for a in self.agents:
                    self.rewards[a] = float(sum(state.totals[s] for s in self._side[self._seat[a]]))
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()  # human mode draws as the game goes, as Gymnasium's convention is

    def observe(self, agent: str) -> ObsDict:
        seat = self._seat[agent]
        view = observe(self.state, seat)
        mask = np.zeros(ACTION_SIZE, MASK_DTYPE)
        if agent == self.agent_selection and not self.state.is_over:
            mask[legal_ids(self.match, seat)] = 1
        vector = encode(view) if self.observation_mode == "compact" else information_state(view)
        return {"observation": vector, "action_mask": mask}

    def render(self) -> str | None:
        """The table as text: the spectator's view, then every hand (for
        people watching; no agent is given this). ``ansi`` returns it;
        ``human`` prints it (after every step too) and returns None."""
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode; use oh_hell_v0.env(render_mode='ansi')")
            return None
        text = observation_text(observe(self.state, None))
        if self.state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
            from ..describe import hand_words

            text += "\n" + "\n".join(
                f"  hand of seat {s}: {hand_words(h)}" for s, h in enumerate(self.state.hands)
            )
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        pass

    # --- Research helpers ---

    def observation_of(self, agent: str) -> Observation:
        """The agent's ``view.Observation`` (what bots and ``encode`` read)."""
        return observe(self.state, self._seat[agent])

    def information_state_string(self, agent: str) -> str:
        """The agent's perfect-recall information state of the current hand as
        a canonical text key (``history.information_state_string``), in
        either observation mode."""
        return information_state_string(self.observation_of(agent))

    def legal_action_ids(self, agent: str) -> list[int]:
        """The ids the agent may take now (empty unless it is the agent to act)."""
        if agent != self.agent_selection or self.state.is_over:
            return []
        return legal_ids(self.match, self._seat[agent])

    def sample_world(self, agent: str, rng: random.Random) -> GameState:
        """A full state consistent with what the agent knows (voids respected),
        from its observation alone: ``view.sample_world``."""
        return _sample_world(self.observation_of(agent), rng)

    def state_clone(self) -> GameState:
        """An independent copy of the true state, hidden cards included (oracle
        use: perfect-information baselines, debugging). Never an agent's input."""
        return self.state.clone()

    def text(self, agent: str) -> str:
        """The agent's observation as plain text."""
        return observation_text(self.observation_of(agent))

    def side_of(self, seat: int) -> tuple[int, ...]:
        """The seats whose scores make this seat's reward: its team (R-TEAMS) or itself."""
        return self._side[seat]

    @property
    def state(self) -> GameState:
        """The true state (hidden cards included): read it; the referee changes it."""
        return self.match.state

    def _deal(self) -> None:
        while self.match.state.is_chance:
            self.match.deal()

    def _select(self) -> None:
        if self.state.is_over:
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]
        else:
            seat = seat_to_ask(self.match)  # the seat that may change its bid first (R-BID-CHANGE)
            assert seat is not None  # chance has been dealt and the match goes on
            self.agent_selection = self.possible_agents[seat]

    def _reason(self, seat: int, aid: int) -> str:
        if aid == KEEP:
            return "there is no bid of its that it could still change (R-BID-CHANGE)"
        try:
            move: Action = action_from_id(aid, seat)
            self.match.check(move)
        except (ValueError, IllegalActionError) as err:
            return str(err)
        return "it is legal, but not a choice this environment asks for now"


def env(**kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """The environment with PettingZoo's order and bounds checks; see ``raw_env``."""
    wrapped: AECEnv[str, ObsDict, int] = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped
