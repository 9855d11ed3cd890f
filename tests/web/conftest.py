"""Fixtures the web tests share."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """An in-process client (Starlette's TestClient) of a fresh server with its own SQLite file.

    Test files that need another server (a clock, limits, bots that think) define their own.
    """
    pytest.importorskip("starlette")
    pytest.importorskip("sqlalchemy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from starlette.testclient import TestClient
    from web_support import make_app

    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c
