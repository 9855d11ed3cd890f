"""Where each compact (batch) observation value sits in the full encoding."""

from __future__ import annotations

from ..encoding import OBSERVATION_SIZE, compact_index

__all__ = ["compact_index", "full_size"]


def full_size() -> int:
    return OBSERVATION_SIZE
