"""bench/experiments/bid_calibration.py records the quantity the calibration corrects:
the flat playouts' share of worlds that made a bid (``calibrate=1`` keeps
the bids flat), not the bid search's share of its simulations."""

from __future__ import annotations

from support import bench_script


def test_each_bid_is_recorded_with_the_flat_playouts_share() -> None:
    bench = bench_script("experiments/bid_calibration")
    worlds = 8
    # Exploring at every bid: the recorded bid is one of the best three the
    # playouts valued on every world, not only the best.
    records = bench.play((0, 5, 1.0, {"worlds": worlds, "simulations": None}))
    rules = bench.table(0, 5)
    assert len(records) == rules.players
    for r in records:
        # Flat playouts value every bid still in the running on the same
        # worlds; the bid search would report its visits under the bid.
        assert r["worlds"] == worlds
        assert 0.0 <= r["made_share"] <= 1.0
        assert isinstance(r["made"], bool)
    # Some seat explored away from its best bid (four seats, each with a
    # chance of two in three when three bids are in the running).
    assert any(not r["best"] for r in records)
