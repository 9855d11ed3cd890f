"""bench/openspiel_bridge.py: our engine follows OpenSpiel's ``oh_hell`` deal
by deal, in both of OpenSpiel's scorings, so a strength figure measured
there is scored by our rules too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import openspiel_bridge as bridge


@pytest.mark.parametrize("penalty", [False, True])
def test_a_deal_scores_alike_in_both_games(penalty: bool) -> None:
    # R-SC-TRICKS-BONUS (OpenSpiel's default), R-SC-PENALTY (its off_bid_penalty):
    # play_deal checks the engine's scores against pyspiel's returns itself.
    seen_miss = False
    for deal in range(6):
        players = [bridge.Ours("intermediate"), bridge.OpenSpielISMCTS(20), bridge.Ours("beginner")]
        result = bridge.play_deal(deal, players, size=5, seed=3, penalty=penalty)
        for seat in result.seats:
            if seat.bid == seat.tricks:
                assert seat.score == 10 + seat.tricks
            elif penalty:
                seen_miss = True
                assert seat.score == -abs(seat.bid - seat.tricks)
            else:
                seen_miss = True
                assert seat.score == seat.tricks
    assert seen_miss


def test_the_bridge_refuses_a_game_openspiel_cannot_deal() -> None:
    with pytest.raises(ValueError, match="3 to 7 players"):
        bridge.load_game(size=20, players=4, penalty=True)
