"""Regressions found by a review of the server: staleness across a restart, a
table left waiting on a gone bid-changer, a database that refuses writes, and
inputs that used to cost the server too much."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient

from ohhell.game import most_actions
from ohhell.web.app import Limits, create_app


def _app(tmp_path: Any, **settings: Any) -> Any:
    defaults: dict[str, Any] = {
        "bot_delay": 0,
        "think": 0.05,
        "rate": 1e6,
        "limits": Limits(create=None, connects=None),
    }
    return create_app(f"sqlite:///{tmp_path / 'r.db'}", **(defaults | settings))


def _state(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in ("state", "error"):
            return message


def _my_bid_state(ws: Any) -> dict[str, Any]:
    while True:
        m = _state(ws)
        if m["type"] == "state" and any(a["kind"] == "bid" for a in m["obs"]["legal"]):
            return m


def test_an_action_chosen_before_a_restart_is_stale_after_it(tmp_path: Any) -> None:
    # R-BID-ORDER: the bid made at version v is applied once; sending an action
    # for version v again after the server restarted must be refused as stale.
    with TestClient(_app(tmp_path)) as client:
        made = client.post("/api/tables", json={"seats": ["human", "random", "random", "random"]}).json()
        table, token = made["table"], made["token"]
        client.post(f"/api/tables/{table}/start", json={"token": token})
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_json({"type": "hello", "token": token})
            first = _my_bid_state(ws)
            bid = next(a for a in first["obs"]["legal"] if a["kind"] == "bid")
            ws.send_json({"type": "act", "version": first["version"], "action": bid})
            assert _state(ws)["version"] == first["version"] + 1
    with TestClient(_app(tmp_path)) as client, client.websocket_connect(f"/ws/{table}") as ws:
        ws.send_json({"type": "hello", "token": token})
        now = _state(ws)
        assert now["version"] > first["version"]
        legal = [a for a in now["obs"]["legal"] if a["kind"] != "change"] or [bid]
        ws.send_json({"type": "act", "version": first["version"], "action": legal[0]})
        refused = _state(ws)
        assert refused["type"] == "error" and refused["code"] == "stale", refused
        assert client.get(f"/api/tables/{table}").json()["version"] == now["version"]


def test_a_gone_player_who_may_change_a_bid_does_not_stop_the_table(tmp_path: Any) -> None:
    # R-BID-CHANGE: the bots wait for the person to keep or change the bid, but
    # a person who left counts as away after away_after and a bot keeps it.
    with TestClient(_app(tmp_path, away_after=0.3)) as client:
        made = client.post(
            "/api/tables",
            json={"options": {"first-dealer": "3"}, "seats": ["human", "random", "random", "random"]},
        ).json()
        table, token = made["table"], made["token"]
        client.post(f"/api/tables/{table}/start", json={"token": token})
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_json({"type": "hello", "token": token})
            state = _my_bid_state(ws)
            bid = next(a for a in state["obs"]["legal"] if a["kind"] == "bid")
            ws.send_json({"type": "act", "version": state["version"], "action": bid})
            after = _state(ws)
            assert after["obs"]["can_change"]  # the bots now wait for this person
        version = client.get(f"/api/tables/{table}").json()["version"]
        deadline = time.monotonic() + 10
        while client.get(f"/api/tables/{table}").json()["version"] == version:
            assert time.monotonic() < deadline, "the table stopped while its bid-changer was away"
            time.sleep(0.05)


def test_a_database_that_refuses_writes_does_not_freeze_the_server(tmp_path: Any) -> None:
    # A failed write leaves the table as it was and is retried after a pause;
    # meanwhile the server answers everyone else.
    app = _app(tmp_path)
    calls = [0]

    def refuse(*args: Any) -> None:
        calls[0] += 1
        raise RuntimeError("database is locked")

    with TestClient(app) as client:
        made = client.post("/api/tables", json={"seats": ["human", "random", "random", "random"]}).json()
        app.state.server.store.append = refuse
        assert (
            client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code
            == 200
        )
        answered: dict[str, int] = {}
        probe = threading.Thread(
            target=lambda: answered.update(status=client.get("/api/options").status_code)
        )
        probe.start()
        probe.join(5)
        assert answered.get("status") == 200
        time.sleep(1.5)
        assert 1 <= calls[0] <= 5  # retried about once a second, not in a tight loop
        assert client.get(f"/api/tables/{made['table']}").json()["version"] == 0


def test_deeply_nested_json_is_a_clear_error(tmp_path: Any) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with TestClient(_app(tmp_path)) as client:
        r = client.post("/api/tables", content=deep[:60_000], headers={"content-type": "application/json"})
        # Refused as it is read, before it is parsed whole: the nesting is named.
        assert r.status_code == 400 and "nests more than 32 levels deep" in r.json()["error"]
        made = client.post("/api/play-now", json={}).json()
        with client.websocket_connect(f"/ws/{made['table']}") as ws:
            ws.send_json({"type": "hello", "token": made["token"]})
            ws.send_text("[" * 2000 + "]" * 2000)
            m = _state(ws)
            while m["type"] != "error":
                m = _state(ws)
            assert m["code"] == "bad" and "nests more than 32 levels deep" in m["error"]


def test_a_declared_oversized_body_is_refused_unread(tmp_path: Any) -> None:
    with TestClient(_app(tmp_path)) as client:
        r = client.post("/api/replay", content=b"x" * (1024 * 1024 + 1))
        assert r.status_code == 400 and "larger than" in r.json()["error"]


def test_a_replay_is_bounded_by_what_a_match_can_hold(tmp_path: Any) -> None:
    # R-SEQ-FIXED: the longest match the rules allow replays; a record longer
    # than any match under its rules is refused unread, naming the bound.
    from ohhell.bots.simulate import random_match
    from ohhell.record import Record, dumps
    from ohhell.rules import make_rules

    rules = make_rules("pagat", {"players": "3", "sequence": "fixed", "fixed-hands": "200"})
    state = random_match(rules, random.Random(1))
    assert len(state.log) > 5000  # more than the fixed limit the server once had
    text = dumps(Record.from_state(state))
    with TestClient(_app(tmp_path)) as client:
        r = client.post("/api/replay", content=text.encode())
        assert r.status_code == 200, r.text
        assert len(r.json()["frames"]) == len(state.log)
        lines = text.splitlines()
        actions = [line for line in lines if line.split(" ", 1)[0] in ("bid", "play", "deal")]
        padded = "\n".join(lines + actions * 2) + "\n"
        r = client.post("/api/replay", content=padded.encode())
        assert r.status_code == 400 and str(most_actions(rules)) in r.json()["error"]


def test_a_finished_table_nobody_watches_leaves_memory_and_comes_back(tmp_path: Any) -> None:
    # R-WIN: the final standings stay readable from the stored log.
    app = _app(tmp_path)
    with TestClient(app) as client:
        made = client.post(
            "/api/tables",
            json={"options": {"hand-sizes": "1"}, "seats": ["human", "random", "random", "random"]},
        ).json()
        table, token = made["table"], made["token"]
        client.post(f"/api/tables/{table}/start", json={"token": token})
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_json({"type": "hello", "token": token})
            while True:
                m = _state(ws)
                if m["type"] != "state":
                    continue
                if m["obs"]["phase"] == "over":
                    break
                legal = [a for a in m["obs"]["legal"] if a["kind"] != "change"]
                if m["obs"]["can_change"] and not legal:
                    ws.send_json({"type": "keep"})
                elif legal:
                    ws.send_json({"type": "act", "version": m["version"], "action": legal[0]})
        deadline = time.monotonic() + 5
        while table in app.state.server.hub.tables:
            assert time.monotonic() < deadline, "the finished table stayed loaded"
            time.sleep(0.02)
        shown = client.get(f"/api/tables/{table}").json()
        assert shown["status"] == "over"
        seat = {"Authorization": f"Bearer {token}"}
        assert client.get(f"/api/tables/{table}/record", headers=seat).status_code == 200
