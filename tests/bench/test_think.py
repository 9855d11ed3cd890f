"""bench/think.py compares the expert's decisions at two fixed budgets: it
records one row for every decision of the measured seat that had a choice,
the regret is zero exactly where the two thinks agree on a clear best, and
the whole run is the same from the same seed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _think() -> ModuleType:
    spec = importlib.util.spec_from_file_location("think_bench", BENCH / "think.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["think_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_every_decision_with_a_choice_is_compared_and_reproducible() -> None:
    bench = _think()
    job = (3, 5, "common", 4, 4, 40, 160, "intermediate")
    rows = bench.play(job)
    # The measured seat makes a bid and plays four cards; the last card (and
    # any forced one) is no choice, so there are between one and four rows.
    assert 1 <= len(rows) <= 4
    assert {r["kind"] for r in rows} <= {"bid", "card"}
    assert all(r["choices"] > 1 and r["deal"] == 5 for r in rows)
    for r in rows:
        if r["agree"]:
            assert r["regret"] == 0.0
    assert bench.play(job) == rows  # fixed budgets: the same from the same seed


def test_the_summary_adds_regrets_a_deal_over_every_deal() -> None:
    bench = _think()
    keys = ("kind", "agree", "agree_again", "regret", "regret_again", "deal")
    rows = [
        dict(zip(keys, ("bid", True, True, 0.0, 0.0, 0), strict=True)),
        dict(zip(keys, ("card", False, True, 0.5, 0.0, 0), strict=True)),
        dict(zip(keys, ("card", False, False, 1.0, 0.25, 1), strict=True)),
    ]
    out = bench.summary(rows, deals=3)  # the third deal had no regret at all
    assert out["bid"]["decisions"] == 1 and out["card"]["decisions"] == 2
    assert out["card"]["agree_long"] == 0.0 and out["card"]["agree_short_again"] == 0.5
    assert out["all"]["regret_a_decision"] == 0.5
    assert out["regret_a_deal"] == 0.5  # (0.5 + 1.0 + 0) / 3
