"""The random bot: a uniform choice among the legal actions, the floor of strength."""

from __future__ import annotations

import random

from .. import Action, Observation


class RandomBot:
    """Picks uniformly among ``obs.legal_actions``."""

    def __init__(self, name: str = "random") -> None:
        self.name = name

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        return rng.choice(obs.legal_actions)
