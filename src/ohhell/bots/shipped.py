"""The weights the package ships for its small fitted models (``data/*.json``).

Each file names the model's inputs (``features``) beside its ``weights``,
so weights fitted for another version of a model are refused rather than
misread: better no correction than a wrong one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path


def load_weights(filename: str, features: tuple[str, ...]) -> tuple[float, ...] | None:
    """The weights in ``data/filename``, or None when it is missing or was
    fitted for other inputs than ``features``."""
    try:
        text = resources.files("ohhell.bots").joinpath("data", filename).read_text()
    except (FileNotFoundError, OSError):
        return None
    data = json.loads(text)
    if tuple(data["features"]) != features:
        return None
    return tuple(float(w) for w in data["weights"])


def save_weights(
    path: Path, features: tuple[str, ...], weights: Sequence[float], samples: int, trained_by: str
) -> None:
    """Write fitted weights in the form ``load_weights`` reads (for the
    scripts that fit them), with how many samples and which command."""
    data = {
        "features": list(features),
        "weights": [round(float(v), 6) for v in weights],
        "samples": samples,
        "trained_by": trained_by,
    }
    path.write_text(json.dumps(data, indent=2) + "\n")


__all__ = ["load_weights", "save_weights"]
