"""Imported first by the experiments that use the product benches beside
them in bench/ (strength.py, openspiel_bridge.py): puts bench/ on the path,
as when a script is run from there."""

from __future__ import annotations

import sys
from pathlib import Path

_BENCH = str(Path(__file__).resolve().parent.parent)
if _BENCH not in sys.path:
    sys.path.insert(1, _BENCH)
