"""What one stranger can do to ``ohhell serve``, bounded (docs/web.md, "Limits").

Each test here failed on the server before these limits: rule numbers that
filled memory, replays that grew with the square of the record, spectator
storms that closed a seated player's socket, endless bid changes, unlimited
table creation, tables that played themselves unopened, cross-site posts, a
connected player who never acts, missing security headers, slow-loris
connections and cross-site WebSockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_support import Json, connect, from_address, join, make_app, new_table, with_addresses

from ohhell import (
    MAX_BID_CHANGES,
    Bid,
    ChangeBid,
    Deal,
    IllegalActionError,
    apply,
    chance_action,
    check,
    legal_actions,
    new_game,
)
from ohhell.bots.simulate import random_match
from ohhell.record import Record, dumps
from ohhell.rules import make_rules
from ohhell.web.app import Limits
from ohhell.web.storage.store import Store

HUGE = ["20000000", "99999999999", "9" * 5000]


@contextlib.contextmanager
def serve(tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    with TestClient(with_addresses(make_app(str(tmp_path / "t.db"), **settings))) as client:
        yield client


# --- 1. Rule numbers are bounded before anything is built ---


@pytest.mark.parametrize("value", HUGE)
def test_a_huge_hand_size_is_a_clear_400_everywhere(tmp_path: Path, value: str) -> None:
    # R-START, R-SEQ-FIXED: sizes are checked against the pack before the
    # hand sequence is built, on every route that takes rule options.
    with serve(tmp_path) as client:
        for option in ("start-cards", "fixed-hands"):
            opts = {option: value, "sequence": "fixed"}
            r = client.post("/api/tables", json={"options": opts})
            assert r.status_code == 400, r.text
            assert len(r.json()["error"]) < 300  # the value is not echoed back whole
            r = client.post("/api/scores", json={"players": ["A", "B", "C"], "options": opts})
            assert r.status_code == 400, r.text
        record = "ohhell-record 1\nrule start-cards " + value + "\nseat 0 A\nseat 1 B\nseat 2 C\nseat 3 D\n"
        r = client.post("/api/replay", content=record.encode())
        assert r.status_code == 400 and "record" in r.json()["error"], r.text


# --- 2. A replay answers in proportion to the record ---


def test_a_long_record_replays_in_proportion_to_its_size(tmp_path: Path) -> None:
    # R-SEQ-FIXED: 7 players, 200 one-card hands, the longest such match.
    rules = make_rules("pagat", {"players": "7", "hand-sizes": ",".join(["1"] * 200)})
    state = random_match(rules, random.Random(3))
    text = dumps(Record.from_state(state))
    with serve(tmp_path) as client:
        r = client.post("/api/replay", content=text.encode())
    assert r.status_code == 200, r.text
    data = r.json()
    assert len(data["frames"]) == len(state.log)
    assert len(data["results"]) == len(state.results) == 200  # each hand's result once
    # Every frame repeated the whole score sheet so far (53 MB for this 40 KB
    # record); now each holds only what changed since the one before.
    assert len(r.content) < 30 * len(text)


# --- 3. Spectator storms ---


def test_a_crowd_of_watchers_costs_a_seated_player_a_few_messages(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        made = new_table(client, options={"players": "3"}, seats=["human", "random", "random"])
        table, token = made["table"], made["token"]
        with connect(client, table, token) as host:
            crowd = 40
            began = time.monotonic()
            with contextlib.ExitStack() as stack:
                for n in range(crowd):  # a crowd: people at many addresses
                    stack.enter_context(connect(client, table, address=f"10.1.0.{n}"))
            took = time.monotonic() - began
            time.sleep(0.6)  # the last comings and goings are told within 0.5 s
            host.send({"type": "ping"})
            told = []
            while (m := host.recv()) != {"type": "pong"}:
                told.append(m)
            assert all(m["type"] == "table" for m in told), told
            # Told at most once each half second (and once at the end), not
            # once per arrival and departure (80 messages before).
            assert len(told) <= 2 * (took / 0.5) + 3 < 2 * crowd
            assert told[-1]["spectators"] == 0


def test_watchers_beyond_the_limit_are_refused_but_players_never(tmp_path: Path) -> None:
    limits = Limits(create=None, spectators_per_table=2, sockets_per_address=0)
    with serve(tmp_path, limits=limits) as client:
        made = new_table(client, options={"players": "3"}, seats=["human", "human", "random"])
        table = made["table"]
        other = join(client, table, 1)
        with connect(client, table), connect(client, table):
            with client.websocket_connect(f"/ws/{table}") as ws:
                ws.send_json({"type": "hello"})
                refused = [ws.receive_json() for _ in range(1)]
                assert refused[0]["code"] == "busy" and "watchers" in refused[0]["error"]
                assert ws.receive()["code"] == 4429
            with connect(client, table, made["token"]) as host, connect(client, table, other) as p1:
                assert host.seat == 0 and p1.seat == 1


def test_one_address_cannot_take_every_watcher_s_place(tmp_path: Path) -> None:
    from ohhell.web.app import WATCHERS_PER_ADDRESS

    limits = Limits(create=None, spectators_per_table=WATCHERS_PER_ADDRESS + 1, sockets_per_address=0)
    with TestClient(with_addresses(make_app(str(tmp_path / "t.db"), limits=limits))) as client:
        table = new_table(client)["table"]
        with contextlib.ExitStack() as mine:
            for _ in range(WATCHERS_PER_ADDRESS):
                mine.enter_context(connect(client, table, address="10.0.0.1"))
            with client.websocket_connect(f"/ws/{table}", headers=from_address("10.0.0.1")) as ws:
                ws.send_json({"type": "hello"})
                refused = ws.receive_json()
                assert refused["code"] == "busy" and "your address watches" in refused["error"]
                assert ws.receive()["code"] == 4429
            with connect(client, table, address="10.0.0.2"):  # another address still watches
                pass


def test_one_address_may_hold_only_so_many_sockets(tmp_path: Path) -> None:
    limits = Limits(create=None, sockets_per_address=2)
    with serve(tmp_path, limits=limits) as client:
        table = new_table(client)["table"]
        with connect(client, table), connect(client, table):
            with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/{table}"):
                pass
            assert refused.value.code == 4429
        with connect(client, table):  # once they close, the address may connect again
            pass


def test_one_address_may_open_only_so_many_sockets_a_minute(tmp_path: Path) -> None:
    with serve(tmp_path, limits=Limits(create=None, connects="3/minute")) as client:
        table = new_table(client)["table"]
        for _ in range(3):
            with connect(client, table):
                pass
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(f"/ws/{table}"):
            pass
        assert refused.value.code == 4429


def test_a_spectator_that_falls_behind_is_dropped_not_a_seat() -> None:
    from ohhell.web.tables.table import QUEUE_LIMIT, SPECTATOR_QUEUE_LIMIT, Connection

    async def main() -> None:
        async def never(_: str) -> None:
            await asyncio.sleep(3600)

        watcher, player = Connection(never, None, host=False), Connection(never, 0, host=False)
        for _ in range(SPECTATOR_QUEUE_LIMIT + 1):
            watcher.post("x")
            player.post("x")
        assert watcher.closed and not player.closed
        assert SPECTATOR_QUEUE_LIMIT < QUEUE_LIMIT

    asyncio.run(main())


# --- 4. Bid changes are capped ---


def test_a_bid_may_be_changed_only_a_few_times() -> None:
    # R-BID-CHANGE: a correction, not an endless back and forth.
    rules = make_rules("pagat", {"hand-sizes": "3", "first-dealer": "3"})
    state = new_game(rules)
    apply(state, chance_action(state, random.Random(1)))
    apply(state, Bid(0, 0))
    for k in range(MAX_BID_CHANGES):
        assert ChangeBid(0, (k + 1) % 2) in legal_actions(state, 0)
        apply(state, ChangeBid(0, (k + 1) % 2))
    assert not [a for a in legal_actions(state, 0) if isinstance(a, ChangeBid)]
    before = len(state.log)
    with pytest.raises(IllegalActionError, match=f"at most {MAX_BID_CHANGES} times"):
        check(state, ChangeBid(0, 3))
    assert len(state.log) == before
    apply(state, Bid(1, 1))  # the next player bids: play goes on
    assert isinstance(state.log[0], Deal)


def test_a_person_tapping_bid_changes_cannot_hold_up_the_table(tmp_path: Path) -> None:
    # R-BID-CHANGE through the server: after the cap the seat may not change
    # again, so the bot after it bids.
    with serve(tmp_path) as client:
        made = new_table(
            client,
            options={"hand-sizes": "2", "first-dealer": "3"},
            seats=["human", "random", "random", "random"],
        )
        client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        with connect(client, made["table"], made["token"]) as me:
            version = me.my_turn()["version"]
            me.act({"kind": "bid", "bid": 0}, version)
            changes = 0
            while True:
                state = me.state_where(lambda m, v=version: m["version"] > v, "the next state")
                version = state["version"]
                if not state["obs"]["can_change"]:
                    break
                changes += 1
                me.act({"kind": "change", "bid": changes % 2}, version)
            assert changes == MAX_BID_CHANGES
            me.state_where(
                lambda m: m["obs"]["bids"][1] is not None or m["obs"]["phase"] != "bid", "seat 1 bid"
            )


# --- 5. Creation limits, unopened tables, lifetimes, cross-site posts ---


def test_creating_tables_is_limited_per_address(tmp_path: Path) -> None:
    with serve(tmp_path, limits=Limits(create="3/minute", sheets="2/minute")) as client:
        assert client.post("/api/play-now", json={}).status_code == 200
        assert client.post("/api/tables", json={}).status_code == 200
        assert client.post("/api/tables", json={}).status_code == 200
        r = client.post("/api/tables", json={})
        assert r.status_code == 429 and "too many" in r.json()["error"]
        body = {"players": ["A", "B", "C"], "first_dealer": 0}
        assert [client.post("/api/scores", json=body).status_code for _ in range(3)] == [200, 200, 429]


def test_a_table_nobody_opened_does_not_play_itself(tmp_path: Path) -> None:
    with serve(tmp_path, away_after=0.05) as client:
        made = client.post("/api/play-now", json={"preset": "common"}).json()  # no draw for dealer
        time.sleep(0.5)  # well past the time after which a bot covers an absent person
        version = client.get(f"/api/tables/{made['table']}").json()["version"]
        assert version <= 1  # the deal at most: nobody has opened the page, so no bot moved
        store = Store(f"sqlite:///{tmp_path / 't.db'}")
        with connect(client, made["table"]) as watcher:  # a watcher's visit starts nothing...
            watcher.ping()
            time.sleep(0.3)
            watcher.ping()
            assert watcher.version <= 1 and all(
                m["version"] <= 1 for m in watcher.seen if m["type"] == "state"
            )
            assert made["table"] not in store.table_ids("playing", opened=True)
            with connect(client, made["table"], made["token"]):  # ...its person's does
                watcher.state_where(lambda m: m["version"] > 3, "bots playing once the person came")
        assert store.table_ids("playing", opened=True) == [made["table"]]
        other = client.post("/api/play-now", json={}).json()
        assert other["table"] not in store.table_ids("playing", opened=True)  # not resumed after a restart
        store.close()


def test_abandoned_tables_expire_and_finished_ones_stay(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        lobby = new_table(client)["table"]
        playing = client.post("/api/play-now", json={}).json()["table"]
        hub = client.app.state.server.tables  # type: ignore[attr-defined]
        assert client.portal.call(hub.expire, 3600.0, 3600.0) == []  # all young
        gone = client.portal.call(hub.expire, 0.0, 0.0)
        assert sorted(gone) == sorted([lobby, playing])
        assert client.get(f"/api/tables/{lobby}").status_code == 404
        assert client.get(f"/api/tables/{playing}").status_code == 404


def test_cross_site_and_form_posts_are_refused(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        r = client.post("/api/tables", content=b'{"preset":"pagat"}', headers={"content-type": "text/plain"})
        assert r.status_code == 400 and "must be JSON" in r.json()["error"]
        r = client.post("/api/play-now", json={}, headers={"origin": "https://elsewhere.example"})
        assert r.status_code == 403 and "another site" in r.json()["error"]
        r = client.post("/api/play-now", json={}, headers={"origin": "http://testserver"})
        assert r.status_code == 200
    with serve(tmp_path, limits=Limits(create=None, origins=frozenset({"https://cards.example"}))) as client:
        r = client.post("/api/play-now", json={}, headers={"origin": "https://cards.example"})
        assert r.status_code == 200


# --- 6. The turn clock and the host's replacement ---


def _people_and_bots(client: TestClient, clock: float) -> tuple[str, str, str]:
    r = client.post(
        "/api/tables",
        json={
            "options": {"hand-sizes": "2", "first-dealer": "2", "players": "3"},
            "seats": ["human", "human", "random"],
            "clock": clock,
        },
    )
    assert r.status_code == 200, r.text
    made = r.json()
    other = join(client, made["table"], 1)
    assert client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code == 200
    return made["table"], made["token"], other


# A connected player who never acts, covered when the clock runs out: in
# tests/web/test_web_clock.py, on a server time the test moves by hand (a real
# 0.3 s clock here could run out before the first state under load).


def test_no_clock_means_no_cover_and_no_countdown(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        table, host_token, _ = _people_and_bots(client, clock=0)
        with connect(client, table, host_token) as host:
            first = host.my_turn()
            assert first["clocks"] == []


def test_the_host_can_hand_a_seat_to_a_bot_and_only_the_host(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        table, host_token, other = _people_and_bots(client, clock=0)
        with connect(client, table, host_token) as host, connect(client, table, other) as p1:
            first = host.my_turn()
            p1.send({"type": "replace", "seat": 0})
            assert p1.error()["code"] == "seat"
            host.act(first["obs"]["legal"][0], first["version"])
            host.state_where(lambda m: m["obs"]["can_change"], "the host's bid made")
            host.keep()  # R-BID-CHANGE: the host's bid stands
            host.send({"type": "replace", "seat": 1})
            host.state_where(lambda m: m["obs"]["bids"][1] is not None, "a bot bidding for seat 1")
            with connect(client, table) as watcher:  # everyone sees the seat is covered
                assert watcher.table is not None and watcher.table["seats"][1]["away"]


# --- 7. Transport: headers, origins, slow clients ---


def test_every_response_carries_the_security_headers(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        for path in ("/", "/api/options", "/api/tables/nope", "/static/common.js"):
            r = client.get(path)
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["x-frame-options"] == "DENY"
            assert r.headers["referrer-policy"] == "same-origin"


def test_a_websocket_from_another_site_is_refused(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        table = new_table(client)["table"]
        foreign = {"origin": "https://evil.example"}
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"/ws/{table}", headers=foreign),
        ):
            pass
        assert refused.value.code == 4403
        with connect(client, table):  # its own pages connect as before
            pass


def test_a_client_that_drops_mid_body_is_one_log_line(tmp_path: Path, caplog: Any) -> None:
    app = make_app(str(tmp_path / "t.db"))
    sent: list[Json] = []

    async def main() -> None:
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/api/tables",
            "raw_path": b"/api/tables",
            "query_string": b"",
            "headers": [(b"content-type", b"application/json"), (b"host", b"testserver")],
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
            "scheme": "http",
            "root_path": "",
            "http_version": "1.1",
        }
        bodies = [{"type": "http.request", "body": b'{"pre', "more_body": True}, {"type": "http.disconnect"}]

        async def receive() -> Json:
            return bodies.pop(0) if bodies else {"type": "http.disconnect"}

        async def send(message: Json) -> None:
            sent.append(message)

        await app(scope, receive, send)

    with caplog.at_level(logging.INFO, logger="ohhell.web"):
        asyncio.run(main())
    lines = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert not [r for r in caplog.records if r.exc_info]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            probe = socket.create_connection(("127.0.0.1", port), timeout=1)
            probe.close()
            break
        except OSError:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
    time.sleep(0.2)  # the probe's own connection is gone


SERVER = """
import sys
from ohhell.cli.serve import run
from ohhell.web.app import create_app
run(create_app(sys.argv[1]), "127.0.0.1", int(sys.argv[2]), head_timeout=0.5, per_address=3)
"""


def test_slow_and_crowding_connections_are_closed(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, f"sqlite:///{tmp_path / 's.db'}", str(port)])
    try:
        _wait_for(port)
        with contextlib.ExitStack() as sockets:  # the test's own ends closed, whatever happens
            slow = []
            for _ in range(3):
                s = sockets.enter_context(socket.create_connection(("127.0.0.1", port), timeout=20))
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finishes its head
                slow.append(s)
            crowd = sockets.enter_context(socket.create_connection(("127.0.0.1", port), timeout=20))
            assert crowd.recv(100) == b""  # a fourth waiting connection from one address: closed at once
            for s in slow:  # each slow one is closed after the head timeout (0.5 s), not kept for ever
                assert s.recv(100) == b""
        with socket.create_connection(("127.0.0.1", port), timeout=20) as ok:
            ok.sendall(b"GET /api/options HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert ok.recv(100).startswith(b"HTTP/1.1 200")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- Searching bots think away from the event loop ---


def test_the_expert_thinks_in_worker_processes_for_bots_and_hints(tmp_path: Path) -> None:
    # A second of search in a thread holds the interpreter's lock and slows
    # every table; ohhell serve thinks in processes (think_workers). Both
    # paths give the experts' moves and the player's hint.
    from ohhell.web.tables.thinking import Thinkers

    for workers in (1, 0):
        with TestClient(
            make_app(str(tmp_path / f"w{workers}.db"), think_workers=workers, think=0.02)
        ) as client:
            opts = {"hand-sizes": "2", "first-dealer": "0"}  # seats 1-3 (experts) bid before seat 0
            made = new_table(client, options=opts, seats=["human", "expert", "expert", "expert"], start=True)
            hub = client.app.state.server.tables  # type: ignore[attr-defined]
            assert isinstance(hub.thinkers, Thinkers) and hub.thinkers.workers == workers
            with connect(client, made["table"], made["token"]) as me:
                state = me.my_turn()
                assert all(b is not None for b in state["obs"]["bids"][1:])
                me.send({"type": "hint"})
                found = me.until(lambda m: m["type"] == "hint", "a hint")
                assert found["action"] in state["obs"]["legal"]


def test_tables_nobody_watches_leave_memory_when_idle_and_come_back_as_stored(tmp_path: Path) -> None:
    # Play-now tables made and never opened used to stay loaded until a restart.
    clock = [1000.0]
    with serve(tmp_path, now=lambda: clock[0]) as client:
        made = [client.post("/api/play-now", json={"preset": "common"}).json() for _ in range(3)]
        hub = client.app.state.server.tables  # type: ignore[attr-defined]
        assert {m["table"] for m in made} <= set(hub.tables)
        versions = {m["table"]: client.get(f"/api/tables/{m['table']}").json()["version"] for m in made}
        assert hub.unload_idle(300.0) == 0  # nothing is idle yet
        clock[0] += 301
        assert hub.unload_idle(300.0) == 3
        assert not {m["table"] for m in made} & set(hub.tables)
        for table, version in versions.items():  # opened again: loaded exactly as stored
            assert client.get(f"/api/tables/{table}").json()["version"] == version


def test_an_address_that_keeps_asking_past_its_quota_is_held_off() -> None:
    from ohhell.web.serving.guard import FLOOD, Quotas
    from ohhell.web.serving.transport import held, hold_off
    from ohhell.web.tables.table import TableError

    flooded: list[str] = []
    quotas = Quotas("2/minute", on_flood=flooded.append)
    quotas.take("tables", "10.9.9.9")
    quotas.take("tables", "10.9.9.9")
    for _ in range(FLOOD):
        with pytest.raises(TableError):
            quotas.take("tables", "10.9.9.9")
    assert flooded == ["10.9.9.9"]  # once, after FLOOD refusals in a row
    assert not held("10.9.9.8")
    hold_off("10.9.9.8", 30.0)
    assert held("10.9.9.8")
    hold_off("10.9.9.8", 0.0)
    assert not held("10.9.9.8")


def test_a_held_off_address_gets_its_connections_closed(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, f"sqlite:///{tmp_path / 'h.db'}", str(port)])
    try:
        _wait_for(port)
        body = b"{}"
        request = (
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 2\r\nConnection: close\r\n\r\n" + body
        )
        statuses = []
        for _ in range(30 + 10):  # the quota, then ten refusals in a row
            with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
                s.sendall(request)
                statuses.append(s.recv(12)[9:12])
        assert statuses.count(b"200") == 30 and statuses[-1] == b"429"
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            assert s.recv(100) == b""  # held off: closed before any answer
    finally:
        proc.terminate()
        proc.wait(timeout=30)
