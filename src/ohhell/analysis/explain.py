"""Why one player finished ahead of another: cards, decisions and the rest.

Over the hands a review priced, the score gap between two seats splits as

    score gap = luck gap - decision-loss gap + rest

where the luck gap is what their cards were worth apart, the decision-loss
gap what one gave away more than the other, and the rest what the
estimates do not explain (how the hidden cards and the others' choices
fell). ``error`` is how large the rest is expected to be: the spread of the
same gap over the review's playouts of the same deals (tests check that on
simulated matches the rest stays within it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .luck import luck_variance
from .model import HandLuck, Review


@dataclass(frozen=True, slots=True)
class Gap:
    """Seat ``a``'s score less seat ``b``'s over the priced hands, explained."""

    a: int
    b: int
    score: int
    luck: float  # a's luck less b's
    loss: float  # a's decision losses less b's
    rest: float  # score - luck + loss
    error: float  # the size the rest is expected to have (one standard deviation)
    luck_error: float = 0.0  # the standard error of ``luck`` over the playouts


def pair_variance(playouts: Sequence[Sequence[int]], a: int, b: int) -> float:
    """The sample variance of ``a``'s score less ``b``'s over a hand's
    playouts, times 1 + 1/K: how far one real play of the hand strays from
    the value, plus the value's own error over K playouts."""
    k = len(playouts)
    gaps = [p[a] - p[b] for p in playouts]
    mean = sum(gaps) / k
    return sum((g - mean) ** 2 for g in gaps) / (k - 1) * (1.0 + 1.0 / k)


def edge_variance(playouts: Sequence[Sequence[int]], seat: int) -> float:
    """The same for a seat's score less the table's mean score."""
    k = len(playouts)
    edges = [p[seat] - sum(p) / len(p) for p in playouts]
    mean = sum(edges) / k
    return sum((e - mean) ** 2 for e in edges) / (k - 1) * (1.0 + 1.0 / k)


def explain(review: Review, a: int, b: int) -> Gap:
    """Seat ``a`` against seat ``b`` over the review's priced hands. Both
    seats' decisions must have been reviewed."""
    if a not in review.reviewed or b not in review.reviewed:
        raise ValueError("both seats' decisions must be reviewed to explain their gap")
    return gap_of(review.hands, a, b)


def gap_of(hands: Sequence[HandLuck], a: int, b: int) -> Gap:
    """``explain`` from the hands alone."""
    score = sum(h.scores[a] - h.scores[b] for h in hands)
    luck = sum(h.luck[a] - h.luck[b] for h in hands)
    loss = sum(h.loss[a] - h.loss[b] for h in hands)
    error = math.sqrt(sum(pair_variance(h.playouts, a, b) for h in hands))
    luck_error = math.sqrt(sum(luck_variance(h.playouts, a, b) for h in hands))
    return Gap(
        a,
        b,
        score,
        round(luck, 3),
        round(loss, 3),
        round(score - luck + loss, 3),
        round(error, 3),
        round(luck_error, 3),
    )


__all__ = ["Gap", "edge_variance", "explain", "gap_of", "pair_variance"]
