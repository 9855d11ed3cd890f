"""Play again (``POST /api/tables/{id}/rematch``): at the end of a match the
first player to ask makes a new table with the same rules, seats and clock;
each other person's seat is kept for them until they ask too; bots keep
theirs and take the seats nobody takes back when it starts (docs/web.md,
"Rematch"). In-process through Starlette's TestClient."""

from __future__ import annotations

import contextlib
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
from web_support import connect, join, make_app, play_all

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

OPTIONS = {"hand-sizes": "2,1", "players": "4"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


def finished(client: TestClient) -> dict[str, Any]:
    """Ann (host, seat 0), Bob and Cy (seats 1, 2) and a bot play a short match to the end."""
    body = {"name": "Ann", "options": OPTIONS, "seats": ["human", "human", "human", "beginner"], "clock": 90}
    made = client.post("/api/tables", json=body).json()
    table = made["table"]
    tokens = [made["token"], join(client, table, 1, "Bob"), join(client, table, 2, "Cy")]
    assert client.post(f"/api/tables/{table}/start", json={"token": tokens[0]}).status_code == 200
    with contextlib.ExitStack() as stack:
        players = [stack.enter_context(connect(client, table, t)) for t in tokens]
        assert play_all(players)["obs"]["phase"] == "over"
    return {"table": table, "tokens": tokens}


def rematch(client: TestClient, table: str, token: str | None) -> Any:
    return client.post(f"/api/tables/{table}/rematch", json={"token": token})


def test_play_again_keeps_seats_rules_and_bots(client: TestClient) -> None:
    old = finished(client)
    first = rematch(client, old["table"], old["tokens"][1])  # Bob asks first: he hosts it
    assert first.status_code == 200, first.text
    new = first.json()
    assert new["seat"] == 1 and new["token"] == old["tokens"][1] and new["table"] != old["table"]
    before = client.get(f"/api/tables/{old['table']}").json()
    assert before["rematch"] == {"table": new["table"], "by": "Bob"}
    table = client.get(f"/api/tables/{new['table']}").json()
    assert table["status"] == "lobby" and table["host_seat"] == 1 and table["clock"] == 90
    assert table["rules"] == before["rules"]
    kinds = [(s["name"], s["kind"], s["level"]) for s in table["seats"]]
    assert kinds == [
        ("Ann", "invited", None),
        ("Bob", "human", None),
        ("Cy", "invited", None),
        ("Dev", "bot", "beginner"),
    ]
    # Ann accepts: her seat and her token again; asking twice changes nothing.
    for _ in range(2):
        again = rematch(client, old["table"], old["tokens"][0]).json()
        assert again == {"table": new["table"], "seat": 0, "token": old["tokens"][0]}
    # Bob, the host, starts without Cy: a bot takes Cy's seat.
    started = client.post(f"/api/tables/{new['table']}/start", json={"token": old["tokens"][1]})
    assert started.status_code == 200, started.text
    seats = started.json()["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert seats[2]["name"] != "Cy" and seats[3]["level"] == "beginner"
    late = rematch(client, old["table"], old["tokens"][2])
    assert late.status_code == 409 and "without you" in late.json()["error"]


def test_a_kept_seat_is_not_taken_by_its_token_until_accepted(client: TestClient) -> None:
    old = finished(client)
    new = rematch(client, old["table"], old["tokens"][0]).json()
    with connect(client, new["table"], old["tokens"][1]) as bob:  # Bob has not asked yet: he watches
        assert bob.welcome is not None and bob.welcome["seat"] is None
    joined = client.post(f"/api/tables/{new['table']}/join", json={"seat": 1, "name": "Zed"})
    assert joined.status_code == 409  # nobody else may take it either


def test_only_players_of_a_finished_match_may_ask(client: TestClient) -> None:
    old = finished(client)
    assert rematch(client, old["table"], None).status_code == 403
    assert rematch(client, old["table"], "not-a-token").status_code == 403
    made = client.post("/api/tables", json={"name": "Ann", "options": OPTIONS}).json()
    early = rematch(client, made["table"], made["token"])
    assert early.status_code == 409 and "finished match" in early.json()["error"]


def test_a_rematch_survives_a_restart(tmp_path: Path) -> None:
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        old = finished(client)
        new = rematch(client, old["table"], old["tokens"][0]).json()
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        assert client.get(f"/api/tables/{old['table']}").json()["rematch"]["table"] == new["table"]
        seats = client.get(f"/api/tables/{new['table']}").json()["seats"]
        assert [s["kind"] for s in seats[:3]] == ["human", "invited", "invited"]
        accepted = rematch(client, old["table"], old["tokens"][2]).json()
        assert accepted["seat"] == 2
        with connect(client, new["table"], old["tokens"][2]) as cy:
            assert cy.welcome is not None and cy.welcome["seat"] == 2


def test_a_watcher_sees_the_offer(client: TestClient) -> None:
    old = finished(client)
    with connect(client, old["table"]) as watcher:
        new = rematch(client, old["table"], old["tokens"][2]).json()
        message = watcher.until(lambda m: m["type"] == "table" and m.get("rematch") is not None, "the offer")
        assert message["rematch"] == {"table": new["table"], "by": "Cy"}
