"""bench/strength.py's summary: the split of seats by how our bid compared
with the opponent's on the same cards, which says whether the points go in
the bids or in the play."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from support import bench_script


def _row(
    ours: list[int], theirs: list[int], our_scores: list[float], their_scores: list[float]
) -> dict[str, Any]:
    return {
        "ours_bids": ours,
        "theirs_bids": theirs,
        "ours_scores": our_scores,
        "theirs_scores": their_scores,
        "ours_exacts": [s >= 10 for s in our_scores],
        "theirs_exacts": [s >= 10 for s in their_scores],
    }


def test_seats_are_split_by_our_bid_against_theirs() -> None:
    strength = bench_script("strength")
    rows = [
        # seat 0 bid lower and missed; seat 1 the same bid, both made; seats 2 and 3 higher.
        _row([1, 2, 3, 4], [2, 2, 2, 3], [2, 12, 13, 3], [12, 12, 2, 13]),
        _row([0, 2, 2, 2], [0, 2, 1, 1], [10, 1, 12, 12], [10, 12, 11, 11]),
    ]
    split = strength.by_bid_against_theirs(rows)
    assert split["lower"]["seats"] == 1 and split["lower"]["diff"] == -10.0
    assert split["same"]["seats"] == 3
    assert split["same"]["diff"] == round((0 + 0 - 11) / 3, 3)
    assert split["higher"]["seats"] == 4
    assert split["higher"]["diff"] == round((11 - 10 + 1 + 1) / 4, 3)
    # The three shares add up to the mean difference a seat.
    total = sum(v["share_of_diff_per_deal"] for v in split.values())
    seats = [a - b for r in rows for a, b in zip(r["ours_scores"], r["theirs_scores"], strict=True)]
    assert abs(total - sum(seats) / len(seats)) < 1e-2
    assert split["lower"]["exact_ours"] == 0.0 and split["lower"]["exact_theirs"] == 1.0
    # By bidding position: dealer 3 in the first row and 0 in the second, so
    # the first to bid is seat 0 there and seat 1 here.
    rows[0]["dealer"], rows[1]["dealer"] = 3, 0
    first = strength.by_bid_against_theirs(rows, position=1)
    assert first["lower"]["seats"] == 1 and first["lower"]["diff"] == -10.0  # seat 0, first row
    assert first["same"]["seats"] == 1 and first["same"]["diff"] == -11.0  # seat 1, second row
    assert "higher" not in first
    # Each position's shares add up to that position's mean difference.
    shares = first["lower"]["share_of_diff_per_deal"] + first["same"]["share_of_diff_per_deal"]
    assert abs(shares - (-10 - 11) / 2) < 1e-9
    by_position = [strength.by_bid_against_theirs(rows, p) for p in (1, 2, 3, 4)]
    assert sum(v["seats"] for split_p in by_position for v in split_p.values()) == 8


def test_seats_with_the_same_bid_are_split_by_its_size() -> None:
    strength = bench_script("strength")
    rows = [
        # Seats 1 (2 = 2) and 3 (5 = 5): the same bid; seats 0 and 2 differ and are left out.
        _row([1, 2, 3, 5], [2, 2, 2, 5], [2, 12, 13, 3], [12, 11, 2, 15]),
        # Seat 0 (0 = 0), seat 1 (2 = 2), seat 3 (6 = 6, counted with 5 and over).
        _row([0, 2, 2, 6], [0, 2, 1, 6], [10, 1, 12, 16], [10, 12, 11, 16]),
    ]
    split = strength.same_bid_by_size(rows)
    assert list(split) == ["0", "2", "5+"]
    assert split["0"] == {
        "seats": 1,
        "diff": 0.0,
        "ci95": split["0"]["ci95"],
        "exact_ours": 1.0,
        "exact_theirs": 1.0,
    }
    assert split["2"]["seats"] == 2 and split["2"]["diff"] == round((1 - 11) / 2, 3)
    assert split["2"]["exact_ours"] == 0.5 and split["2"]["exact_theirs"] == 1.0
    assert split["5+"]["seats"] == 2 and split["5+"]["diff"] == round((-12 + 0) / 2, 3)
    assert split["5+"]["exact_ours"] == 0.5
    # A smaller top folds more sizes together; no seat is counted twice.
    assert sum(v["seats"] for v in strength.same_bid_by_size(rows, top=2).values()) == 5


def test_bid_errors_count_seats_that_took_more_or_fewer_than_they_bid() -> None:
    strength = bench_script("strength")
    row = _row([1, 2, 3, 4], [2, 2, 2, 3], [2, 12, 13, 3], [12, 12, 2, 13])
    # Dealer 3: seat 0 bids first. Ours took 2, 2, 3 and 3 tricks; theirs 2, 2, 2, 3.
    row |= {"dealer": 3, "ours_tricks": [2, 2, 3, 3], "theirs_tricks": [2, 2, 2, 3]}
    errors = strength.bid_errors([row])
    assert errors["ours"]["over"] == 0.25 and errors["ours"]["under"] == 0.25
    assert errors["ours"]["mean_bid"] == 2.5
    assert errors["ours"]["by_position"]["1"] == {"seats": 1, "over": 1.0, "under": 0.0, "mean_bid": 1}
    assert errors["ours"]["by_position"]["4"]["under"] == 1.0
    assert errors["theirs"]["over"] == 0.0 and errors["theirs"]["under"] == 0.0
    # Rows written before tricks were recorded leave the count out rather than guess.
    assert strength.bid_errors([_row([1], [1], [11], [11]) | {"dealer": 0}]) == {}


def test_under_okenuff_a_seat_scores_its_net_after_settling() -> None:
    # R-SETTLE: Okenuff's players settle on the differences of their totals, so
    # a seat's result is what it nets (it sums to zero over the table); under
    # other scoring it is the seat's total.
    strength = bench_script("strength")
    okenuff = strength.make_rules("okenuff", {"hand-sizes": "4"})
    game = strength.play_ours(okenuff, 3, ["intermediate"] * 4, 5)
    nets = [seat.score for seat in game.seats]
    assert sum(nets) == 0 and any(nets)
    pagat = strength.make_rules("pagat", {"players": "4", "hand-sizes": "4"})
    totals = [seat.score for seat in strength.play_ours(pagat, 3, ["intermediate"] * 4, 5).seats]
    assert all(t >= 0 for t in totals) and sum(totals) > 0  # pagat scores no negative totals


def test_a_setting_the_rules_refuse_is_named_before_any_deal_is_played(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    strength = bench_script("strength")
    argv = ["strength.py", "--bot", "intermediate", "--opponent", "beginner", "--preset", "okenuff"]
    monkeypatch.setattr(sys, "argv", [*argv, "--players", "3", "--deals", "1"])
    with pytest.raises(SystemExit) as stop:
        strength.main()
    assert stop.value.code == 2
    assert "Okenuff's rules are for exactly 4 players, not 3" in capsys.readouterr().err
