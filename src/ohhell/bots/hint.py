"""Hints: the expert's suggested action for any observation, with its value.

Front ends call ``hint`` when a player asks for help, and for post-hand
analysis (what would the expert have done, and how much did a choice cost).
The hint sees only the observation it is given, like any bot.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .. import Action, Observation
from .expert import Evaluation, ExpertBot


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested action, its expected score, and every candidate ranked."""

    action: Action
    expected: float  # expected score of the hand (for Okenuff: relative to the others' mean)
    ranked: tuple[Evaluation, ...]  # best first
    worlds: int  # sampled deals behind the estimate

    def value_of(self, action: Action) -> float | None:
        """The expected score of another candidate, or None if it was not legal."""
        for e in self.ranked:
            if e.action == action:
                return e.expected
        return None


def hint(obs: Observation, rng: random.Random | None = None, seconds: float = 0.5) -> Hint | None:
    """The expert's suggestion for ``obs``; None when its seat has nothing to do."""
    if obs.seat is None or not obs.legal_actions:
        return None
    ranked = ExpertBot(seconds=seconds).analyse(obs, rng or random.Random())
    best = ranked[0]
    return Hint(best.action, best.expected, tuple(ranked), best.worlds)


def cost_of(
    obs: Observation, action: Action, rng: random.Random | None = None, seconds: float = 0.5
) -> float:
    """How much expected score ``action`` gives up against the expert's choice
    (0 when it is the expert's choice), for post-hand analysis."""
    found = hint(obs, rng, seconds)
    if found is None:
        raise ValueError("this seat has no decision to make in that observation")
    value = found.value_of(action)
    if value is None:
        raise ValueError(f"{action!r} is not a legal action in that observation")
    return found.expected - value
