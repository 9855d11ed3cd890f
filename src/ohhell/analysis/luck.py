"""What the cards were worth: each hand's real deal played out by the expert.

A hand's value for a seat is its mean score over ``Budget.luck_playouts``
plays of the real deal from the first bid, the expert (at
``Budget.luck_simulations`` a decision) in every seat, each seat deciding
from its own observation as always. It prices the cards each seat was dealt
and its place at the table (who bids last, who leads) as strong players
would play them, the lie of the hidden cards included. A seat's luck in the
hand is its value less the mean value of the seats: the points its cards
gave it over an average seat at that table.

Each playout's generators come from the review's seed, the hand and the
playout's number, so the values are the same in any process and order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .. import GameState, Match
from .decisions import analyst, derived_seed


def playout_scores(
    start: GameState, *, seed: int, hand: int, playout: int, simulations: int
) -> tuple[int, ...]:
    """One play of the hand that ``start`` (the state just after its deal)
    begins, with the expert in every seat: each seat's score for the hand."""
    state = start.clone()
    before = len(state.results)
    # No chance is drawn: the deal is done, and the playout stops when the hand ends.
    match = Match(state, random.Random(0), track_turns=False)
    bot = analyst(simulations)
    players = [bot] * state.players
    rngs = [random.Random(derived_seed(seed, "luck", hand, playout, s)) for s in range(state.players)]
    while len(state.results) == before and match.step(players, rngs.__getitem__):
        pass
    return state.results[before].scores


def hand_values(playouts: Sequence[Sequence[int]]) -> tuple[float, ...]:
    """Each seat's mean score over the playouts."""
    count = len(playouts)
    return tuple(sum(p[s] for p in playouts) / count for s in range(len(playouts[0])))


def luck_of(values: Sequence[float]) -> tuple[float, ...]:
    """Each seat's value less the table's mean value."""
    mean = sum(values) / len(values)
    return tuple(v - mean for v in values)


def luck_variance(playouts: Sequence[Sequence[int]], seat: int, other: int | None = None) -> float:
    """The squared standard error of a hand's luck for ``seat`` (or of
    ``seat``'s luck less ``other``'s): the sample variance over the playouts
    of that seat's score less the table's mean (or less ``other``'s score),
    over their number. The playouts are independent plays of the same deal,
    so this is how far another seed may move the estimate. (The playing
    expert's own misjudgements, the same in every playout, are not in it.)"""
    k = len(playouts)
    if other is None:
        diffs = [p[seat] - sum(p) / len(p) for p in playouts]
    else:
        diffs = [p[seat] - p[other] for p in playouts]
    mean = sum(diffs) / k
    return sum((d - mean) ** 2 for d in diffs) / (k - 1) / k


__all__ = ["hand_values", "luck_of", "luck_variance", "playout_scores"]
