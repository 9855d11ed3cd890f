"""`ohhell serve`'s database: the store, restart recovery, two server
processes on one database (docs/web.md).

Every test runs on SQLite and, when ``OHHELL_TEST_POSTGRES`` names a
PostgreSQL database (e.g. ``postgresql://postgres@127.0.0.1:5432/test``), on
PostgreSQL too, in a schema of its own that is dropped afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

with warnings.catch_warnings():  # starlette's note that httpx is deprecated for TestClient
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import choices, connect, make_app, new_table, play_all

from ohhell.game import Bid
from ohhell.record import loads
from ohhell.rules import make_rules
from ohhell.web.cluster.hub import Hub
from ohhell.web.storage.store import SeatRow, StaleVersion, Store, actions_t
from ohhell.web.tables.table import Connection, TableError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")


def _postgres_url(url: str) -> str:
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url[len(plain) :]
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: an SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 't.db'}"
        return
    if not POSTGRES:
        pytest.skip("set OHHELL_TEST_POSTGRES=postgresql://user@host:port/db to test on PostgreSQL")
    pytest.importorskip("psycopg")
    base = make_url(_postgres_url(POSTGRES))
    schema = f"ohhell_test_{secrets.token_hex(6)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as db:
            db.execute(text(f"CREATE SCHEMA {schema}"))
        yield base.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.connect() as db:
            db.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


@contextlib.contextmanager
def store_at(url: str) -> Iterator[Store]:
    store = Store(url)
    try:
        yield store
    finally:
        store.close()


def log_of(url: str, table: str) -> tuple[str, ...]:
    """The stored action log, checking its versions are 0, 1, 2, ... with no gap."""
    with store_at(url) as store:
        with store.engine.connect() as db:
            versions = [
                r.version
                for r in db.execute(
                    select(actions_t.c.version)
                    .where(actions_t.c.table_id == table)
                    .order_by(actions_t.c.version)
                )
            ]
        assert versions == list(range(len(versions)))
        row = store.load(table)
        assert row is not None
        return row.lines


SEATS = [SeatRow(0, "Ann", "human", None, "a" * 64), SeatRow(1, None, "open", None, None)] + [
    SeatRow(s, f"Bot {s}", "bot", "random", None) for s in (2, 3)
]


# --- The store ---


def test_store_keeps_tables_seats_and_the_log(db_url: str) -> None:
    with store_at(db_url) as store:
        options = make_rules("pagat", {"hand-sizes": "2,1"}).options()
        store.create("t1", options, 2**61 + 5, 0, SEATS)
        assert store.table_ids() == ["t1"] and store.table_ids("playing") == []
        assert store.claim_seat("t1", SeatRow(1, "Bea", "human", None, "b" * 64))
        assert not store.claim_seat("t1", SeatRow(1, "Cy", "human", None, "c" * 64))  # taken
        assert not store.claim_seat("t1", SeatRow(2, "Cy", "human", None, "c" * 64))  # a bot's
        store.set_seat("t1", SeatRow(3, "Dee (beginner)", "bot", "beginner", None))
        store.set_status("t1", "playing")
        store.append("t1", 0, "deal 2S,3S|4S,5S|6S,7S|8S,9S 10S")
        store.append("t1", 1, "bid 0 1")
    with store_at(db_url) as store:  # a new process sees it all
        row = store.load("t1")
        assert row is not None
        assert row.options == options and row.seed == 2**61 + 5 and row.status == "playing"
        assert row.host_seat == 0
        assert row.seats == (
            SEATS[0],
            SeatRow(1, "Bea", "human", None, "b" * 64),
            SEATS[2],
            SeatRow(3, "Dee (beginner)", "bot", "beginner", None),
        )
        assert row.lines == ("deal 2S,3S|4S,5S|6S,7S|8S,9S 10S", "bid 0 1")
        assert store.table_ids("playing") == ["t1"]
        assert store.load("nope") is None


def test_a_version_can_be_stored_only_once(db_url: str) -> None:
    with store_at(db_url) as one, store_at(db_url) as two:
        one.create("t1", make_rules("pagat").options(), 1, 0, SEATS)
        one.append("t1", 0, "bid 0 1")
        with pytest.raises(StaleVersion):
            two.append("t1", 0, "bid 0 2")
        with pytest.raises(StaleVersion):
            one.append("t1", 0, "bid 0 1")
        two.append("t1", 1, "bid 1 0")
        row = one.load("t1")
        assert row is not None and row.lines == ("bid 0 1", "bid 1 0")


def test_load_refuses_a_log_with_a_gap(db_url: str) -> None:
    with store_at(db_url) as store:
        store.create("t1", make_rules("pagat").options(), 1, 0, SEATS)
        for version in (0, 1, 3):
            store.append("t1", version, f"bid {version} 0")
        with pytest.raises(ValueError, match="skips from version 1 to 3"):
            store.load("t1")


# --- Restart recovery ---


def test_a_restarted_server_resumes_every_table_where_it_stopped(db_url: str) -> None:
    options = {"hand-sizes": "3,2,1", "first-dealer": "3"}
    with TestClient(make_app(db_url)) as client:
        made = new_table(client, options=options, seats=["human", "random", "random", "random"], start=True)
        table = made["table"]
        with connect(client, table, made["token"]) as p:
            for _ in range(5):  # some of the match, then stop on seat 0's turn
                state = p.to_move()
                if p.obs["can_change"]:  # R-BID-CHANGE: keep the bid so the bots go on
                    p.keep()
                    p.until(lambda m: m["type"] == "state" and not m["obs"]["can_change"])
                    continue
                p.act(choices(state)[0])
                p.state_at(state["version"] + 1)
            before = p.to_move()
            if before["obs"]["can_change"]:
                p.keep()
                p.until(lambda m: m["type"] == "state" and not m["obs"]["can_change"])
                before = p.to_move()
            assert choices(before) and not before["obs"]["can_change"]
    stopped = log_of(db_url, table)
    assert len(stopped) == before["version"] >= 6

    with TestClient(make_app(db_url)) as client:
        assert client.get(f"/api/tables/{table}").json()["version"] == before["version"]
        with connect(client, table, made["token"]) as p:
            assert p.state is not None
            assert p.state["version"] == before["version"]
            assert p.state["obs"] == before["obs"]  # the same hands, bids, tricks, turn
            final = play_all([p])
        assert final["obs"]["phase"] == "over"
        seat = {"Authorization": f"Bearer {made['token']}"}
        record = loads(client.get(f"/api/tables/{table}/record", headers=seat).text)
    done = log_of(db_url, table)
    assert done[: len(stopped)] == stopped  # nothing lost, nothing doubled
    assert len(done) == final["version"] == len(record.actions)
    record.replay(complete=True)


def test_bots_go_on_after_a_restart_in_the_middle_of_a_hand(db_url: str) -> None:
    options = {"hand-sizes": "3,2", "first-dealer": "0"}  # seat 1, a bot, bids first
    with TestClient(make_app(db_url, bot_delay=60)) as client:
        made = new_table(client, options=options, seats=["human", "random", "random", "random"], start=True)
        table = made["table"]
        with connect(client, table, made["token"]) as person:  # its person came: its bots play from now on
            waiting = person.state_where(lambda m: m["obs"]["phase"] == "bid")
            assert waiting["obs"]["actors"] == [1]  # the bot is pausing before its bid
    assert len(log_of(db_url, table)) == 1  # only the deal
    with TestClient(make_app(db_url)) as client:  # only a watcher connects: the bots go on alone
        with connect(client, table) as watcher:
            turn = watcher.state_where(
                lambda m: m["obs"]["has_bid"] == [False, True, True, True], "seat 0's bid"
            )
            assert 0 in turn["obs"]["actors"]
        lines = log_of(db_url, table)
        assert len(lines) == turn["version"] == 4
        assert [line.split()[:2] for line in lines[1:]] == [["bid", "1"], ["bid", "2"], ["bid", "3"]]
        with connect(client, table, made["token"]) as p:
            assert play_all([p])["obs"]["phase"] == "over"
    assert loads(_record(db_url, table, made["token"])).replay(complete=True) is not None


def _record(url: str, table: str, token: str) -> str:
    with TestClient(make_app(url)) as client:
        r = client.get(f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return r.text


def test_tokens_survive_a_restart_and_are_stored_hashed(db_url: str) -> None:
    with TestClient(make_app(db_url)) as client:
        made = new_table(client, options={"hand-sizes": "1"}, seats=["human", "human", "random", "random"])
        r = client.post(f"/api/tables/{made['table']}/join", json={"seat": 1, "name": "Bea"})
        guest = r.json()["token"]
    with store_at(db_url) as store:
        row = store.load(made["table"])
        assert row is not None
        stored = [s.token_hash for s in row.seats[:2]]
    assert made["token"] not in stored and guest not in stored
    assert all(h is not None and len(h) == 64 for h in stored)
    with TestClient(make_app(db_url)) as client:
        with connect(client, made["table"], guest) as p:
            assert p.seat == 1
        with connect(client, made["table"], made["token"]) as p:
            assert p.welcome == {"type": "welcome", "seat": 0, "host": True}
        r = client.post(f"/api/tables/{made['table']}/start", json={"token": guest})
        assert r.status_code == 403
        r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        assert r.status_code == 200


# --- Two server processes on one database ---


async def _until(check: Any, what: str, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_two_hubs_on_one_database_never_store_one_version_twice(db_url: str) -> None:
    """Two processes (two Hubs, two Stores) share a table: an action stored by
    one makes the other's append of that version fail with StaleVersion; that
    process refuses its action as stale and reloads the table."""

    async def main() -> None:
        store1, store2 = Store(db_url), Store(db_url)
        hub1 = Hub(store1, bot_delay=0, think=0.05)
        hub2 = Hub(store2, bot_delay=0, think=0.05)
        try:
            rules = make_rules(
                "pagat", {"players": "3", "hand-sizes": "2,1", "first-dealer": "2", "hook": "no"}
            )
            table_id, host = hub1.create(rules, ["human"] * 3, host_seat=0, host_name="Ann", seed=12345)
            t1 = await hub1.get(table_id)
            assert t1 is not None
            await hub1.join(t1, 1, "Bea")
            await hub1.join(t1, 2, "Cy")
            await hub1.start(t1, host)
            t2 = await hub2.get(table_id)
            assert t2 is not None and t2.status == "playing"
            # Both processes' dealers try to deal version 0; one of them loses and reloads.
            await _until(lambda: t1.version == 1 and t2.version == 1, "both to hold the deal")
            assert t1.state.log == t2.state.log
            assert store1.load(table_id).lines == t1_lines(t1)  # type: ignore[union-attr]

            sent: list[str] = []

            async def send(text_: str) -> None:
                sent.append(text_)

            watcher = Connection(send, None, host=False)
            watcher.start()
            t2.attach(watcher)

            await t1.act(0, Bid(0, 0), 1)  # stored by process 1 as version 1
            assert t2.version == 1  # process 2 has not heard of it
            with pytest.raises(TableError) as refused:
                await t2.act(0, Bid(0, 1), 1)  # process 2's append of version 1 fails
            assert refused.value.code == "stale"
            assert t2.version == 2 and t2.state.log == t1.state.log  # reloaded
            assert store2.load(table_id).lines == t1_lines(t1)  # type: ignore[union-attr]
            await _until(lambda: any('"version":2' in m for m in sent), "the reloaded state")

            await t2.act(1, Bid(1, 1), 2)  # process 2 goes on from the reloaded table
            with pytest.raises(TableError) as refused:
                await t1.act(1, Bid(1, 0), 2)
            assert refused.value.code == "stale"
            assert t1.version == 3 and t1.state.log == t2.state.log
            lines = store1.load(table_id).lines  # type: ignore[union-attr]
            assert lines[1:] == ("bid 0 0", "bid 1 1")
            await watcher.stop()
        finally:
            await hub1.close()
            await hub2.close()
            store1.close()
            store2.close()

    asyncio.run(main())
    assert len(log_of(db_url, _only_table(db_url))) == 3


def t1_lines(table: Any) -> tuple[str, ...]:
    from ohhell.record import format_action

    return tuple(format_action(a) for a in table.state.log)


def _only_table(url: str) -> str:
    with store_at(url) as store:
        (table,) = store.table_ids()
        return table
