"""bench/scaling.py: the same tournament over several numbers of worker
processes, timed, each checked against the first run's numbers."""

from __future__ import annotations

from support import bench_script


def test_every_run_is_timed_and_checked_against_the_first() -> None:
    scaling = bench_script("scaling")
    runs = [("jobs 1", 1, None), ("jobs 2", 2, None), ("jobs 3", 3, None)]
    rows = scaling.measure(["beginner", "random"], 6, 1, runs)
    assert [row["run"] for row in rows] == ["jobs 1", "jobs 2", "jobs 3"]
    assert all(row["same_numbers"] for row in rows)
    assert rows[0]["speedup"] == 1.0 and all(row["deals_per_second"] > 0 for row in rows)
    counts = [int(j) for j in scaling.default_jobs().split(",")]
    assert counts[0] == 1 and counts == sorted(set(counts))
