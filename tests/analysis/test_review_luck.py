"""Luck: what each seat's cards and position were worth, and the check that
luck and decisions explain the score gaps between players on simulated
matches, within the error the review gives."""

from __future__ import annotations

import math

import pytest

from ohhell import Bid, Card, Play, Record
from ohhell.analysis import Budget, explain, review_record
from review_support import NAMES, TINY, bot_match, deal, short_rules

CHECK = Budget(simulations=240, price_simulations=240, luck_playouts=8, luck_simulations=24)
"""Eight playouts a hand: enough to measure each hand's spread, which sets
the error the rest is held to."""


def test_the_ace_of_trump_is_luck_and_a_dealer_on_the_hook_is_not() -> None:
    # A 1-card hand: seat 1 holds the ace of trumps and bids 1, seats 2 and 3
    # bid 0 and lose their cards, and the dealer must then bid 1 (R-HOOK: 0
    # would make the bids add up to the one trick) and cannot make it. Played
    # out by the expert in every seat, the hand is worth 11, 10, 10 and 0
    # (R-SC-PAGAT), whatever the seats really did.
    rules = short_rules((1,))
    actions = [deal(["2H", "AS", "3D", "4C"], "2S"), Bid(1, 1), Bid(2, 0), Bid(3, 0), Bid(0, 1)]
    actions += [Play(s, Card.parse(c)) for s, c in ((1, "AS"), (2, "3D"), (3, "4C"), (0, "2H"))]
    review = review_record(Record(rules, NAMES, tuple(actions)), budget=TINY)
    (hand,) = review.hands
    assert hand.value == (0.0, 11.0, 10.0, 10.0)
    assert hand.luck == (-7.75, 3.25, 2.25, 2.25)
    assert review.summary[0].luck == -7.75 and review.summary[0].loss == 0  # nothing to decide: forced
    assert review.summary[0].rest_error == 0  # the same every time: nothing left to chance


def test_luck_is_shared_out_against_the_tables_mean() -> None:
    review = review_record(bot_match(31, sizes=(4, 2)), seed=2, budget=TINY)
    for hand in review.hands:
        assert sum(hand.luck) == pytest.approx(0, abs=0.01)
        mean = sum(hand.value) / len(hand.value)
        assert hand.luck == pytest.approx([v - mean for v in hand.value], abs=0.001)


@pytest.fixture(scope="module")
def gaps() -> list[tuple[int, int, float, float, float]]:
    """Every pair of seats in 24 simulated 3-hand matches (an expert, an
    intermediate and a beginner bot and a random player): score gap, the
    rest that luck and decisions leave, and its error."""
    out = []
    for m in range(24):
        review = review_record(bot_match(1000 + m, sizes=(5, 4, 3)), seed=1, budget=CHECK)
        for a in range(4):
            for b in range(a + 1, 4):
                g = explain(review, a, b)
                out.append((a, b, float(g.score), g.rest, g.error))
    return out


def test_luck_and_decisions_explain_the_score_gaps_within_the_error(
    gaps: list[tuple[int, int, float, float, float]],
) -> None:
    # score gap = luck gap - decision-loss gap + rest, the rest about the
    # size of its error: no match strays past 4 errors, and the rests
    # measured in errors average one in size (root mean square 0.6 to 1.6:
    # the error is neither too small nor too loose).
    z = [rest / error for _, _, _, rest, error in gaps]
    assert max(abs(x) for x in z) < 4
    rms = math.sqrt(sum(x * x for x in z) / len(z))
    assert 0.6 < rms < 1.6


def test_the_rest_leans_no_way_between_any_two_seats(
    gaps: list[tuple[int, int, float, float, float]],
) -> None:
    # Summed over the matches, no pair's rest leans towards one seat by more
    # than 3 standard errors: what luck and decisions leave is not a bias.
    for pair in {(a, b) for a, b, *_ in gaps}:
        z = [rest / error for a, b, _, rest, error in gaps if (a, b) == pair]
        assert abs(sum(z) / math.sqrt(len(z))) < 3, pair


def test_luck_and_decisions_explain_much_of_the_gaps(
    gaps: list[tuple[int, int, float, float, float]],
) -> None:
    # With a random player and a beginner at the table, the two explain at
    # least a fifth of the spread of the score gaps.
    scores = sum(score * score for _, _, score, _, _ in gaps)
    rests = sum(rest * rest for _, _, _, rest, _ in gaps)
    assert rests < 0.8 * scores
