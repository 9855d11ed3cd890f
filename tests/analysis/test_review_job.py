"""A review in the background (progress, cancel, a bound in time) and the
review kept beside its record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ohhell import dump
from ohhell.analysis import (
    Budget,
    ReviewJob,
    ReviewTimeout,
    cache_path,
    load_cached,
    review_file,
    review_record,
    save_cached,
)
from ohhell.analysis import cache as cache_module
from ohhell.analysis.job import ReviewCancelled
from ohhell.analysis.model import Thresholds
from review_support import TINY, bot_match


def test_a_job_reports_progress_and_gives_the_review() -> None:
    record = bot_match(21)
    job = ReviewJob(record, seed=4, budget=TINY)
    assert job.state == "waiting" and job.to_json()["done"] == 0
    job.start()
    review = job.result(timeout=120)
    assert job.state == "done"
    status = job.to_json()
    assert status["state"] == "done" and status["done"] == status["total"] > 0 and status["error"] is None
    assert status["hands_done"] == status["hands"] == 2
    assert review == review_record(record, seed=4, budget=TINY)


def test_a_cancelled_job_stops() -> None:
    job = ReviewJob(bot_match(21), budget=TINY)
    job.cancel()
    job.start()
    assert job.wait(60)
    assert job.state == "cancelled"
    with pytest.raises(ReviewCancelled):
        job.result()


def test_a_job_past_its_time_fails_with_the_reason() -> None:
    job = ReviewJob(bot_match(21), budget=TINY, max_seconds=0.0).start()
    assert job.wait(60)
    assert job.state == "failed" and "longer than" in job.to_json()["error"]
    with pytest.raises(ReviewTimeout):
        job.result()


def test_the_review_is_kept_beside_its_record_and_used_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.ohr"
    dump(bot_match(21), path)
    first = review_file(path, seed=4, budget=TINY)
    kept = cache_path(path)
    assert kept == tmp_path / "game.ohr.review.json" and kept.exists()
    assert json.loads(kept.read_text())["record"] == first.record

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the kept review should have been used")

    monkeypatch.setattr(cache_module, "review_record", no_work)
    assert review_file(path, seed=4, budget=TINY) == first
    with pytest.raises(AssertionError):  # another seed is another review
        review_file(path, seed=5, budget=TINY)


def test_a_kept_review_of_another_record_or_budget_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "game.ohr"
    record = bot_match(21)
    dump(record, path)
    review = review_record(record, seed=4, budget=TINY)
    assert save_cached(cache_path(path), review)
    where = cache_path(path)
    assert load_cached(where, record, seed=4, budget=TINY, thresholds=Thresholds()) == review
    assert load_cached(where, bot_match(22), seed=4, budget=TINY, thresholds=Thresholds()) is None
    assert load_cached(where, record, seed=4, budget=Budget(), thresholds=Thresholds()) is None
    assert load_cached(where, record, seed=4, budget=TINY, thresholds=Thresholds(), seats=[1]) is None
    where.write_text("{not json")
    assert load_cached(where, record, seed=4, budget=TINY, thresholds=Thresholds()) is None


def test_a_review_that_cannot_be_kept_is_still_given(tmp_path: Path) -> None:
    path = tmp_path / "game.ohr"
    dump(bot_match(21), path)
    Path(f"{cache_path(path)}.tmp").mkdir()  # the cache's file cannot be written, even by root
    assert review_file(path, seed=4, budget=TINY).decisions
    assert not cache_path(path).exists()
