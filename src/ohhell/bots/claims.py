"""How a bot answers another player's claim: by the cards it can see.

A claim that the referee cannot show to be certain is put to the others
(``ohhell.claim``), and the claimer's cards are shown to them, as a player
who claims at a real table lays their hand down. A bot sees its own
observation and those cards, so it deals the cards it still cannot see at
random several times and accepts the claim only if the claimer could make
it certain in every one of those deals: it never gives up tricks on a
guess. The answer is the same for the same observation and generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from .. import Card, Observation, claim_holds, sample_world, unseen_cards

WORLDS: Final = 12  # deals a bot looks at before it answers
WORLD_BUDGET: Final = 4_000  # positions searched in each (past it the claim is not shown: refuse)


def accepts_claim(
    obs: Observation,
    claimer: int,
    tricks: int,
    shown: Sequence[Card],
    rng: random.Random,
    worlds: int = WORLDS,
) -> bool:
    """Does the bot whose observation is ``obs`` accept that ``claimer``, who
    showed the cards ``shown``, takes exactly ``tricks`` of the tricks left?"""
    for _ in range(worlds):
        world = sample_world(obs, rng)
        if claimer != obs.seat:
            world.hands = _dealt_with(obs, claimer, list(shown), rng)
        if claim_holds(world, claimer, tricks, budget=WORLD_BUDGET) is not True:
            return False
    return True


def _dealt_with(obs: Observation, claimer: int, shown: list[Card], rng: random.Random) -> list[list[Card]]:
    """Every hand of a deal in which the claimer holds the cards shown and the
    cards the bot cannot see are dealt at random to the seats it cannot see
    (each with its number of cards; voids are not kept, which only makes the
    bot more careful)."""
    pool = unseen_cards(obs)
    for card in shown:
        pool.remove(card)
    rng.shuffle(pool)
    hands: list[list[Card]] = []
    for seat, held in enumerate(obs.hands):
        if seat == claimer:
            hands.append(list(shown))
        elif held is not None:
            hands.append(list(held))
        else:
            count = obs.hand_counts[seat]
            hands.append(pool[:count])
            pool = pool[count:]
    return hands


__all__ = ["WORLDS", "accepts_claim"]
