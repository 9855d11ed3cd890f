"""Random legal play: whole matches for smoke tests, benchmarks and `ohhell simulate`."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from .. import GameState, Match, Record, Rules, dump


def random_match(rules: Rules, rng: random.Random) -> GameState:
    """Play one match to the end, chance and every seat drawing from ``rng``.

    Where several seats may act (simultaneous bids, a bid that may still be
    changed), the seat is chosen at random too, so every order gets played:
    the referee's ``actors`` rather than its turn order.
    """
    match = Match.new(rules, rng, track_turns=False)
    while not match.is_over:
        if match.state.is_chance:
            match.deal()
            continue
        who = match.actors()
        seat = who[0] if len(who) == 1 else rng.choice(who)
        match.submit(rng.choice(match.legal(seat)))
    return match.state


@dataclass
class Summary:
    """What `ohhell simulate` reports."""

    games: int = 0
    hands: int = 0
    tricks: int = 0
    actions: int = 0
    extra_hands: int = 0
    totals: list[int] = field(default_factory=list)  # summed over games, by seat
    exact: list[int] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)  # a shared win counts as a fraction

    def mean_scores(self) -> list[float]:
        return [t / self.games for t in self.totals] if self.games else []

    def exact_rates(self) -> list[float]:
        return [e / self.hands for e in self.exact] if self.hands else []

    def as_dict(self) -> dict[str, object]:
        return {
            "games": self.games,
            "hands": self.hands,
            "tricks": self.tricks,
            "actions": self.actions,
            "extra_hands": self.extra_hands,
            "mean_score": [round(x, 3) for x in self.mean_scores()],
            "exact_rate": [round(x, 4) for x in self.exact_rates()],
            "wins": self.wins,
        }


def simulate(rules: Rules, games: int, seed: int, record_dir: Path | None = None) -> Summary:
    """Play ``games`` random matches from ``seed``; optionally write each record."""
    from .. import winners

    rng = random.Random(seed)
    n = rules.players
    summary = Summary(totals=[0] * n, exact=[0] * n, wins=[0.0] * n)
    if record_dir is not None:
        record_dir.mkdir(parents=True, exist_ok=True)
    for g in range(games):
        state = random_match(rules, rng)
        summary.games += 1
        summary.hands += len(state.results)
        summary.tricks += sum(r.size for r in state.results)
        summary.actions += len(state.log)
        summary.extra_hands += sum(1 for r in state.results if r.extra)
        for s in range(n):
            summary.totals[s] += state.totals[s]
            summary.exact[s] += state.exact[s]
        top = winners(rules, state.totals, state.exact)
        for side in top:
            for s in side:
                summary.wins[s] += 1 / len(top)
        if record_dir is not None:
            names = tuple(f"Random {s + 1}" for s in range(n))
            tags = (("seed", str(seed)), ("game", str(g + 1)))
            dump(Record.from_state(state, names, tags), record_dir / f"game-{g + 1:04d}.ohr")
    return summary
