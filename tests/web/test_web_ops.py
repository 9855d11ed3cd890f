"""What a host runs beside the game (docs/hosting.md): health, the drain,
metrics, logs, the host's orders (web/serving/ops.py, health.py, metrics.py,
logs.py, admin.py).

Most tests drive the application in-process; the one that needs a real
process (a signal, a listener of its own, the log on standard error)
starts ``ohhell serve`` on loopback. Those of several processes are in
test_web_ops_cluster.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")

from ops_support import HOST, free_port, get, play, post, serve, stop, until
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_support import connect, from_address, make_app, new_table, play_all, with_addresses

from ohhell.web.serving import admin, logs, metrics


def _sample(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


# --- Health, in-process ---


def test_healthz_and_readyz_answer_and_readyz_says_why_while_stopping(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    with TestClient(app) as client:
        r = client.get("/healthz")
        assert r.status_code == 200 and r.json() == {"alive": True}
        r = client.get("/readyz")
        assert r.status_code == 200 and r.json() == {"ready": True}
        app.state.server.ops.health.draining = True  # what SIGTERM does first
        r = client.get("/readyz")
        assert r.status_code == 503
        assert "stopping" in r.json()["reason"]
        assert client.get("/healthz").status_code == 200  # alive still: it is finishing its work


def test_readyz_is_503_when_the_database_does_not_answer(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    with TestClient(app) as client:
        store = app.state.server.store

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise OSError("the database is down")

        connect_before = store.engine.connect
        store.engine.connect = refuse
        try:
            r = client.get("/readyz")
        finally:
            store.engine.connect = connect_before
        assert r.status_code == 503
        assert r.json() == {"ready": False, "reason": "the database does not answer"}
        time.sleep(1.05)  # the answer is kept a second
        assert client.get("/readyz").status_code == 200


def test_handing_over_closes_sockets_with_1012_and_refuses_new_work(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    with TestClient(app) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], start=True)
        with connect(client, made["table"], made["token"]) as player:
            client.portal.call(app.state.server.ops.health.hand_over)
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(200):
                    player.ws.receive_text()
            assert closed.value.code == 1012
        assert app.state.server.hub.tables == {}  # let go of: another process may take it
        r = client.post("/api/tables", json={})
        assert r.status_code == 503 and "restarting" in r.json()["error"]
        assert client.get("/healthz").status_code == 200
        with (
            client.websocket_connect(f"/ws/{made['table']}") as ws,
            pytest.raises(WebSocketDisconnect) as again,
        ):
            ws.receive_text()
        assert again.value.code == 1012


# --- Metrics, in-process ---


def test_metrics_count_actions_latency_seats_and_refusals(tmp_path: Path) -> None:
    from ohhell.web.app import Limits

    limits = Limits(
        create="3/minute", sheets=None, connects=None, sockets_per_address=0, spectators_per_table=1
    )
    app = make_app(str(tmp_path / "t.db"), limits=limits)
    with TestClient(app) as client:
        ops = app.state.server.ops
        actions = _sample("ohhell_actions_total")
        timed = _sample("ohhell_action_seconds_count")
        refused = _sample("ohhell_refusals_total", limit="tables")
        made = new_table(client, seats=["human", "random", "random", "random"], level="random")
        client.portal.call(ops.sample)
        assert _sample("ohhell_tables", status="lobby") == 1
        assert _sample("ohhell_seats", kind="bot") == 3
        r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        assert r.status_code == 200
        with connect(client, made["table"], made["token"]) as player:
            client.portal.call(ops.sample)
            assert _sample("ohhell_seats", kind="connected") == 1
            assert _sample("ohhell_sockets") == 1
            final = play_all([player])
            client.portal.call(ops.sample)
            assert _sample("ohhell_tables", status="over") == 1
            acted = len(
                [m for m in player.seen if m["type"] == "state" and (m.get("last") or {}).get("seat") == 0]
            )
        # Every action of the match, the dealer's and the bots' too, once.
        assert _sample("ohhell_actions_total") - actions == final["version"]
        # Each of the person's actions was answered on its socket and timed.
        assert 1 <= _sample("ohhell_action_seconds_count") - timed <= acted
        for _ in range(3):
            client.post("/api/tables", json={})
        assert _sample("ohhell_refusals_total", limit="tables") - refused == 1
        at_once = _sample("ohhell_refusals_total", limit="at_once")
        with connect(client, made["table"]), client.websocket_connect(f"/ws/{made['table']}") as second:
            second.send_text(json.dumps({"type": "hello"}))  # a second watcher, past the table's one
            with pytest.raises(WebSocketDisconnect):
                for _ in range(20):
                    second.receive_text()
        assert _sample("ohhell_refusals_total", limit="at_once") - at_once == 1
        assert client.get("/metrics").status_code == 404  # never on the public port


def test_metrics_time_a_hint_s_wait_in_the_queue_and_its_search(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    with TestClient(app) as client:
        searched = _sample("ohhell_thinking_seconds_count")
        waited = _sample("ohhell_thinking_wait_seconds_count")
        made = new_table(client, seats=["human", "random", "random", "random"], level="random")
        r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        assert r.status_code == 200
        with connect(client, made["table"], made["token"]) as player:
            player.my_turn()
            player.send({"type": "hint"})
            player.until(lambda m: m.get("type") == "hint", "the hint")
        # One search asked for: it waited in the queue once and searched once.
        assert _sample("ohhell_thinking_wait_seconds_count") - waited == 1
        assert _sample("ohhell_thinking_seconds_count") - searched == 1


def test_errors_are_counted_by_what_failed() -> None:
    from sqlalchemy.exc import OperationalError

    metrics.count_errors()
    log = logging.getLogger("ohhell.web")
    database = _sample("ohhell_errors_total", part="database")
    redis_errors = _sample("ohhell_errors_total", part="redis")
    try:
        try:
            raise OperationalError("INSERT", {}, Exception("server closed the connection"))
        except OperationalError as err:
            raise RuntimeError("cannot store") from err
    except RuntimeError:
        log.exception("table abc: cannot store version 3")
    log.warning("cluster: the heartbeat could not reach Redis")
    log.info("table abc: seat 1 is back")  # not an error
    assert _sample("ohhell_errors_total", part="database") - database == 1
    assert _sample("ohhell_errors_total", part="redis") - redis_errors == 1


def test_metrics_address_is_loopback_unless_a_host_is_named() -> None:
    assert metrics.parse_address("9108") == ("127.0.0.1", 9108)
    assert metrics.parse_address("10.0.0.5:9108") == ("10.0.0.5", 9108)
    for bad in ("", "x", "99999", "example.com:80", "1.2.3.4:"):
        with pytest.raises(ValueError):
            metrics.parse_address(bad)


def test_the_grafana_dashboard_shows_only_metrics_the_server_exports() -> None:
    from prometheus_client import REGISTRY

    dashboard = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "ohhell.json"
    text = dashboard.read_text()
    json.loads(text)
    shown = set(re.findall(r"\bohhell_[a-z_]+", text))
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}
    exported = {
        family.name + suffix
        for family in REGISTRY.collect()
        if family.name.startswith("ohhell_")
        for suffix in suffixes.get(family.type, ("",))
    }
    assert len(shown) >= 10 and shown <= exported, shown - exported


# --- Logs ---


def _record(message: str, *args: Any, exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError("bad path /x\x00\nERROR forged")
        except ValueError:
            info = sys.exc_info()
    return logging.LogRecord("ohhell.web", logging.ERROR, __file__, 1, message, args, info)


def test_plain_and_json_lines_stay_one_record_and_hide_tokens() -> None:
    token = "A" * 20 + "b-_" * 8
    record = _record("GET %s failed for %s", "/t/\x00\r\nERROR forged line", token, exc=True)
    plain = logs.PlainFormatter().format(record)
    first, *rest = plain.split("\n")
    assert "\\x00\\r\\nERROR forged line" in first and token not in plain and "[hidden]" in first
    assert all(line.startswith("    ") for line in rest)  # a traceback cannot pass for a record
    assert "\x00" not in plain
    line = logs.JsonFormatter().format(_record("table %s: seat %d is back (%s)", "Ab12_x", 2, token))
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["table"] == "Ab12_x" and entry["seat"] == 2 and entry["level"] == "error"
    assert token not in line
    assert "\n" not in logs.JsonFormatter().format(record)


# --- The host's orders, in-process ---


def test_orders_reach_the_table_announce_close_ban_and_unban(tmp_path: Path) -> None:
    from ohhell.web.storage.store import Store

    app = make_app(str(tmp_path / "t.db"))
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    engine = store.engine
    with TestClient(with_addresses(app)) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], start=True)
        table = made["table"]
        with connect(client, table, made["token"], address="203.0.113.7") as player:
            admin.give_order(engine, "announce", "The server restarts in 5 minutes.")
            notice = player.until(lambda m: m["type"] == "notice", "the notice")
            assert notice["text"] == "The server restarts in 5 minutes."
            admin.give_order(engine, "close", table)
            player.until(lambda m: m["type"] == "table" and m["status"] == "ended", "the table ended")
            assert any(m["type"] == "chat" and m["text"] == admin.CLOSE_WORDS for m in player.seen)
            assert admin.ban(engine, admin.network("203.0.113.0/24"), "testing")
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(200):
                    player.ws.receive_text()
            assert closed.value.code == 4403
        barred = from_address("203.0.113.9")
        assert client.get("/api/options", headers=barred).status_code == 403
        assert client.get("/healthz", headers=barred).status_code == 200  # the balancer's checks pass
        assert client.get("/api/options", headers=from_address("198.51.100.1")).status_code == 200
        with (
            client.websocket_connect(f"/ws/{table}", headers=barred) as ws,
            pytest.raises(WebSocketDisconnect) as refused,
        ):
            ws.receive_text()
        assert refused.value.code == 4403
        assert admin.unban(engine, "203.0.113.0/24")
        until(lambda: client.get("/api/options", headers=barred).status_code == 200, what="the bar lifted")
    # A bar holds across a restart: it is read from the database.
    assert admin.ban(engine, "203.0.113.9/32", "again")
    store.close()
    with TestClient(with_addresses(make_app(str(tmp_path / "t.db")))) as client:
        assert client.get("/api/options", headers=from_address("203.0.113.9")).status_code == 403


def test_a_table_ordered_closed_while_no_server_ran_is_closed_at_the_next_start(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    with TestClient(make_app(db)) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], start=True)
    from ohhell.web.storage.store import Store

    store = Store(f"sqlite:///{db}")
    admin.give_order(store.engine, "close", made["table"])
    store.close()
    with TestClient(make_app(db)) as client:
        assert client.get(f"/api/tables/{made['table']}").json()["status"] == "ended"


def test_the_table_page_shows_the_host_s_notice_in_plain_words(tmp_path: Path) -> None:
    import threading

    uvicorn = pytest.importorskip("uvicorn")
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        pytest.skip(f"needs Debian's chromium at {chromium}")
    app = make_app(str(tmp_path / "t.db"))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        until(lambda: server.started, 15, "the server")
        made = post(f"http://{HOST}:{port}/api/play-now", {"name": "Ann"})
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
            try:
                page = browser.new_page()
                page.goto(f"http://{HOST}:{port}/t/{made['table']}")  # a watcher
                page.locator("#status").wait_for()
                until(lambda: app.state.server.hub.tables[made["table"]].spectators == 1, what="the watcher")
                admin.give_order(app.state.server.store.engine, "announce", "Back at noon: games go on.")
                shown = page.locator("#error", has_text="Back at noon")
                shown.wait_for(timeout=15_000)
                assert shown.inner_text().startswith("From the server: Back at noon: games go on.")
            finally:
                browser.close()
    finally:
        server.should_exit = True
        thread.join(10)


# --- Backups: SQLite while serving ---


def test_a_live_sqlite_database_backed_up_mid_match_restores_and_plays_on(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "live.db"
    copy = tmp_path / "copy.db"
    vacuumed = tmp_path / "vacuumed.db"
    with TestClient(make_app(str(db))) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], start=True)
        with connect(client, made["table"], made["token"]) as player:
            taken = 0
            while taken < 3:  # a few of the person's actions stored: mid-match
                state = player.my_turn()
                legal = [a for a in state["obs"]["legal"] if a["kind"] != "change"]
                if not legal:  # only a bid that may still change: keep it, so the bots go on
                    player.keep()
                    player.until(lambda m: m["type"] == "state" and not m["obs"]["can_change"], "kept")
                    continue
                player.act(legal[0], state["version"])
                player.until(
                    lambda m, v=state["version"]: (
                        m["type"] == "state" and m["version"] > v and (m.get("last") or {}).get("seat") == 0
                    ),
                    "the action taken",
                )
                taken += 1
            version = player.version
            # While the server runs and holds the file: the online backup
            # (sqlite3's .backup) and VACUUM INTO, as docs/hosting.md says.
            if shutil.which("sqlite3"):
                subprocess.run(["sqlite3", str(db), f".backup '{copy}'"], check=True, timeout=30)
            else:
                with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
                    source.backup(target)
            with sqlite3.connect(db) as source:
                source.execute("VACUUM INTO ?", (str(vacuumed),))
    for restored in (copy, vacuumed):
        with (
            TestClient(make_app(str(restored))) as client,
            connect(client, made["table"], made["token"]) as player,
        ):
            assert player.version >= version  # nothing stored before the backup is lost
            final = play_all([player])
            assert final["obs"]["phase"] == "over"


def test_serve_metrics_listener_json_logs_and_sigterm(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    metrics_port = free_port()
    proc, port = serve(
        tmp_path,
        "--host",
        "0.0.0.0",
        "--metrics",
        str(metrics_port),
        "--log-format",
        "json",
        "--log-level",
        "info",
        "--drain",
        "3",
    )
    err = b""
    try:
        made = post(f"http://{HOST}:{port}/api/play-now", {"name": "Ann"})
        seen: list[dict[str, Any]] = []
        asyncio.run(play(f"ws://{HOST}:{port}/ws/{made['table']}", made["token"], 3, seen))

        def scraped() -> str | None:
            status, text = get(f"http://{HOST}:{metrics_port}/metrics")
            found = status == 200 and any(
                line.startswith("ohhell_actions_total ") and float(line.split()[1]) >= 3
                for line in text.splitlines()
            )
            return text if found else None

        text = until(scraped, what="the actions counted")
        for name in (
            "ohhell_tables",
            "ohhell_seats",
            "ohhell_action_seconds_bucket",
            "ohhell_thinking_waiting",
        ):
            assert name in text
        # Refused to the public: not on the public port, and its own
        # listener answers on loopback only (127.0.0.2 reaches the public
        # port, which listens on every address, and not the metrics).
        assert get(f"http://127.0.0.2:{port}/healthz")[0] == 200
        assert get(f"http://{HOST}:{port}/metrics")[0] == 404
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", metrics_port), 1).close()

        async def drained() -> int:
            from websockets.asyncio.client import connect as ws_connect
            from websockets.exceptions import ConnectionClosed

            async with ws_connect(f"ws://{HOST}:{port}/ws/{made['table']}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
                await ws.recv()
                proc.send_signal(signal.SIGTERM)
                await asyncio.sleep(0.3)
                status, body = await asyncio.to_thread(get, f"http://{HOST}:{port}/readyz")
                assert status == 503 and "stopping" in body  # not ready at once
                assert (await asyncio.to_thread(get, f"http://{HOST}:{port}/healthz"))[0] == 200
                # ...and still serving during the --drain seconds, for the balancer to notice.
                assert (await asyncio.to_thread(get, f"http://{HOST}:{port}/api/options"))[0] == 200
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None
                    return closed.rcvd.code
                raise AssertionError("not closed")

        assert asyncio.run(drained()) == 1012
        proc.wait(15)
    finally:
        err = stop(proc)
    lines = [line for line in err.decode().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line one JSON object
    assert any("handed over" in e["message"] for e in entries)
    assert made["token"] not in err.decode()
    # No card at all: the server logs none, so no one's hand can be read there.
    words = err.decode().replace(made["table"], "")
    assert not re.search(r"\b(10|[2-9JQKA])[SHDC]\b", words), words
