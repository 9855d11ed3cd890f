"""A review in the background: start it, read its progress, take its result.

A server must not analyse a match while a request waits (a review takes
tens of seconds), so ``ReviewJob`` runs ``review_record`` in a thread of its
own (with ``jobs`` worker processes if asked) and answers at once: how far
it is (``progress``, ``to_json`` for a status request), whether it is done,
its ``Review``. ``max_seconds`` bounds it; ``cancel`` stops it at the next
unit of work.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from .. import Record
from .model import Budget, Review, Thresholds
from .review import Progress, review_record


class ReviewCancelled(RuntimeError):
    """The job was cancelled before it finished."""


class ReviewJob:
    """One review running in the background (``start``), with its progress."""

    def __init__(
        self,
        record: Record,
        *,
        seed: int = 1,
        budget: Budget | None = None,
        thresholds: Thresholds | None = None,
        seats: Iterable[int] | None = None,
        jobs: int = 1,
        max_seconds: float | None = 600.0,
    ) -> None:
        self.record = record
        self.seed = seed
        self.budget = budget or Budget()
        self.thresholds = thresholds or Thresholds()
        self.seats = None if seats is None else tuple(seats)
        self.jobs = jobs
        self.max_seconds = max_seconds
        self._progress: Progress | None = None
        self._review: Review | None = None
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> ReviewJob:
        """Begin the review in a daemon thread; returns the job."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name="ohhell-review", daemon=True)
            self._thread.start()
        return self

    def _main(self) -> None:
        try:
            self._review = review_record(
                self.record,
                seed=self.seed,
                budget=self.budget,
                thresholds=self.thresholds,
                seats=self.seats,
                jobs=self.jobs,
                progress=self._step,
                max_seconds=self.max_seconds,
            )
        except BaseException as err:  # reported through result(), never lost in the thread
            self._error = err
        finally:
            self._done.set()

    def _step(self, progress: Progress) -> None:
        self._progress = progress
        if self._cancel.is_set():
            raise ReviewCancelled("the review was cancelled")

    def cancel(self) -> None:
        """Stop the review at its next unit of work."""
        self._cancel.set()

    @property
    def progress(self) -> Progress | None:
        """The latest progress (None before the first unit is done)."""
        return self._progress

    @property
    def state(self) -> str:
        """``waiting``, ``running``, ``done``, ``failed`` or ``cancelled``."""
        if self._thread is None:
            return "waiting"
        if not self._done.is_set():
            return "running"
        if self._review is not None:
            return "done"
        return "cancelled" if isinstance(self._error, ReviewCancelled) else "failed"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end; True if it has ended."""
        return self._done.wait(timeout)

    def result(self, timeout: float | None = None) -> Review:
        """The review, once done (waiting up to ``timeout``); raises what the
        review raised, or ``TimeoutError`` if it is still running."""
        if not self._done.wait(timeout):
            raise TimeoutError("the review is still running")
        if self._error is not None:
            raise self._error
        assert self._review is not None
        return self._review

    def to_json(self) -> dict[str, Any]:
        """The job's state for a status request: ``{"state", "done", "total",
        "hands_done", "hands", "error"}``."""
        p = self._progress
        return {
            "state": self.state,
            "done": p.done if p else 0,
            "total": p.total if p else None,
            "hands_done": p.hands_done if p else 0,
            "hands": p.hands if p else None,
            "error": str(self._error) if self._error is not None and self.state == "failed" else None,
        }


__all__ = ["ReviewCancelled", "ReviewJob"]
