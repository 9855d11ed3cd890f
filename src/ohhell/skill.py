"""Ratings' arithmetic: OpenSkill's Plackett-Luce model, the bots' landmarks
and the shown scale, shared by the server (web/accounts/ratings.py, which keeps
accounts' ratings) and ``ohhell stats`` (a local rating from saved matches).

Shown on a familiar scale: 1500 for a newcomer, 20 points for each point of
OpenSkill's mean, so the bots' landmarks span about 800 (random) to 1,900
(expert); a newcomer starts between beginner and intermediate. A rating is
provisional while its uncertainty is above ``SETTLED``. The landmarks are
measured by ``bench/landmarks.py`` (web/accounts/landmarks.json).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Final

from openskill.models import PlackettLuce

from . import PRESETS, Rules

CENTRE: Final = 1500
SCALE: Final = 20.0  # shown points for one point of the mean
SETTLED: Final = 3.0  # sigma at or below which a rating is no longer provisional (about 40 matches)


@functools.cache
def model() -> PlackettLuce:
    return PlackettLuce()


@functools.cache
def landmarks() -> dict[str, tuple[float, float]]:
    """Each bot level's fixed rating (mu, sigma), as measured and shipped."""
    data = json.loads((resources.files("ohhell.web.accounts") / "landmarks.json").read_text())
    return {level: (float(v["mu"]), float(v["sigma"])) for level, v in data["levels"].items()}


def shown(mu: float) -> int:
    """A rating on the shown scale."""
    return round(CENTRE + SCALE * (mu - model().mu))


def provisional(sigma: float) -> bool:
    return sigma > SETTLED


def preset_of(rules: Rules) -> str | None:
    """The preset whose own options ``rules`` are (any number of players), by
    name; None for other options."""
    for name, preset in PRESETS.items():
        if not set(rules.differences(preset)) - {"players"}:
            return name
    return None


def rated_rules(rules: Rules) -> bool:
    """Whether matches of ``rules`` are rated: a preset's own options, any
    number of players."""
    return preset_of(rules) is not None


@dataclass(frozen=True, slots=True)
class Entrant:
    """One seat of a finished match, as the ratings see it."""

    seat: int
    score: int
    account: str | None = None  # the account that played it, if any
    level: str | None = None  # a bot's level, for a seat a bot played from the start
    left: bool = False  # its person left before the end
    unrated: bool = False  # its person is not rated by it (a hint; an address another seat shared)


def places(entrants: Sequence[Entrant]) -> list[int]:
    """Each seat's place: by final score, equal scores sharing a place; those
    who left after those who stayed."""

    def key(e: Entrant) -> tuple[bool, int]:
        return (e.left, -e.score)

    keys = [key(e) for e in entrants]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]


def new_ratings(before: Sequence[tuple[float, float]], ranks: Sequence[int]) -> list[tuple[float, float]]:
    """Each seat's (mu, sigma) after a match in which they took ``ranks``."""
    skill = model()
    teams = [[skill.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    after = skill.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in after]


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    matches: int

    @property
    def shown(self) -> int:
        return shown(self.mu)

    @property
    def provisional(self) -> bool:
        return provisional(self.sigma)


def standing_words(rating: Rating) -> str:
    """Where a rating stands among the bots: "1,612: between intermediate
    (1,480) and expert (1,790)"."""
    marks = sorted((shown(mu), level) for level, (mu, _) in landmarks().items())
    mine = rating.shown
    text = f"{mine:,}{'?' if rating.provisional else ''}"
    below = [m for m in marks if m[0] <= mine]
    above = [m for m in marks if m[0] > mine]
    if below and above:
        return f"{text}: between {below[-1][1]} ({below[-1][0]:,}) and {above[0][1]} ({above[0][0]:,})"
    if above:
        return f"{text}: below {above[0][1]} ({above[0][0]:,})"
    return f"{text}: above {below[-1][1]} ({below[-1][0]:,})"
