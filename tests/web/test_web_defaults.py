"""One default: "Play now", a new table and a new score sheet use the same rules
unless another preset is chosen, so the same game scores the same whether it
was played here or kept on the scorekeeper's sheet; and the scorekeeper's
JSON export never says two things about who dealt first (R-DEALER-DRAW,
R-DEALER-ROTATE)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import make_app

from ohhell.rules import PRESETS
from ohhell.scorekeeper import ScoreGame
from ohhell.web.protocol import DEFAULT_PRESET

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


def test_play_now_and_keep_score_share_one_default(client: TestClient) -> None:
    assert client.get("/api/options").json()["default_preset"] == DEFAULT_PRESET
    played = client.post("/api/play-now", json={}).json()
    table_rules = client.get(f"/api/tables/{played['table']}").json()["rules"]
    made = client.post("/api/tables", json={"name": "Ann"}).json()
    new_rules = client.get(f"/api/tables/{made['table']}").json()["rules"]
    sheet = client.post(
        "/api/scores", json={"players": ["Ann", "Bob", "Cid", "Dee"], "first_dealer": 1}
    ).json()
    sheet_rules = client.get(f"/api/scores/{sheet['id']}").json()["rules"]
    expected = PRESETS[DEFAULT_PRESET].options()
    assert table_rules == new_rules == expected
    # The sheet has the same rules, with the dealer picked named (the rule
    # option as the core reads it: seat 1 is Bob; the export counts from 1).
    assert sheet_rules == expected | {"first-dealer": "1"}


@pytest.mark.parametrize(("preset", "dealer"), [("common", 2), ("common", 0), ("pagat", 1)])
def test_the_json_export_agrees_with_itself(client: TestClient, preset: str, dealer: int) -> None:
    body = {"players": ["Ann", "Bob", "Cid", "Dee"], "first_dealer": dealer, "preset": preset}
    sheet = client.post("/api/scores", json=body).json()
    text = client.get(f"/api/scores/{sheet['id']}/export.json").text
    data = json.loads(text)
    assert data["first_dealer"] == dealer + 1  # the export counts seats from 1, as people do
    # The rules name the first dealer chosen, also where the preset draws for one.
    assert data["rules"]["first-dealer"] == str(dealer + 1)
    game = ScoreGame.from_json(text)
    assert game.current is not None and game.current.dealer == dealer
