"""The cluster heals itself (web/cluster/broker.py, web/cluster/relay.py, web/storage/store.py):
one message the encoder refuses never drops another, a restart of Redis or
of PostgreSQL mid-hand leaves every table going on by itself, a relaying
process that dies lets its seats go (away, then covered by a bot), and a
rematch held by the other process can be joined.

The first tests need nothing but the package (tests/web/test_web_relay.py
has those of the messages between processes). Those with real processes run
when ``OHHELL_TEST_POSTGRES`` and ``OHHELL_TEST_REDIS`` name the servers and
skip with the reason otherwise; a test that restarts Redis starts a private
``redis-server`` of its own on a free loopback port (never the shared one),
and one that restarts PostgreSQL's connections ends only its own servers'
(they carry an ``application_name`` of their own).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from web_support import connect, join, make_app, new_table

from support import bench_script

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")
needs_services = pytest.mark.skipif(
    not (POSTGRES and REDIS),
    reason="set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS to test several server processes",
)

# --- A write that fails leaves the table as it was (SQLite, in-process) ---


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


def _refuse_writes(client: TestClient, *names: str) -> None:
    from sqlalchemy.exc import OperationalError

    store = client.app.state.server.store  # type: ignore[attr-defined]

    def refuse(*args: object, **kwargs: object) -> None:
        raise OperationalError("UPDATE", {}, Exception("the database went away"))

    for name in names:
        setattr(store, name, refuse)


@pytest.mark.parametrize("kind", ["end", "leave", "remove"])
def test_end_leave_and_remove_whose_write_fails_change_nothing_and_say_so(
    client: TestClient, kind: str
) -> None:
    made = new_table(client, options={"hand-sizes": "2"}, seats=["human", "human", "random", "random"])
    table = made["table"]
    ben = join(client, table, 1, "Ben")
    client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
    with connect(client, table, made["token"]) as host, connect(client, table, ben) as guest:
        host.state_where(lambda m: True, "the first state")
        _refuse_writes(client, "set_status", "set_seat", "set_setting")
        sender = guest if kind == "leave" else host
        sender.send({"type": kind, "seat": 1} if kind == "remove" else {"type": kind})
        refused = sender.until(lambda m: m["type"] == "error", "a refusal")
        assert refused["code"] == "storage" and "nothing changed" in refused["error"]
        live = client.app.state.server.hub.tables[table]  # type: ignore[attr-defined]
        assert live.status == "playing"
        assert live.seats[1].kind == "human" and live.seats[1].name == "Ben"
        assert not live.chat.removed and not live.chat.removed_addresses
        guest.send({"type": "ping"})
        guest.until(lambda m: m == {"type": "pong"}, "a pong: still spoken to")
    shown = client.get(f"/api/tables/{table}").json()
    assert shown["status"] == "playing" and shown["seats"][1]["kind"] == "human"


def test_a_table_another_process_took_closes_its_sockets_with_1012(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    made = new_table(client, seats=["human", "random", "random", "random"])
    table = made["table"]
    hub = client.app.state.server.hub  # type: ignore[attr-defined]
    with connect(client, table, made["token"]) as host:

        async def taken() -> None:  # what the hub does when it finds another holder
            hub.drop(hub.tables[table])

        client.portal.call(taken)  # type: ignore[union-attr]
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                host.ws.receive_json()
        assert closed.value.code == 1012  # "the server restarts": the page reconnects at once, not 4008


# --- Real processes on PostgreSQL and Redis ---


@pytest.fixture
def bench() -> Any:
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    return bench_script("failover")


@pytest.fixture
def schema(bench: Any) -> Iterator[Any]:
    made = bench.Schema(POSTGRES)
    try:
        yield made
    finally:
        made.drop()


async def _until(check: Any, seconds: float, what: str, people: Sequence[Any] = ()) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        seen = [(p.seat, max(p.seen, default=0), p.reconnects, p.errors[-3:]) for p in people]
        assert time.monotonic() < deadline, (
            f"timed out waiting for {what} (seat, version, reconnects, errors: {seen})"
        )
        await asyncio.sleep(0.05)


def _newest(people: list[Any]) -> int:
    return max((max(p.seen, default=0) for p in people), default=0)


def _people(bench: Any, table: str, seats: list[tuple[int, str]], servers: list[Any]) -> list[Any]:
    """The table's two people, the second relayed (on the process not holding it)."""
    holder = bench.holder_pid(_broker(servers), table)
    order = sorted(range(len(servers)), key=lambda i: servers[i].proc.pid != holder)
    return [
        bench.Person(table, seat, token, servers, first=order[i], think=0.03, rng=random.Random(seat))
        for i, (seat, token) in enumerate(seats)
    ]


def _broker(servers: list[Any]) -> str:
    return str(servers[0].broker)


def _start(bench: Any, db: str, broker: str, count: int, *extra: str) -> list[Any]:
    servers = bench.start_servers(db, broker, count, *extra)
    for server in servers:
        server.broker = broker
    return servers


def _get(server: Any, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.base + path, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, None


def _post(server: Any, path: str, body: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        server.base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


class PrivateRedis:
    """A redis-server of this test's own on a free loopback port, that it may
    stop and start again (nothing kept across a restart, as after a crash)."""

    def __init__(self, bench: Any) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("no redis-server to restart")
        self.binary = binary
        self.port = bench.free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        command = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "the private redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@needs_services
def test_a_command_on_a_connection_that_died_with_redis_is_tried_again_on_a_fresh_one(bench: Any) -> None:
    from ohhell.web.cluster.broker import Cluster

    redis = PrivateRedis(bench)

    async def go() -> None:
        cluster = Cluster(redis.url, f"test{secrets.token_hex(4)}")
        await cluster.start()
        try:
            assert await cluster.claim("t1") == cluster.worker  # the pool holds a connection now
            redis.stop()
            redis.start()
            # The pooled connection is dead; the command goes through anyway
            # (Redis forgot the holder: nobody holds the table).
            assert await cluster.holder("t1") is None
            assert await cluster.claim("t1") == cluster.worker
        finally:
            await cluster.close()

    try:
        asyncio.run(go())
    finally:
        redis.stop()


@needs_services
def test_a_redis_restart_mid_hand_leaves_every_table_going_on_by_itself(bench: Any, schema: Any) -> None:
    redis = PrivateRedis(bench)
    servers: list[Any] = []
    try:
        servers = _start(bench, schema.url, redis.url, 2)
        table, seats = bench.start_table(servers)
        people = _people(bench, table, seats, servers)

        async def play() -> None:
            stop = asyncio.Event()
            tasks = [asyncio.ensure_future(p.play(stop)) for p in people]
            try:
                await _until(lambda: _newest(people) >= 10, 30, "the hand to get under way")
                redis.stop()
                await asyncio.sleep(0.5)
                redis.start()
                before = _newest(people)
                # On by itself: the clients reconnect as the page does when
                # their sockets close (1012), and nobody does anything else.
                await _until(lambda: _newest(people) >= before + 12, 20, "the match to go on", people)
                assert sum(p.reconnects for p in people) >= 1
                # A table made afterwards works too (no pooled connection
                # that died with Redis may drop its messages).
                await asyncio.sleep(3)
                for server in servers:  # their pooled connections to Redis died with it
                    status, _ = await asyncio.to_thread(_get, server, f"/api/tables/{table}")
                    assert status == 200
                fresh, fresh_seats = bench.start_table(list(reversed(servers)))
                later = _people(bench, fresh, fresh_seats, servers)
                more = [asyncio.ensure_future(p.play(stop)) for p in later]
                tasks += more
                await _until(lambda: _newest(later) >= 12, 30, "the new table to be played", later)
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run(play())
        checked = bench.check_log(schema.url, table, people)
        assert checked["acknowledged"] > 0 and checked["missing_or_moved"] == 0
    finally:
        bench.stop_servers(servers)
        redis.stop()


@needs_services
def test_a_postgresql_restart_mid_hand_gives_no_500_and_loses_nothing(bench: Any, schema: Any) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"ohhell_restart_{secrets.token_hex(4)}"  # only this test's servers' connections are ended
    url = (
        make_url(schema.url)
        .update_query_dict({"application_name": name})
        .render_as_string(hide_password=False)
    )
    admin = create_engine(bench.postgres_url(POSTGRES), isolation_level="AUTOCOMMIT")
    servers: list[Any] = []
    try:
        servers = _start(bench, url, str(REDIS), 2)
        table, seats = bench.start_table(servers)
        people = _people(bench, table, seats, servers)

        def restart() -> int:
            with admin.connect() as db:
                ended = db.execute(
                    text(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE application_name = :name"
                    ),
                    {"name": name},
                ).scalar_one()
            return int(ended)

        async def play() -> None:
            stop = asyncio.Event()
            tasks = [asyncio.ensure_future(p.play(stop)) for p in people]
            try:
                await _until(lambda: _newest(people) >= 10, 30, "the hand to get under way")
                assert restart() >= 2  # both processes had connections in their pools
                before = _newest(people)
                # The first requests after it, to each process: answered, no 500.
                for server in servers:
                    status, shown = await asyncio.to_thread(_get, server, f"/api/tables/{table}")
                    assert status == 200 and shown["status"] == "playing"
                await _until(lambda: _newest(people) >= before + 12, 20, "the match to go on", people)
                assert restart() >= 1
                before = _newest(people)
                await _until(lambda: _newest(people) >= before + 8, 20, "the match to go on again", people)
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run(play())
        checked = bench.check_log(schema.url, table, people)
        assert checked["acknowledged"] > 0 and checked["missing_or_moved"] == 0
        assert "storage" not in {e for p in people for e in p.errors}  # no write failed
    finally:
        bench.stop_servers(servers)
        admin.dispose()


@needs_services
def test_a_relaying_process_killed_leaves_its_seats_away_covered_and_its_watchers_gone(
    bench: Any, schema: Any
) -> None:
    from websockets.asyncio.client import connect as ws_connect

    servers: list[Any] = []
    try:
        servers = _start(bench, schema.url, str(REDIS), 2, "--away", "1")
        table, seats = bench.start_table(servers, clock=0)  # no clock: only the away rule moves it on
        holder_pid = bench.holder_pid(str(REDIS), table)
        holder = next(s for s in servers if s.proc.pid == holder_pid)
        relaying = next(s for s in servers if s is not holder)
        (ann, ann_token), (bob, bob_token) = seats

        async def go() -> None:
            async with (
                ws_connect(f"ws://127.0.0.1:{holder.port}/ws/{table}") as host,
                ws_connect(f"ws://127.0.0.1:{relaying.port}/ws/{table}") as guest,
                ws_connect(f"ws://127.0.0.1:{relaying.port}/ws/{table}") as watcher,
            ):
                await host.send(json.dumps({"type": "hello", "token": ann_token}))
                await guest.send(json.dumps({"type": "hello", "token": bob_token}))
                await watcher.send(json.dumps({"type": "hello"}))
                seen: list[dict[str, Any]] = []

                async def read() -> None:
                    with contextlib.suppress(Exception):
                        async for raw in host:
                            seen.append(json.loads(raw))

                reader = asyncio.ensure_future(read())

                def shown() -> dict[str, Any] | None:
                    return next((m for m in reversed(seen) if m["type"] == "table"), None)

                def everyone_here() -> bool:
                    now = shown()
                    return now is not None and now["spectators"] == 1 and now["seats"][bob]["connected"]

                await _until(everyone_here, 15, "the relayed player and watcher to arrive")
                os.kill(relaying.proc.pid, signal.SIGKILL)
                relaying.proc.wait()

                def bob_gone() -> bool:
                    now = shown()
                    return now is not None and now["spectators"] == 0 and not now["seats"][bob]["connected"]

                await _until(bob_gone, 15, "the dead process's clients to be let go")

                def bob_covered() -> bool:
                    now = shown()
                    return now is not None and bool(now["seats"][bob]["away"])

                await _until(bob_covered, 15, "the seat to count as away")
                # A bot plays the seat: the match passes Bob's turns by itself.
                # Ann plays her own turns, as a person at the table would.
                deadline = time.monotonic() + 30
                played = set()
                while len(played) < 2:
                    assert time.monotonic() < deadline, "a bot never played the relayed player's seat"
                    states = [m for m in seen if m["type"] == "state"]
                    if states:
                        last = states[-1]
                        if last.get("last") and last["last"].get("seat") == bob:
                            played.add(last["version"])
                        if ann in (last["obs"].get("turn") or []) and last["obs"].get("legal"):
                            action = random.Random(last["version"]).choice(last["obs"]["legal"])
                            await host.send(
                                json.dumps({"type": "act", "version": last["version"], "action": action})
                            )
                            await _until(
                                lambda v=last["version"]: any(  # type: ignore[misc]
                                    m["type"] == "state" and m["version"] > v for m in seen
                                ),
                                10,
                                "Ann's action",
                            )
                    await asyncio.sleep(0.05)
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader

        asyncio.run(go())
        status, public = _get(holder, f"/api/tables/{table}")
        assert status == 200 and public["spectators"] == 0
    finally:
        bench.stop_servers(servers)


@needs_services
def test_a_rematch_held_by_the_other_process_is_joined_through_either(bench: Any, schema: Any) -> None:
    from websockets.asyncio.client import connect as ws_connect

    servers: list[Any] = []
    try:
        servers = _start(bench, schema.url, str(REDIS), 2)
        table, seats = bench.start_table(servers)
        (_, ann_token), (bob, bob_token) = seats
        holder_pid = bench.holder_pid(str(REDIS), table)
        holder = next(s for s in servers if s.proc.pid == holder_pid)
        other = next(s for s in servers if s is not holder)

        async def end() -> None:  # the host ends the match: a rematch may follow
            async with ws_connect(f"ws://127.0.0.1:{holder.port}/ws/{table}") as host:
                await host.send(json.dumps({"type": "hello", "token": ann_token}))
                await host.send(json.dumps({"type": "end"}))
                async for raw in host:
                    message = json.loads(raw)
                    if message["type"] == "table" and message["status"] == "ended":
                        return

        asyncio.run(end())
        status, made = _post(holder, f"/api/tables/{table}/rematch", {"token": ann_token})
        assert status == 200, made
        fresh = made["table"]
        # Ann's page opens the new table on the other process: it holds it now.
        status, _ = _get(other, f"/api/tables/{fresh}")
        assert status == 200 and bench.holder_pid(str(REDIS), fresh) == other.proc.pid
        # Bob's "Play again" reaches the old table's holder, which does not hold the new one.
        status, joined = _post(holder, f"/api/tables/{table}/rematch", {"token": bob_token})
        assert status == 200, joined
        assert joined == {"table": fresh, "seat": bob, "token": bob_token}
        again_status, again = _post(other, f"/api/tables/{table}/rematch", {"token": bob_token})
        assert again_status == 200 and again["seat"] == bob  # asked twice, through the other: the same
        status, public = _get(holder, f"/api/tables/{fresh}")
        assert status == 200 and public["seats"][bob]["kind"] == "human"
    finally:
        bench.stop_servers(servers)


POISON_TEXT = [
    '{"seat": 2361183241434822606848}',  # past 64 bits
    '{"name": "\\ud800"}',  # a lone surrogate
    '{"name": ' + "[" * 300 + "]" * 300 + "}",  # deeper than the encoder goes
]
POISON_HELLOS = [
    '{"type": "hello", "token": "x", "extra": 2361183241434822606848}',
    '{"type": "hello", "token": "\\ud800"}',
    '{"type": "hello", "extra": ' + "[" * 300 + "]" * 300 + "}",
]


def _post_text(server: Any, path: str, body: str) -> tuple[int, float]:
    request = urllib.request.Request(
        server.base + path, data=body.encode(), headers={"Content-Type": "application/json"}
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, time.monotonic() - started
    except urllib.error.HTTPError as err:
        return err.code, time.monotonic() - started


@needs_services
def test_poison_relayed_to_a_holder_is_refused_while_another_table_plays_on(bench: Any, schema: Any) -> None:
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import ConnectionClosed

    servers: list[Any] = []
    try:
        # No quota on joins: the poison is what is under test, not the quotas.
        servers = _start(bench, schema.url, str(REDIS), 2, "--create-limit", "none")
        target, _ = bench.start_table(servers)
        victim, victim_seats = bench.start_table(servers)
        holder_pid = bench.holder_pid(str(REDIS), victim)
        assert bench.holder_pid(str(REDIS), target) == holder_pid
        relaying = next(i for i, s in enumerate(servers) if s.proc.pid != holder_pid)
        # Both people of the other table are relayed through the process the attack comes through.
        people = [
            bench.Person(victim, seat, token, servers, first=relaying, think=0.03, rng=random.Random(seat))
            for seat, token in victim_seats
        ]
        answers: list[tuple[int, float]] = []
        hellos: list[str] = []

        async def attack(stop: asyncio.Event) -> None:
            url = f"ws://127.0.0.1:{servers[relaying].port}/ws/{target}"
            for hello in POISON_HELLOS:  # a few sockets: the per-address quota holds more off
                try:
                    async with ws_connect(url, open_timeout=5) as ws:
                        await ws.send(hello)
                        hellos.append(json.loads(await asyncio.wait_for(ws.recv(), 5))["type"])
                except (ConnectionClosed, TimeoutError, OSError) as err:
                    hellos.append(type(err).__name__)
            while not stop.is_set():
                for body in POISON_TEXT:
                    for op in ("join", "fill", "start", "rematch"):
                        path = f"/api/tables/{target}/{op}"
                        answers.append(await asyncio.to_thread(_post_text, servers[relaying], path, body))

        async def play() -> None:
            stop = asyncio.Event()
            tasks = [asyncio.ensure_future(p.play(stop)) for p in people]
            try:
                await _until(lambda: _newest(people) >= 4, 30, "the other table to get under way")
                attacker = asyncio.ensure_future(attack(stop))
                before = _newest(people)
                await _until(lambda: _newest(people) >= before + 25, 30, "the other table to play on")
                await _until(lambda: len(answers) >= 24, 30, "the attack to go round twice")
                stop.set()
                await attacker
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run(play())
        assert all(status != 503 and 400 <= status < 500 for status, _ in answers), answers
        assert max(took for _, took in answers) < 4.0  # answered, not left to the relay's 5 s wait
        assert all(kind == "error" for kind in hellos), hellos  # every hello told why, none left hanging
        assert sum(p.reconnects for p in people) == 0
        checked = bench.check_log(schema.url, victim, people)
        assert checked["acknowledged"] > 0 and checked["missing_or_moved"] == 0
    finally:
        bench.stop_servers(servers)


def test_while_the_storage_does_not_answer_a_page_is_told_to_try_again_not_a_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The broker (or the database) restarting: finding the table fails. The
    # socket is closed with 1013 ("try again later"; the page reconnects by
    # itself), a request is answered 503, and the log has one line each.
    redis_exceptions = pytest.importorskip("redis.exceptions")
    app = make_app(str(tmp_path / "t.db"))
    with TestClient(app) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], level="random")
        hub = app.state.server.hub

        async def unreachable(table_id: str) -> Any:
            raise redis_exceptions.ConnectionError(
                "Error 111 connecting to 127.0.0.1:6379. Connection refused."
            )

        hub.find = unreachable
        caplog.clear()
        with client.websocket_connect(f"/ws/{made['table']}") as ws:
            told = ws.receive_json()
            assert told["code"] == "busy" and "try again" in told["error"]
            assert ws.receive()["code"] == 1013
        r = client.get(f"/api/tables/{made['table']}")
        assert r.status_code == 503 and "try again" in r.json()["error"]
        lines = [r for r in caplog.records if "cannot be found now" in r.getMessage()]
        assert len(lines) == 2 and all(r.exc_info is None for r in lines)
        assert not [r for r in caplog.records if r.exc_info is not None]
