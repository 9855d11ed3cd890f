"""The expert's bid calibration (ohhell.bots.calibration): the shipped
weights load, the correction is monotone, and it changes a bid's value only
through its chance of being made (R-SC-TRICKS-BONUS here: made and missed bids score
as the rules say; only how often each happens is corrected)."""

from __future__ import annotations

import random

import pytest

from ohhell import PRESETS, Bid, apply, chance_action, new_game, observe
from ohhell.bots import calibration
from ohhell.bots import expert as expert_module
from ohhell.bots.expert import ExpertBot


def _first_bid_observation(seed: int):  # type: ignore[no-untyped-def]
    rules = PRESETS["common"].replace(players=4, hand_sizes=(10,), first_dealer=0, hook=False)
    state = new_game(rules)
    rng = random.Random(seed)
    while state.is_chance:
        apply(state, chance_action(state, rng))
    return observe(state, 1)


def test_the_shipped_weights_load_and_match_the_features() -> None:
    weights = calibration.weights()
    assert weights is not None, "data/bid_calibration.json is missing or for another model"
    assert len(weights) == len(calibration.FEATURES)
    assert len(calibration.features(0.5, 2, 10, 80)) == len(calibration.FEATURES)


@pytest.mark.parametrize("bid", [0, 1, 3, 6])
def test_a_bid_the_playouts_make_more_often_is_made_more_often(bid: int) -> None:
    chances = [calibration.made_chance(m / 20, bid, 10, 80) for m in range(21)]
    assert all(0.0 < c < 1.0 for c in chances)
    assert chances == sorted(chances)
    assert chances[-1] - chances[0] > 0.5  # the playouts' share still carries most of the signal


def test_bids_report_the_playouts_share_and_cards_report_none() -> None:
    obs = _first_bid_observation(3)
    ranked = ExpertBot(worlds=40, calibrate=False).analyse(obs, random.Random(1))
    assert {e.action for e in ranked} == set(obs.legal_actions)
    assert all(isinstance(e.action, Bid) for e in ranked)
    assert all(e.made is not None and 0.0 <= e.made <= 1.0 for e in ranked)
    assert any(0.0 < e.made < 1.0 for e in ranked if e.made is not None)


def test_with_an_identity_correction_the_values_are_the_raw_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    obs = _first_bid_observation(5)
    raw = ExpertBot(worlds=40, calibrate=False, bid_search=False).analyse(obs, random.Random(1))
    monkeypatch.setattr(expert_module, "made_chance", lambda made, bid, hand_size, n: made)
    same = ExpertBot(worlds=40, calibrate=True).analyse(obs, random.Random(1))
    assert [(e.action, round(e.expected, 9)) for e in raw] == [(e.action, round(e.expected, 9)) for e in same]


def test_a_sure_correction_values_each_bid_as_made(monkeypatch: pytest.MonkeyPatch) -> None:
    # R-SC-TRICKS-BONUS (the common preset): a made bid of b scores 10 + b.
    obs = _first_bid_observation(7)
    monkeypatch.setattr(expert_module, "made_chance", lambda made, bid, hand_size, n: 1.0)
    ranked = ExpertBot(worlds=40, calibrate=True).analyse(obs, random.Random(1))
    for e in ranked:
        assert isinstance(e.action, Bid) and e.made is not None
        if 0.0 < e.made < 1.0:  # worlds of both kinds: the value is the made score
            assert e.expected == pytest.approx(10 + e.action.bid)
