"""A review kept beside its record, so a match is analysed once.

The cache is a JSON file next to the record (``game.ohr`` ->
``game.ohr.review.json``) holding the last review made of it. It is used
only when it was made of the same record text with the same seed, budget,
thresholds and seats; anything else (another format, a damaged file) is
ignored and the review is made again. Writing it is best effort: a record
in a folder that cannot be written to is still reviewed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from .. import Record, load
from .model import Budget, Review, ReviewError, Thresholds
from .review import Progress, record_digest, review_record

SUFFIX = ".review.json"


def cache_path(record_path: str | os.PathLike[str]) -> Path:
    """Where the review of the record at ``record_path`` is kept."""
    path = Path(record_path)
    return path.with_name(path.name + SUFFIX)


def load_cached(
    path: str | os.PathLike[str],
    record: Record,
    *,
    seed: int,
    budget: Budget,
    thresholds: Thresholds,
    seats: Iterable[int] | None = None,
) -> Review | None:
    """The review cached at ``path`` if it was made of ``record`` with these
    settings; None otherwise (no file, another record, other settings)."""
    try:
        with open(path, encoding="utf-8") as f:
            review = Review.from_json(json.load(f))
    except (OSError, ValueError, ReviewError):
        return None
    wanted = tuple(sorted(set(range(record.rules.players) if seats is None else seats)))
    if (
        review.record != record_digest(record)
        or review.seed != seed
        or review.budget != budget
        or review.thresholds != thresholds
        or review.reviewed != wanted
    ):
        return None
    return review


def save_cached(path: str | os.PathLike[str], review: Review) -> bool:
    """Write ``review`` to ``path`` atomically; False if it could not be written."""
    tmp = f"{os.fspath(path)}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(review.to_json(), f)
        os.replace(tmp, path)
    except OSError:
        return False
    return True


def review_file(
    record_path: str | os.PathLike[str],
    *,
    seed: int = 1,
    budget: Budget | None = None,
    thresholds: Thresholds | None = None,
    seats: Iterable[int] | None = None,
    jobs: int = 1,
    progress: Callable[[Progress], None] | None = None,
    max_seconds: float | None = None,
    cache: bool = True,
) -> Review:
    """The review of the record file at ``record_path``, from its cache when
    one was made with the same settings, else made (``review_record``) and
    cached. Raises ``OSError`` or ``RecordError`` for a file that cannot be
    read or replayed."""
    record = load(record_path)
    budget = budget or Budget()
    thresholds = thresholds or Thresholds()
    seat_list = None if seats is None else list(seats)
    where = cache_path(record_path)
    if cache:
        found = load_cached(where, record, seed=seed, budget=budget, thresholds=thresholds, seats=seat_list)
        if found is not None:
            return found
    review = review_record(
        record,
        seed=seed,
        budget=budget,
        thresholds=thresholds,
        seats=seat_list,
        jobs=jobs,
        progress=progress,
        max_seconds=max_seconds,
    )
    if cache:
        save_cached(where, review)
    return review


__all__ = ["SUFFIX", "cache_path", "load_cached", "review_file", "save_cached"]
