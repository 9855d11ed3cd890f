"""Every terminal test plays with a home folder of its own (``$OHHELL_HOME``):
the remembered settings (say, forced cards on) and saved matches of whoever
runs the tests never change what a test sees."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path / "ohhell-home"))
