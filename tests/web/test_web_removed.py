"""The host's mute and removal follow the person, not only their seat's token
(docs/web.md, "Chat"): a removed or muted player who comes back as a
watcher (no token, or a new one) from the address their seat used may
not speak, and a removed player may not take a seat again at that table
from it. Other addresses are not touched. In-process, each person at an
address of their own (``web_support.with_addresses``).
"""

from __future__ import annotations

import contextlib
import json
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
from web_support import Player, Still, connect, from_address, make_app, with_addresses

from ohhell.web.storage.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ANN, BOB, ZED = "192.0.2.1", "192.0.2.2", "192.0.2.3"


@contextlib.contextmanager
def serve(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(with_addresses(make_app(str(tmp_path / "t.db"), now=Still()))) as client:
        yield client


def lobby(client: TestClient) -> dict[str, Any]:
    """Ann (host, seat 0) from ANN, Bob (seat 1) from BOB; seat 2 open, seat 3 a bot."""
    body = {"name": "Ann", "seats": ["human", "human", "human", "random"], "options": {"hand-sizes": "2,1"}}
    made = client.post("/api/tables", json=body, headers=from_address(ANN)).json()
    r = client.post(
        f"/api/tables/{made['table']}/join", json={"seat": 1, "name": "Bob"}, headers=from_address(BOB)
    )
    assert r.status_code == 200, r.text
    return {"table": made["table"], "tokens": [made["token"], r.json()["token"]]}


def say(player: Player, text: str, name: str | None = None) -> dict[str, Any]:
    """Say ``text`` and return what comes back to the speaker: the line, or the refusal."""
    player.send({"type": "chat", "text": text, **({"name": name} if name else {})})
    message: dict[str, Any] = player.until(
        lambda m: m["type"] in ("chat", "error"), "the line or its refusal"
    )
    return message


def join(client: TestClient, table: str, address: str, seat: int = 2) -> Any:
    return client.post(
        f"/api/tables/{table}/join", json={"seat": seat, "name": "Someone"}, headers=from_address(address)
    )


def test_a_removed_player_comes_back_as_a_watcher_and_cannot_speak_or_sit_again(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        t = lobby(client)
        table = t["table"]
        with (
            connect(client, table, t["tokens"][0], address=ANN) as ann,
            connect(client, table, t["tokens"][1], address=BOB) as bob,
        ):
            ann.send({"type": "remove", "seat": 1})
            bob.until(lambda m: m["type"] == "error" and m["code"] == "removed", "the removal")
        # Back without a token, and with another one: a watcher who may not speak.
        with connect(client, table, address=BOB) as bob:
            refused = say(bob, "it was not me", name="Robert")
            assert refused["type"] == "error" and refused["code"] == "chat"
            assert "removed a player using the same internet connection as you" in refused["error"]
        with connect(client, table, "not-a-token-of-this-table", address=BOB) as bob:
            assert say(bob, "hello?")["type"] == "error"
        r = join(client, table, BOB)  # a new token for the open seat: refused
        assert r.status_code == 403 and "not take a seat" in r.json()["error"], r.text
        # Anyone else watches and speaks, and may take the open seat.
        with connect(client, table, address=ZED) as zed:
            assert say(zed, "hi all", name="Zed")["type"] == "chat"
        assert join(client, table, ZED).status_code == 200
    # Stored with the table: the same after a restart.
    with serve(tmp_path) as client, connect(client, table, address=BOB) as bob:
        assert say(bob, "after the restart")["type"] == "error"
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    row = store.load(table)
    store.close()
    assert row is not None
    kept = json.loads(row.settings["removed_addresses"])
    assert len(kept) == 1 and BOB not in kept[0]  # hashed: the address itself is not stored


def test_a_muted_player_cannot_speak_as_a_watcher_until_unmuted(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        t = lobby(client)
        table = t["table"]
        with (
            connect(client, table, t["tokens"][0], address=ANN) as ann,
            connect(client, table, t["tokens"][1], address=BOB) as bob,
        ):
            ann.send({"type": "silence", "seat": 1})
            ann.until(lambda m: m["type"] == "table" and m["silenced"] == [1], "the mute")
            assert "muted you" in say(bob, "can you hear me")["error"]
            # A second tab without the token, under another name: still Bob.
            with connect(client, table, address=BOB) as watcher:
                refused = say(watcher, "and now?", name="Not Bob")
                assert refused["code"] == "chat" and "muted a player" in refused["error"]
            with connect(client, table, address=ZED) as zed:
                assert say(zed, "I can talk", name="Zed")["type"] == "chat"
            ann.send({"type": "silence", "seat": 1, "on": False})
            ann.until(lambda m: m["type"] == "table" and m["silenced"] == [], "the unmute")
            with connect(client, table, address=BOB) as watcher:
                assert say(watcher, "thanks", name="Bob's friend")["type"] == "chat"
            assert join(client, table, BOB).status_code == 200  # muting never bars a seat
