"""The offline site's server (``ohhell.web.local``) against ``ohhell serve``:
the same table seed and the same actions give the same messages, move by
move (welcome, table, state), so one table page works over either transport
(docs/site.md)."""

from __future__ import annotations

import json
import secrets
import tempfile
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient
from web_support import connect, make_app

from ohhell.web.local.server import LocalServer

Json = dict[str, Any]
SEED = 20261207


class _Seeded:
    """``secrets`` for the hub, with one table seed: tests only."""

    token_urlsafe = staticmethod(secrets.token_urlsafe)

    @staticmethod
    def randbelow(n: int) -> int:
        return SEED % n


def _choose(state: Json) -> Json | None:
    """The first legal action that is not a bid change: the same choice on both sides."""
    choices = [a for a in state["obs"]["legal"] if a["kind"] != "change"]
    if not choices:
        return None
    return {
        "type": "act",
        "version": state["version"],
        "action": {k: v for k, v in choices[0].items() if k != "seat"},
    }


def _play(recv: Callable[[], Json], send: Callable[[Json], None]) -> list[Json]:
    """Read until the match is over, acting on each state that asks us; every message read."""
    seen: list[Json] = []
    for _ in range(20000):
        message = recv()
        seen.append(message)
        if message["type"] == "error":
            raise AssertionError(f"refused: {message}")
        if message["type"] == "table" and message["status"] == "over":
            return seen  # the last message: the state that ended the match came before it
        if message["type"] == "state":
            act = _choose(message)
            if message["obs"]["phase"] == "over":
                continue
            if act is not None:
                send(act)
            elif message["obs"]["can_change"]:
                send({"type": "keep"})
    raise AssertionError("the match did not end")


def _server_messages(monkeypatch: pytest.MonkeyPatch, body: Json) -> tuple[Json, list[Json]]:
    from ohhell.web.cluster import hub

    monkeypatch.setattr(hub, "secrets", _Seeded)
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(f"{tmp}/t.db", clock=0, bot_delay=0)
        with TestClient(app) as client:
            made = client.post("/api/play-now", json=body).json()
            shown = client.get(f"/api/tables/{made['table']}").json()
            with connect(client, made["table"], made["token"], hello=False) as player:
                player.send({"type": "hello", "token": made["token"]})
                return shown, _play(player.recv, player.send)


def _local_messages(body: Json) -> tuple[Json, list[Json]]:
    server = LocalServer(bot_delay=0, seeds=iter([SEED]))
    inbox: list[Json] = []

    def take(outcome: str) -> Json:
        data: Json = json.loads(outcome)
        inbox.extend(json.loads(text) for _, text in data["out"])
        return data

    made = take(server.request("POST", "/api/play-now", json.dumps(body)))["answer"]["json"]
    shown = take(server.request("GET", f"/api/tables/{made['table']}"))["answer"]["json"]
    take(server.open(1, made["table"]))
    take(server.receive(1, json.dumps({"type": "hello", "token": made["token"]})))

    def recv() -> Json:
        while not inbox:
            wait = take(server.step())["wait"]
            assert wait is not None or inbox, "the local table waits with nothing sent"
        return inbox.pop(0)

    def send(message: Json) -> None:
        take(server.receive(1, json.dumps(message)))

    return shown, _play(recv, send)


def _collapsed(messages: list[Json], kind: str) -> list[Json]:
    """The messages of one type, a repeat of the one before dropped (the
    server tells comings and goings again a moment later)."""
    out: list[Json] = []
    for m in messages:
        if m["type"] == kind and (not out or out[-1] != m):
            out.append(m)
    return out


@pytest.mark.parametrize("level", ["intermediate", "beginner"])
def test_the_same_seed_and_actions_give_the_same_messages(
    monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    body = {"name": "Ann", "level": level}
    served_table, served = _server_messages(monkeypatch, body)
    local_table, local = _local_messages(body)
    # The table's id differs (each side makes its own); everything else is the same.
    for shown in (served_table, local_table):
        shown.pop("table")
    assert local_table == served_table
    assert served[0] == local[0] == {"type": "welcome", "seat": 0, "host": True}
    served_states, local_states = _collapsed(served, "state"), _collapsed(local, "state")
    assert len(served_states) > 20
    for number, (a, b) in enumerate(zip(served_states, local_states, strict=True)):
        assert a == b, f"state message {number} differs"
    tables = [_collapsed(messages, "table") for messages in (served, local)]
    for listed in tables:
        for m in listed:
            m.pop("table")
    assert tables[0][-1] == tables[1][-1]
    assert tables[1][-1]["status"] == "over"
