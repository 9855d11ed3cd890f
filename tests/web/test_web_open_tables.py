"""Open tables (``GET /api/lobby``): public tables waiting for players are listed
for anyone to join in one click; private tables never are (docs/web.md,
"Open tables"). In-process through Starlette's TestClient."""

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


def make(client: TestClient, *, public: bool, name: str = "Ann", seats: list[str] | None = None) -> Any:
    body = {
        "name": name,
        "public": public,
        "seats": seats or ["human", "human", "human", "random"],
        "options": {"hand-sizes": "2,1"},
    }
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def listed(client: TestClient) -> dict[str, Any]:
    return {t["table"]: t for t in client.get("/api/lobby").json()["tables"]}


def test_public_tables_are_listed_and_private_ones_never(client: TestClient) -> None:
    private = make(client, public=False, name="Pat")
    public = make(client, public=True, name="Ann")
    shown = listed(client)
    assert private["table"] not in shown
    entry = shown[public["table"]]
    assert entry["title"] == "Ann's table"
    assert entry["rules"].startswith("Pagat's rules") and "4 players" in entry["rules"]
    assert entry["seats"] == 4 and entry["seats_free"] == 2
    assert entry["players"] == [{"name": "Ann", "bot": False}, {"name": "Dev", "bot": True}]
    assert client.get(f"/api/tables/{public['table']}").json()["public"] is True
    assert client.get(f"/api/tables/{private['table']}").json()["public"] is False


def test_joining_in_one_click_takes_the_first_open_seat(client: TestClient) -> None:
    made = make(client, public=True)
    first = client.post(f"/api/tables/{made['table']}/join", json={"name": "Bob"}).json()
    assert first["seat"] == 1
    assert listed(client)[made["table"]]["seats_free"] == 1
    second = client.post(f"/api/tables/{made['table']}/join", json={}).json()
    assert second["seat"] == 2
    seats = client.get(f"/api/tables/{made['table']}").json()["seats"]
    assert [s["name"] for s in seats[:3]] == ["Ann", "Bob", "Player 3"]
    # Full: no longer listed, and one more join is refused.
    assert made["table"] not in listed(client)
    full = client.post(f"/api/tables/{made['table']}/join", json={"name": "Cy"})
    assert full.status_code == 409 and "every seat is taken" in full.json()["error"]


def test_a_started_table_leaves_the_list(client: TestClient) -> None:
    made = make(client, public=True)
    assert made["table"] in listed(client)
    client.post(f"/api/tables/{made['table']}/fill", json={"token": made["token"], "level": "random"})
    client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
    assert made["table"] not in listed(client)


def test_the_list_survives_a_restart(tmp_path: Path) -> None:
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        made = make(client, public=True)
        hidden = make(client, public=False)
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        shown = listed(client)
        assert made["table"] in shown and hidden["table"] not in shown
        assert client.get(f"/api/tables/{made['table']}").json()["public"] is True


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_public_must_be_true_or_false(client: TestClient, value: Any) -> None:
    r = client.post("/api/tables", json={"name": "Ann", "public": value})
    assert r.status_code == 400 and '"public"' in r.json()["error"]
