"""Small positions late in a hand whose consistent deals can be enumerated,
for chi-square tests of the world samplers (the core's ``sample_hands`` and
the expert's card search)."""

from __future__ import annotations

import functools
import itertools
import math
import random

from ohhell import (
    Observation,
    apply,
    chance_action,
    legal_actions,
    make_rules,
    new_game,
    observe,
)
from ohhell.view import unseen_cards

SAMPLES = 20_000


def late_position(seed: int) -> Observation:
    """Seat 0's view of a 4-player 12-card hand with 2 cards left each, played
    at random, in which at least two other seats have shown a void."""
    rules = make_rules("common", {"hand-sizes": "12", "hook": "no"})
    rng = random.Random(seed)
    state = new_game(rules)
    apply(state, chance_action(state, rng))
    while state.hand_size - len(state.tricks) > 2 or state.trick:
        seat = state.to_act
        apply(state, rng.choice(legal_actions(state, seat)))
    return observe(state, 0)


@functools.cache
def positions() -> list[Observation]:
    found = []
    for seed in range(2000):
        obs = late_position(seed)
        suits = {c.suit for c in unseen_cards(obs)}
        binding = sum(1 for s in (1, 2, 3) if obs.voids[s] & suits)  # voids that rule deals out
        if binding >= 2 and len(consistent_deals(obs)) <= 1000:
            found.append(obs)
        if len(found) == 3:
            break
    assert len(found) == 3
    return found


def consistent_deals(obs: Observation) -> list[tuple[tuple[str, ...], ...]]:
    """Every deal of the unseen cards to the hidden seats (and the stock)
    that agrees with the voids shown, as sorted card names per hidden seat."""
    pool = unseen_cards(obs)
    hidden = [s for s in range(obs.players) if obs.hands[s] is None]
    deals = []

    def deal(i: int, left: list[int], hands: list[tuple[str, ...]]) -> None:
        if i == len(hidden):
            deals.append(tuple(hands))
            return
        seat = hidden[i]
        for chosen in itertools.combinations(left, obs.hand_counts[seat]):
            if any(pool[k].suit in obs.voids[seat] for k in chosen):
                continue
            rest = [k for k in left if k not in chosen]
            deal(i + 1, rest, [*hands, tuple(sorted(str(pool[k]) for k in chosen))])

    deal(0, list(range(len(pool))), [])
    return deals


def chi_square_limit(df: int, z: float = 3.72) -> float:
    """The chi-square value exceeded with probability about 1e-4 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
