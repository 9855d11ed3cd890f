"""The finish model (ohhell.bots.finish): a seat's row of scores becomes its
expected score given the greedy finish's tricks, with the shipped chances."""

from __future__ import annotations

import random

import pytest

from ohhell import PRESETS, Observation, Phase, Scoring, seat_scores
from ohhell.bots import get_bot
from ohhell.bots import treesearch as treesearch_module
from ohhell.bots.accel import available
from ohhell.bots.finish import FEATURES, MOST_LEFT, WIDEST, made_chance, made_chances, steered
from ohhell.bots.treesearch import CardSearch
from ohhell.scoring import hand_score
from support import decisions

WIDTH = 2 * WIDEST + 1


def _chances(on_bid: float, off_by_one: float, off_more: float) -> list[float]:
    """A table with the same chance at every number of tricks left."""
    row = [off_more] * WIDTH
    row[WIDEST - 1] = row[WIDEST + 1] = off_by_one
    row[WIDEST] = on_bid
    return row * MOST_LEFT


def test_the_shipped_chances_load_and_read_as_chances() -> None:
    chances = made_chances()
    assert chances is not None and len(chances) == len(FEATURES)
    assert all(0.0 <= p <= 1.0 for p in chances)
    # With one trick left a finish on the bid is the real ending; with a whole
    # hand left the greedy finish's verdict is far from certain either way.
    assert made_chance(chances, 1, 0) > 0.95
    assert made_chance(chances, 1, 1) < 0.05
    assert 0.5 < made_chance(chances, 10, 0) < 0.9
    assert 0.3 < made_chance(chances, 10, 1) < 0.8
    # A finish closer to the bid makes it more often.
    for left in range(2, MOST_LEFT + 1):
        assert made_chance(chances, left, 0) > made_chance(chances, left, 1)
        assert made_chance(chances, left, 0) > made_chance(chances, left, -1)
    # Longer hands read the longest row; a finish further off than the table reads never makes it.
    assert made_chance(chances, 13, 1) == made_chance(chances, MOST_LEFT, 1)
    assert made_chance(chances, 5, WIDEST + 1) == 0.0
    assert made_chance(chances, 5, -WIDEST - 1) == 0.0


def test_a_sure_finish_leaves_the_scores_as_they_are() -> None:
    # R-SC-TRICKS-BONUS: with a finish that always ends as the real hand, the
    # row of scores by tricks is unchanged.
    row = [float(hand_score(Scoring.TRICKS_BONUS, 3, t)) for t in range(11)]
    assert steered(row, 3, 0, 10, _chances(1.0, 0.0, 0.0)) == row


def test_a_finish_off_the_bid_is_worth_its_chance_of_the_bid() -> None:
    # R-SC-TRICKS-BONUS: 1 a trick, 10 more for the bid exactly. Bid 3, no
    # tricks yet, 10 to play.
    row = [float(hand_score(Scoring.TRICKS_BONUS, 3, t)) for t in range(11)]
    got = steered(row, 3, 0, 10, _chances(0.7, 0.5, 0.2))
    assert got[3] == pytest.approx(0.7 * 13 + 0.3 * (2 + 4) / 2)  # a miss by one, either way
    assert got[4] == pytest.approx(0.5 * 13 + 0.5 * 4)
    assert got[2] == pytest.approx(0.5 * 13 + 0.5 * 2)
    assert got[6] == pytest.approx(0.2 * 13 + 0.8 * 6)
    assert got[7] == row[7]  # further off than the table reads
    assert got[3] > got[4] > got[6]


def test_only_the_tricks_a_seat_can_still_end_with_are_moved() -> None:
    # R-SC-PAGAT: 10 + bid exactly, nothing otherwise. The seat has 2 tricks
    # with 3 to play: it ends with 2 to 5.
    row = [float(hand_score(Scoring.PAGAT, 4, t)) for t in range(11)]
    chances = _chances(0.7, 0.5, 0.2)
    got = steered(row, 4, 2, 3, chances)
    assert got[4] == pytest.approx(0.7 * 14)  # both misses by one score 0
    assert got[2] == pytest.approx(0.2 * 14)
    assert got[0] == row[0] and got[9] == row[9]  # cannot happen: left alone
    # A bid it has passed, or can no longer reach, is scored as the finish ended.
    assert steered(row, 1, 2, 3, chances) == row
    assert steered(row, 6, 2, 3, chances) == row
    # A bid of the most it can still take misses only below.
    five = [float(hand_score(Scoring.PAGAT, 5, t)) for t in range(11)]
    top = steered(five, 5, 2, 3, chances)
    assert top[5] == pytest.approx(0.7 * 15 + 0.3 * five[4])
    assert top[4] == pytest.approx(0.5 * 15)


def _play_decisions(seed: int) -> list[Observation]:
    """The card choices among several in a 4-player, 8-card hand of intermediate bots."""
    rules = PRESETS["common"].replace(players=4, hand_sizes=(8,), first_dealer=0)
    return [
        obs
        for _, obs in decisions(rules, random.Random(seed))
        if obs.phase is Phase.PLAY and len(obs.legal_actions) > 1
    ]


def test_the_card_search_reads_the_steered_scores() -> None:
    # R-SC-TRICKS-BONUS: the search's table for the bids made is the core's
    # seat_scores, each row steered with the tricks taken and left.
    chances = made_chances()
    assert chances is not None
    for obs in _play_decisions(4)[::5]:
        search = CardSearch(obs, random.Random(1), None, pool=4, steer=chances)
        bids = [b or 0 for b in obs.bids]
        core = seat_scores(obs.rules, bids, obs.hand_size, first_bidder=(obs.dealer + 1) % 4)
        left = obs.hand_size - sum(obs.taken)
        seats = zip(core, bids, obs.taken, strict=True)
        want = [steered([float(x) for x in row], b, t, left, chances) for row, b, t in seats]
        assert search.tables[0] == want
        plain = CardSearch(obs, random.Random(1), None, pool=4)
        assert plain.tables[0] == [[float(x) for x in row] for row in core]


@pytest.mark.skipif(not available(), reason="the optional 'fast' extra (Numba) is not installed")
def test_the_steered_search_weighs_alike_compiled_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    # R-SC-TRICKS-BONUS: with the steered scores the compiled walk still plays
    # the Python walk's simulations, so a fixed budget decides the same.
    expert = get_bot("expert", worlds=8, simulations=150, steer=True)
    observations = _play_decisions(9)[:12]
    compiled = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    monkeypatch.setattr(treesearch_module, "compiled_tree", lambda *args: None)
    python = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    assert compiled == python
    again = [expert.analyse(obs, random.Random(i)) for i, obs in enumerate(observations)]
    assert again == python
