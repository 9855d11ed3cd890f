"""bench/experiments/think.py compares the expert's decisions at two fixed budgets: one
row for every decision of the measured seat that had a choice, the seat
playing the short think's choice, a clear decision found at both budgets,
and the whole run the same from the same seed."""

from __future__ import annotations

import random

from ohhell import PRESETS, Bid, Deal, Play, apply, new_game, observe, parse_cards
from ohhell.bots.expert import ExpertBot
from ohhell.cards import Card
from support import bench_script


def test_every_decision_with_a_choice_is_compared_and_reproducible() -> None:
    bench = bench_script("experiments/think")
    job = (3, 5, "common", 4, 4, 40, 160, "intermediate")
    rows = bench.play(job)
    # The measured seat makes a bid and plays four cards; the last card (and
    # any forced one) is no choice, so there are between one and four rows,
    # the bid first.
    assert 1 <= len(rows) <= 4
    assert rows[0]["kind"] == "bid" and all(r["kind"] == "card" for r in rows[1:])
    assert all(r["choices"] > 1 and r["deal"] == 5 for r in rows)
    assert bench.play(job) == rows  # fixed budgets: the same from the same seed


def test_a_clear_decision_is_the_same_at_both_budgets_and_costs_nothing() -> None:
    # Two cards left, one more trick wanted, the top trump in hand and a
    # club led to a seat out of clubs: throwing the diamond keeps the bid
    # safe (the trump takes the last trick), ruffing risks the diamond
    # winning the last trick for one too many.
    bench = bench_script("experiments/think")
    rules = PRESETS["common"].replace(hand_sizes=(2,), first_dealer=3)
    state = new_game(rules)
    hands = ("KC 3H", "AS 2D", "4C 5H", "6C 7H")
    apply(state, Deal(tuple(tuple(parse_cards(h)) for h in hands), Card.parse("5S")))
    for seat, bid in ((0, 1), (1, 1), (2, 0), (3, 1)):
        apply(state, Bid(seat, bid))
    apply(state, Play(0, Card.parse("KC")))
    obs = observe(state, 1)
    row, action = bench.compare(obs, 200, 800, seed=11)
    assert action == Play(1, Card.parse("2D"))
    assert row["kind"] == "card" and row["agree"] and row["agree_again"]
    assert row["regret"] == row["regret_again"] == 0.0
    # The action returned is the short think's own choice, which the seat plays.
    assert ExpertBot(simulations=200).choose(obs, random.Random(11)) == action


def test_the_summary_adds_regrets_a_deal_over_every_deal() -> None:
    bench = bench_script("experiments/think")
    keys = ("kind", "agree", "agree_again", "regret", "regret_again", "deal")
    rows = [
        dict(zip(keys, ("bid", True, True, 0.0, 0.0, 0), strict=True)),
        dict(zip(keys, ("card", False, True, 0.5, 0.0, 0), strict=True)),
        dict(zip(keys, ("card", False, False, 1.0, 0.25, 1), strict=True)),
    ]
    out = bench.summary(rows, deals=3)  # the third deal had no regret at all
    assert out["bid"]["decisions"] == 1 and out["card"]["decisions"] == 2
    assert "trump" not in out
    assert out["card"]["agree_long"] == 0.0 and out["card"]["agree_short_again"] == 0.5
    assert out["all"]["regret_a_decision"] == 0.5
    assert out["regret_a_deal"] == 0.5  # (0.5 + 1.0 + 0) / 3
