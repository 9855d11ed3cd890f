"""The new-table request names the field a refusal is about (``"field"``), so
the form can say it next to that field (docs/web.md, "HTTP")."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import make_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"options": {"hand-sizes": "30"}}, "hand-sizes"),
        ({"options": {"hook": "perhaps"}}, "hook"),
        ({"options": {"first-dealer": "5"}, "players": 4}, "first-dealer"),
        ({"preset": "nonsense"}, "preset"),
        ({"clock": 5000}, "clock"),
        ({"clock": "soon"}, "clock"),
        ({"name": "x" * 40}, "name"),
        ({"seats": "all bots"}, "seats"),
        # Each alone is fine; together they cannot be played: no one field to blame.
        ({"options": {"hand-sizes": "3,2", "devils-bridge": "yes"}}, None),
    ],
)
def test_a_refusal_names_its_field(client: TestClient, body: dict[str, Any], field: str | None) -> None:
    r = client.post("/api/tables", json={"name": "Ann", **body})
    assert r.status_code == 400, r.text
    assert r.json()["error"]
    assert r.json().get("field") == field
