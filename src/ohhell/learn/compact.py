"""Where each compact (batch) observation value sits in the full encoding."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..env.batch_observe import batch_layout
from ..env.encoding import LAYOUT, OBSERVATION_SIZE


def compact_index(rules: Any) -> np.ndarray[Any, np.dtype[np.intp]]:
    """full[compact_index(rules)] is the compact observation of ``rules``."""
    out = []
    for name, (a, e) in batch_layout(rules).items():
        start = LAYOUT["rule_flags"][0] + 5 if name == "devils_bridge_now" else LAYOUT[name][0]
        out.append(np.arange(start, start + (e - a)))
    return np.concatenate(out).astype(np.intp)


def full_size() -> int:
    return OBSERVATION_SIZE
