"""bench/experiments/finish_model.py records what it claims (the greedy finish of the true
deal beside the real ending, for every seat and trick) and counts the
chances the expert's finish model ships."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ohhell.bots.finish import FEATURES, MOST_LEFT, WIDEST
from support import bench_script


def test_a_deal_records_every_seat_at_every_trick() -> None:
    bench = bench_script("experiments/finish_model")
    rows = bench.play((0, 5, {"worlds": 4, "simulations": 24}))
    rules = bench.table(0, 5)
    players, size = rules.players, rules.hand_sizes[0]
    assert len(rows) == players * size
    for left in range(1, size + 1):
        at = [r for r in rows if r["left"] == left]
        assert len(at) == players
        # The greedy finish plays out the whole hand: its tricks, with those
        # taken before, add up to the hand; so do the real ones.
        assert sum(r["greedy"] for r in at) == size
        assert sum(r["took"] for r in at) == size
        assert len({tuple(r["bid"] for r in at)}) == 1
    # With one trick left the greedy finish and the real hand end alike.
    assert all(r["greedy"] == r["took"] for r in rows if r["left"] == 1)


def test_the_counts_find_the_chances_that_drew_the_endings() -> None:
    bench = bench_script("experiments/finish_model")
    rng = random.Random(1)
    truth = {(left, gap): rng.uniform(0.05, 0.95) for left in range(1, MOST_LEFT + 1) for gap in (-1, 0, 1)}
    rows: list[dict[str, Any]] = []
    for (left, gap), p in truth.items():
        for i in range(2000):
            took = 3 if rng.random() < p else 9
            rows.append({"deal": i, "left": left, "bid": 3, "greedy": 3 + gap, "took": took})
    fitted = bench.chances(rows, 6.0)
    assert len(fitted) == len(FEATURES)
    for (left, gap), p in truth.items():
        assert fitted[(left - 1) * (2 * WIDEST + 1) + gap + WIDEST] == pytest.approx(p, abs=0.04)
    # A finish further off than the table is never counted, and the table beats the greedy verdict here.
    assert bench.brier(rows, fitted) < bench.brier(rows, None)
    far = {"deal": 0, "left": 10, "bid": 0, "greedy": WIDEST + 1, "took": 0}
    assert bench.brier([far], fitted) == 1.0
