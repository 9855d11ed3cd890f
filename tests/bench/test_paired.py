"""bench/paired.py: two runs of bench/strength.py compared deal by deal on our
seats' own scores, and refused with the reason when they are not the same deals."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from support import bench_script


def _row(deal: int, ours: list[float], theirs: list[float], dealer: int = 0, seed: int = 7) -> dict[str, Any]:
    n = len(ours)
    return {
        "seed": seed,
        "deal": deal,
        "dealer": dealer,
        "diff": (sum(ours) - sum(theirs)) / n,
        "ours_scores": ours,
        "theirs_scores": theirs,
        "ours_exacts": [s >= 10 for s in ours],
    }


def test_runs_are_compared_on_our_own_scores_deal_by_deal() -> None:
    paired = bench_script("paired")
    a = [_row(0, [12, 1, 11, 0], [11, 11, 1, 0]), _row(1, [13, 13, 2, 1], [1, 2, 3, 4])]
    # B played deal 1 worse and deal 0 the same; its baseline of deal 0 differs
    # (as OpenSpiel's does from run to run); a deal only B has is left out.
    b = [
        _row(1, [3, 13, 2, 1], [1, 2, 3, 4]),
        _row(0, [12, 1, 11, 0], [12, 12, 0, 0]),
        _row(5, [0, 0, 0, 0], [0, 0, 0, 0]),
    ]
    out = paired.compare(paired.pair([a], [b]))
    assert out["deals"] == 2
    # deal 0: 0 on our own scores; deal 1: (13 - 3) / 4 = 2.5 a seat
    assert out["own_score_a_minus_b"] == 1.25
    assert out["ci95"] == round(1.96 * math.sqrt(((0 - 1.25) ** 2 + (2.5 - 1.25) ** 2) / 1) / math.sqrt(2), 3)
    # On the differences deal 0 also moves, by B's other baseline: (24 - 23) / 4 less for B.
    assert out["diff_a_minus_b"] == round((0.25 + 2.5) / 2, 3)
    assert out["exact_a"] == round((0.5 + 0.5) / 2, 3)
    assert out["exact_b"] == round((0.5 + 0.25) / 2, 3)
    assert out["same_baseline"] == 0.5


def test_several_runs_pair_in_order_and_only_with_their_own_seed() -> None:
    paired = bench_script("paired")
    a1, a2 = [_row(0, [10, 0, 0], [0, 0, 0], seed=1)], [_row(0, [13, 0, 0], [0, 0, 0], seed=2)]
    b1, b2 = [_row(0, [1, 0, 0], [0, 0, 0], seed=1)], [_row(0, [1, 0, 0], [0, 0, 0], seed=2)]
    out = paired.compare(paired.pair([a1, a2], [b1, b2]))
    assert out["deals"] == 2
    assert out["own_score_a_minus_b"] == round((9 / 3 + 12 / 3) / 2, 3)
    with pytest.raises(paired.RowsError, match="no deal is in both runs"):
        paired.pair([a1], [b2])  # another seed: other cards
    with pytest.raises(paired.RowsError, match="in pairs"):
        paired.pair([a1, a2], [b1])


def test_a_different_deal_under_the_same_number_is_refused() -> None:
    paired = bench_script("paired")
    a = [_row(3, [1, 2, 3, 4], [1, 2, 3, 4], dealer=0)]
    b = [_row(3, [1, 2, 3, 4], [1, 2, 3, 4], dealer=2)]
    with pytest.raises(paired.RowsError, match="deal 3: not the same deal"):
        paired.pair([a], [b])


def test_bad_files_are_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paired = bench_script("paired")
    broken = tmp_path / "broken.rows"
    broken.write_text('[{"deal": 0,\n  "dealer": }]')
    with pytest.raises(paired.RowsError, match=r"broken.rows: not JSON \(line 2"):
        paired.load_rows(broken)
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"deals": 3}))
    with pytest.raises(paired.RowsError, match="not a list of deals"):
        paired.load_rows(summary)
    partial = tmp_path / "partial.rows"
    partial.write_text(json.dumps([{"deal": 0, "dealer": 1}]))
    with pytest.raises(paired.RowsError, match="deal row 0 lacks ours_scores, ours_exacts, diff"):
        paired.load_rows(partial)
    assert paired.main(["--a", str(partial), "--b", str(tmp_path / "missing.rows")]) == 2
    assert "lacks" in capsys.readouterr().err


def test_a_real_run_paired_with_itself_differs_by_nothing(tmp_path: Path) -> None:
    strength, paired = bench_script("strength"), bench_script("paired")
    args = {
        "bot": "intermediate",
        "opponent": "beginner",
        "ours": "all",
        "seed": 11,
        "size": 10,
        "penalty": False,
        "preset": "common",
        "options": {"players": "4", "hand-sizes": "5"},
        "jobs": 1,
    }
    rows = [strength.one_deal((args, d)) for d in range(3)]
    assert all(r["seed"] == 11 for r in rows)
    path = tmp_path / "run.rows"
    path.write_text(json.dumps(rows))
    again = [strength.one_deal((args, d)) for d in range(3)]  # the same seed replays the same games
    out = paired.compare(paired.pair([paired.load_rows(path)], [again]))
    assert out["deals"] == 3
    assert out["own_score_a_minus_b"] == 0.0 and out["diff_a_minus_b"] == 0.0
    assert out["same_baseline"] == 1.0
