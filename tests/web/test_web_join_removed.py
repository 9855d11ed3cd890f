"""A removal in the lobby follows a person who only posted a join (docs/web.md,
"Chat"): the address their join came from is their seat's person's, socket
or not, so the host's removal bars it from the seats of that table; an
address of someone who sat there before and left is not barred with them.
In-process, each person at an address of their own (``web_support.with_addresses``).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import Still, connect, from_address, make_app, with_addresses

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ANN, BOB, CARL, ZED = "192.0.2.1", "192.0.2.2", "192.0.2.4", "192.0.2.3"


def join(client: TestClient, table: str, address: str, seat: int) -> Any:
    return client.post(
        f"/api/tables/{table}/join", json={"seat": seat, "name": "Someone"}, headers=from_address(address)
    )


def test_a_person_removed_after_only_posting_a_join_cannot_join_again(tmp_path: Path) -> None:
    with TestClient(with_addresses(make_app(str(tmp_path / "t.db"), now=Still()))) as client:
        body = {"name": "Ann", "seats": ["human"] * 4 + ["random"], "options": {"players": "5"}}
        r = client.post("/api/tables", json=body, headers=from_address(ANN))
        assert r.status_code == 200, r.text
        made = r.json()
        table = made["table"]
        # Carl sits in seat 2 and leaves again; Zed takes it by a join alone.
        carl = join(client, table, CARL, 2)
        assert carl.status_code == 200, carl.text
        with connect(client, table, carl.json()["token"], address=CARL) as player:
            player.send({"type": "leave"})
            player.until(lambda m: m["type"] == "welcome" and m["seat"] is None, "the seat given up")
        assert join(client, table, ZED, 2).status_code == 200
        # Bob takes seat 1 by a join alone: he never opens a socket.
        assert join(client, table, BOB, 1).status_code == 200
        with connect(client, table, made["token"], address=ANN) as ann:
            for seat in (1, 2):
                ann.send({"type": "remove", "seat": seat})
                ann.until(
                    lambda m, seat=seat: m["type"] == "table" and m["seats"][seat]["kind"] != "human",
                    f"seat {seat + 1} given to a bot",
                )
        # Seat 3 is open. Neither Bob nor Zed may take it from where their join came from...
        for address in (BOB, ZED):
            r = join(client, table, address, 3)
            assert r.status_code == 403, r.text
            assert "removed a player" in r.json()["error"]
        # ...while Carl, who sat in seat 2 before Zed and left, is not barred with Zed.
        r = join(client, table, CARL, 3)
        assert r.status_code == 200, r.text
