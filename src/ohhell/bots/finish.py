"""How a real hand ends, given how the greedy finish of the same hand ends.

The searches finish each simulated hand with the greedy policy
(``fastdeal.playout``). Real players steer towards their bids far better
than that policy: in the expert's own games, where the greedy finish
played from the true deal at the start of the play missed a bid by one
trick, the seat still made it about half the time, and where the greedy
finish made it, the seat made it only about two times in three. So a
simulated hand's score, read off the table by the tricks the greedy
finish took, says less than it seems; ``steered`` turns a seat's row of
scores into its expected score given the greedy finish's tricks.

The chances come from ``data/finish.json``: for each number of tricks
left to play (1 to 10, longer hands read 10) and each gap between the
greedy finish's tricks and the bid (-3 to +3; a finish further off
does not make it), the share of such finishes in which the seat made its bid.
``bench/experiments/finish_model.py`` counts them in the expert's self-play and writes
the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .shipped import load_weights

MOST_LEFT = 10
WIDEST = 3
FEATURES: tuple[str, ...] = tuple(
    f"left {left}, gap {gap:+d}" for left in range(1, MOST_LEFT + 1) for gap in range(-WIDEST, WIDEST + 1)
)


@cache
def made_chances() -> tuple[float, ...] | None:
    """The shipped chances (in ``FEATURES`` order), or None without the file."""
    return load_weights("finish.json", FEATURES)


def made_chance(chances: Sequence[float], left: int, gap: int) -> float:
    """The chance a seat makes its bid when the greedy finish, with ``left``
    tricks to play, ends ``gap`` tricks off it (positive: over); none when
    it ends further off than the table reads."""
    if abs(gap) > WIDEST:
        return 0.0
    left = min(max(left, 1), MOST_LEFT)
    return chances[(left - 1) * (2 * WIDEST + 1) + gap + WIDEST]


def steered(row: Sequence[float], bid: int, taken: int, left: int, chances: Sequence[float]) -> list[float]:
    """A seat's expected score by the greedy finish's tricks, ``row`` being
    its score by its real tricks.

    The seat has ``taken`` tricks with ``left`` to play, so it ends with
    ``taken`` to ``taken + left``. A finish off the bid reaches it with the
    chance above and otherwise stays where it ended; a finish on the bid
    misses it otherwise, by one either way (where the seat can still end).
    A bid out of reach is scored as the finish ended.
    """
    low, high = taken, taken + left
    if not low <= bid <= high:
        return list(row)
    near = [t for t in (bid - 1, bid + 1) if low <= t <= high]
    miss = sum(row[t] for t in near) / len(near) if near else row[bid]
    out = []
    for t, score in enumerate(row):
        if not low <= t <= high:
            out.append(score)
            continue
        chance = made_chance(chances, left, t - bid)
        out.append(chance * row[bid] + (1 - chance) * (miss if t == bid else score))
    return out


__all__ = ["FEATURES", "made_chance", "made_chances", "steered"]
