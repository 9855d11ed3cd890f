"""How often the expert makes a bid, given how often its playouts make it.

The expert values a bid by playing each sampled world out with the greedy
policy of ``fastdeal`` in every seat, itself included, while its real card
play is a search and its opponents are not that policy. A small logistic
model, fitted on the expert's own games (``bench/experiments/bid_calibration.py``, which
writes ``data/bid_calibration.json``), maps the playouts' share of made bids
to the share the expert actually makes: the playouts are overconfident at
both ends. The expert uses it with ``calibrate=1``.

Only the standard library: the weights are a handful of numbers in JSON.
"""

from __future__ import annotations

import math
from functools import cache

from .shipped import load_weights

FEATURES = ("bias", "logit", "nil", "share", "logit_share")


def features(made: float, bid: int, hand_size: int, n: int) -> list[float]:
    """The model's inputs for a bid of ``bid`` in a hand of ``hand_size`` cards
    that ``made`` of ``n`` playouts made exactly."""
    low = 0.5 / max(n, 1)  # a share of 0 or 1 out of n playouts is not a certainty
    p = min(max(made, low), 1.0 - low)
    logit = math.log(p / (1.0 - p))
    share = bid / hand_size if hand_size else 0.0
    return [1.0, logit, 1.0 if bid == 0 else 0.0, share, logit * share]


@cache
def weights() -> tuple[float, ...] | None:
    """The fitted weights, or None when the package ships none."""
    return load_weights("bid_calibration.json", FEATURES)


def made_chance(made: float, bid: int, hand_size: int, n: int) -> float:
    """The chance the expert makes ``bid``, given the playouts' share ``made``."""
    w = weights()
    if w is None:
        return made
    z = sum(a * b for a, b in zip(w, features(made, bid, hand_size, n), strict=True))
    return 1.0 / (1.0 + math.exp(-z))


__all__ = ["FEATURES", "features", "made_chance", "weights"]
