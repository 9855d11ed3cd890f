"""Post-game reviews at the server (web/serving/reviews.py; docs/web.md, "Review").

Who may see a review: a player of the table (by their seat's token), anyone
for a public table, never anyone before the end (the record of a match
under way holds cards nobody may see yet). A review is made once and served
from the database after (a restart too); the caps (per address, on the
whole server, the quota, the time limit) refuse in plain words; a record
sent from the replay page is reviewed under the same rules. The reviews here
think with a tiny budget; tests/analysis/ checks what the numbers mean.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
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
from web_support import connect, from_address, make_app, play_all, play_out, with_addresses

from ohhell import Deal, loads
from ohhell.analysis import Budget, Review, record_digest
from ohhell.web.app import Limits
from ohhell.web.serving.reviews import review_key, review_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TINY = Budget(simulations=64, price_simulations=32, luck_playouts=2, luck_simulations=16)
"""A review of a two-card match in well under a second."""

SHORT = {"hand-sizes": "2"}
UNLIMITED = Limits(create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0)
Json = dict[str, Any]


def app_on(db: Path, **settings: Any) -> Any:
    settings.setdefault("review_budget", TINY)
    settings.setdefault("limits", UNLIMITED)
    return with_addresses(make_app(str(db), **settings))


def finished_table(client: TestClient, *, public: bool = False, sizes: str = "2") -> tuple[str, str]:
    """A match of a person and three random bots, played to its end: (table, token)."""
    body = {
        "name": "Ann",
        "seats": ["human", "random", "random", "random"],
        "options": {"hand-sizes": sizes},
        "public": public,
    }
    made = client.post("/api/tables", json=body).json()
    table, token = made["table"], made["token"]
    assert client.post(f"/api/tables/{table}/start", json={"token": token}).status_code == 200
    assert play_out(client, table, token)["obs"]["phase"] == "over"
    return table, token


def ask(client: TestClient, table: str, token: str | None = None, address: str = "a") -> Any:
    body = {"token": token} if token else {}
    return client.post(f"/api/tables/{table}/review", json=body, headers=from_address(address))


def look(client: TestClient, table: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/tables/{table}/review", headers=headers)


def until_done(poll: Any, seconds: float = 30.0) -> Json:
    """Poll until the review is no longer running; its last answer."""
    deadline = time.monotonic() + seconds
    while True:
        r = poll()
        assert r.status_code == 200, r.text
        answer: Json = r.json()
        if answer["status"] != "running":
            return answer
        assert time.monotonic() < deadline, f"still running: {answer}"
        time.sleep(0.05)


def record_of(client: TestClient, table: str, token: str) -> str:
    r = client.get(f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return r.text


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_on(tmp_path / "r.db")) as c:
        yield c


def server_of(client: TestClient) -> Any:
    return client.app.state.server  # type: ignore[attr-defined]


# --- Who may see it, and when ---


def test_a_player_of_the_table_gets_the_review_of_the_finished_match(client: TestClient) -> None:
    table, token = finished_table(client)
    r = ask(client, table, token)
    assert r.status_code in (200, 202), r.text
    assert r.json()["status"] in ("running", "done")
    answer = until_done(lambda: look(client, table, token))
    assert answer["status"] == "done", answer
    text = record_of(client, table, token)
    record = loads(text)
    assert answer["key"] == review_key(text)
    review = Review.from_json(answer["review"])
    assert review.record == record_digest(record)
    assert review.finished and review.seats == record.seats
    assert [s.seat for s in review.summary] == [0, 1, 2, 3]
    assert review.budget == TINY
    assert all(d.position.seat == d.seat for d in review.decisions)


PRIVATE = "Only the players of this table can see its review: it is not a public table."


def test_a_stranger_gets_no_review_of_a_private_table(client: TestClient) -> None:
    table, _ = finished_table(client)
    for r in (
        ask(client, table),
        look(client, table),
        ask(client, table, "no-seat"),
        look(client, table, "x"),
    ):
        assert r.status_code == 403, r.text
        assert r.json()["error"] == PRIVATE
    assert server_of(client).reviews.begun == 0


def test_anyone_may_see_the_review_of_a_public_table_after_the_end(client: TestClient) -> None:
    table, _ = finished_table(client, public=True)
    assert ask(client, table, address="stranger").status_code in (200, 202)
    assert until_done(lambda: look(client, table))["status"] == "done"


def test_no_review_before_the_end_by_any_route(client: TestClient) -> None:
    seats = ["human", "random", "random", "random"]
    made = client.post(
        "/api/tables", json={"name": "Ann", "seats": seats, "options": SHORT, "public": True}
    ).json()
    table, token = made["table"], made["token"]
    # In the lobby, and with the match under way, for its player and for anyone.
    for r in (ask(client, table, token), look(client, table, token), ask(client, table)):
        assert r.status_code == 409, r.text
        assert "once it is over" in r.json()["error"]
    assert client.post(f"/api/tables/{table}/start", json={"token": token}).status_code == 200
    with connect(client, table, token) as player:
        player.my_turn()
        asked = (
            ask(client, table, token),
            look(client, table, token),
            ask(client, table),
            look(client, table),
        )
        for r in asked:
            assert r.status_code == 409, r.text
        # The record a review would be made of is not given out either.
        assert client.get(f"/api/tables/{table}/record").status_code == 409
        assert server_of(client).reviews.begun == 0
        play_all([player])
    assert ask(client, table, token).status_code in (200, 202)


def test_a_review_shows_no_card_the_deciding_seat_could_not_see(client: TestClient) -> None:
    table, token = finished_table(client, sizes="3,2")
    ask(client, table, token)
    answer = until_done(lambda: look(client, table, token))
    record = loads(record_of(client, table, token))
    deals = [a for a in record.actions if isinstance(a, Deal)]
    review = Review.from_json(answer["review"])
    assert review.decisions and review.puzzles is not None
    for d in review.decisions:
        p = d.position
        dealt = {str(c) for c in deals[p.hand - 1].hands[p.seat]}
        for seat, hand in enumerate(p.hands):
            # Only the deciding seat's own hand, and only cards it was dealt.
            assert (hand is None) == (seat != p.seat), (d.version, seat)
        assert set(p.cards) <= dealt
    # Every card the review names anywhere was dealt in the record.
    every = {str(c) for deal in deals for hand in deal.hands for c in hand}
    every |= {str(deal.turned) for deal in deals if deal.turned is not None}
    named = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str) and re.fullmatch(r"(10|[2-9JQKA])[CDHS]", x):
            named.add(x)

    walk(answer["review"])
    assert named and named <= every


# --- Made once, kept ---


def test_a_second_request_is_served_from_the_store_and_a_restart_keeps_it(tmp_path: Path) -> None:
    db = tmp_path / "kept.db"
    with TestClient(app_on(db)) as client:
        table, token = finished_table(client)
        ask(client, table, token)
        first = until_done(lambda: look(client, table, token))
        assert server_of(client).reviews.begun == 1
        again = ask(client, table, token)
        assert again.status_code == 200 and again.json() == first
        assert server_of(client).reviews.begun == 1
    with TestClient(app_on(db)) as client:
        assert look(client, table, token).json() == first
        r = ask(client, table, token)
        assert r.status_code == 200 and r.json() == first
        assert server_of(client).reviews.begun == 0


def test_a_stored_review_of_another_format_is_made_again(client: TestClient) -> None:
    table, token = finished_table(client)
    ask(client, table, token)
    answer = until_done(lambda: look(client, table, token))
    store = server_of(client).store
    old = json.dumps({**answer["review"], "format": "ohhell-review 0"})
    store.end_review(review_name(answer["key"]), "done", old)
    stale = look(client, table, token).json()
    assert stale["status"] == "failed" and "earlier version" in stale["error"]
    assert ask(client, table, token).status_code == 202
    assert until_done(lambda: look(client, table, token)) == answer


def test_nobody_asked_yet_and_a_look_begins_nothing(client: TestClient) -> None:
    table, token = finished_table(client)
    answer = look(client, table, token).json()
    assert answer["status"] == "none" and len(answer["key"]) == 64
    assert server_of(client).reviews.begun == 0


def test_sent_records_reviews_expire_and_a_table_s_goes_with_its_table(tmp_path: Path) -> None:
    from ohhell.web.storage.store import SeatRow, Store

    store = Store(f"sqlite:///{tmp_path / 'e.db'}")
    try:
        assert store.begin_review("a" * 64, None, 0.0)
        store.end_review("a" * 64, "done", "{}")
        assert not store.begin_review("a" * 64, None, 0.0)  # done: kept
        assert store.expire_reviews(time.time() - 60) == 0  # touched a moment ago
        assert store.expire_reviews(time.time() + 1) == 1
        assert store.review("a" * 64) is None
        # A table's review stays while its table does (the tables' own expiry takes it).
        store.create("t1", {"hand-sizes": "2"}, 7, 0, [SeatRow(0, "Ann", "human", None, None)])
        assert store.begin_review("b" * 64, "t1", 0.0)
        assert store.expire_reviews(time.time() + 1) == 0
        assert store.review("b" * 64) is not None
        assert store.expire(time.time() + 1, 0.0) == ["t1"]
        assert store.review("b" * 64) is None
    finally:
        store.close()


# --- Limits ---


class Gate:
    """A stand-in for the workers: each review waits until the test opens the gate."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.calls = 0

    async def __call__(self, work: Any, *args: Any) -> tuple[bool, str]:
        self.calls += 1
        while not self.open.is_set():
            await asyncio.sleep(0.01)
        result: tuple[bool, str] = work(*args)
        return result


def test_one_review_per_address_and_a_few_per_server(tmp_path: Path) -> None:
    limits = Limits(create=None, connects=None, reviews_at_once=2)
    with TestClient(app_on(tmp_path / "caps.db", limits=limits)) as client:
        gate = server_of(client).reviews.run = Gate()
        tables = [finished_table(client, public=True) for _ in range(3)]
        (t1, _), (t2, _), (t3, _) = tables
        assert ask(client, t1, address="ann").status_code == 202
        assert ask(client, t1, address="bob").json()["status"] == "running"  # one per table: the same one
        busy = ask(client, t2, address="ann")
        assert busy.status_code == 429
        assert busy.json()["error"] == (
            "A review you asked for is still being made: wait for it to finish, then ask for another."
        )
        assert ask(client, t2, address="bob").status_code == 202
        # Both places taken: the third waits for its turn, told how many are before it.
        waits = ask(client, t3, address="cid")
        assert waits.status_code == 202 and waits.json()["progress"] == {"waiting": 2}, waits.text
        assert gate.calls == 2
        gate.open.set()
        for table, _ in tables:
            assert until_done(lambda table=table: look(client, table))["status"] == "done"
        assert gate.calls == 3


def test_an_address_may_begin_only_so_many_reviews_an_hour(tmp_path: Path) -> None:
    limits = Limits(create=None, connects=None, reviews="2/hour")
    with TestClient(app_on(tmp_path / "quota.db", limits=limits)) as client:
        tables = [finished_table(client, public=True) for _ in range(3)]
        for table, _ in tables[:2]:
            assert ask(client, table, address="ann").status_code == 202
            until_done(lambda table=table: look(client, table))
        refused = ask(client, tables[2][0], address="ann")
        assert refused.status_code == 429
        assert refused.json()["error"].startswith("too many reviews from your address: at most 2 per hour")
        # A review made already costs nothing from the quota.
        assert ask(client, tables[0][0], address="ann").status_code == 200
        assert ask(client, tables[2][0], address="bob").status_code == 202


def test_a_review_past_its_time_is_stopped_with_the_reason(tmp_path: Path) -> None:
    limits = Limits(create=None, connects=None, review_seconds=0.001)
    with TestClient(app_on(tmp_path / "slow.db", limits=limits)) as client:
        table, token = finished_table(client)
        ask(client, table, token)
        answer = until_done(lambda: look(client, table, token))
        assert answer["status"] == "failed"
        assert answer["error"].startswith("The review took longer than 0.001 seconds and was stopped")
        # Asked again, it begins again (it may be the server that was busy).
        assert ask(client, table, token).status_code == 202


def test_a_review_cut_short_by_a_stop_can_be_asked_for_again(tmp_path: Path) -> None:
    db = tmp_path / "stop.db"
    with TestClient(app_on(db)) as client:
        server_of(client).reviews.run = Gate()  # never opened: the server stops first
        table, token = finished_table(client)
        assert ask(client, table, token).status_code == 202
        assert look(client, table, token).json()["status"] == "running"
    with TestClient(app_on(db)) as client:
        answer = look(client, table, token).json()
        assert answer["status"] == "failed"
        assert answer["error"] == "The server stopped before the review was finished: ask again."
        assert ask(client, table, token).status_code == 202
        assert until_done(lambda: look(client, table, token))["status"] == "done"


# --- A record sent from the replay page ---


def by_key(client: TestClient, key: str) -> Any:
    return client.get("/api/review", headers={"Authorization": f"Bearer {key}"})


def test_a_sent_record_is_reviewed_and_found_again_by_its_key(client: TestClient) -> None:
    table, token = finished_table(client)
    text = record_of(client, table, token)
    digest = record_digest(loads(text))
    r = client.post("/api/review", content=text.encode(), headers=from_address("ann"))
    assert r.status_code == 202, r.text
    key = review_key(text)
    assert r.json() == {"status": "running", "key": key, "progress": None}
    answer = until_done(lambda: by_key(client, key))
    assert answer["status"] == "done"
    assert Review.from_json(answer["review"]).record == digest
    begun = server_of(client).reviews.begun
    again = client.post("/api/review", content=text.encode(), headers=from_address("bob"))
    assert again.status_code == 200 and again.json() == answer
    assert server_of(client).reviews.begun == begun


def test_a_bad_record_or_name_is_refused_in_words(client: TestClient) -> None:
    r = client.post("/api/review", content=b"ohhell 1\nplay 9 QQ\n")
    assert r.status_code == 400 and r.json()["error"].startswith("the record cannot be read")
    r = client.post("/api/review", content=b"\xff\xfe")
    assert r.status_code == 400 and r.json()["error"] == "the record is not UTF-8 text"
    assert by_key(client, "not-a-key").status_code == 404
    assert client.get("/api/review").status_code == 404
    assert by_key(client, "0" * 64).json() == {"status": "none", "key": "0" * 64}


def test_sent_records_have_a_quota_per_address(tmp_path: Path) -> None:
    limits = Limits(create=None, connects=None, reviews="1/hour")
    with TestClient(app_on(tmp_path / "sent.db", limits=limits)) as client:
        table, token = finished_table(client)
        text = record_of(client, table, token).encode()
        assert client.post("/api/review", content=text, headers=from_address("ann")).status_code == 202
        refused = client.post("/api/review", content=text, headers=from_address("ann"))
        assert refused.status_code == 429 and "too many reviews" in refused.json()["error"]


# --- In worker processes ---


def test_reviews_are_made_in_worker_processes_like_in_threads(tmp_path: Path) -> None:
    with TestClient(app_on(tmp_path / "threads.db")) as client:
        table, token = finished_table(client)
        text = record_of(client, table, token)
        ask(client, table, token)
        in_thread = until_done(lambda: look(client, table, token))
    with TestClient(app_on(tmp_path / "processes.db", think_workers=1)) as client:
        reviews = server_of(client).reviews
        assert reviews.processes
        r = client.post("/api/review", content=text.encode())
        assert r.status_code == 202, r.text
        key = r.json()["key"]
        seen: list[Json] = []

        def poll() -> Any:
            got = by_key(client, key)
            seen.append(got.json())
            return got

        in_process = until_done(poll, seconds=120)
        assert reviews._pool is not None  # the work went to the review's own workers
    assert in_process["status"] == "done"
    assert json.dumps(in_process["review"], sort_keys=True) == json.dumps(in_thread["review"], sort_keys=True)


# --- Several server processes (run when OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS name the servers) ---

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")


def _play_to_the_end(base: str, table: str, token: str) -> None:
    """Connect as the table's person and play the first legal action each turn until the end."""
    from websockets.sync.client import connect as ws_connect

    with ws_connect(base.replace("http://", "ws://") + f"/ws/{table}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        seat = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            m = json.loads(ws.recv(timeout=10))
            if m["type"] == "welcome":
                seat = m["seat"]
            if m["type"] != "state":
                continue
            obs = m["obs"]
            if obs["phase"] == "over":
                return
            legal = [a for a in obs["legal"] if a["kind"] != "change"]
            if seat in obs["turn"] and legal:
                action = {k: v for k, v in legal[0].items() if k != "seat"}
                ws.send(json.dumps({"type": "act", "version": m["version"], "action": action}))
            elif obs.get("can_change"):
                ws.send(json.dumps({"type": "keep"}))
        raise AssertionError("the match did not end")


@pytest.mark.skipif(not (POSTGRES and REDIS), reason="set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS")
def test_a_table_s_review_is_made_by_its_holder_whichever_process_is_asked() -> None:
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    from support import bench_script

    bench = bench_script("failover")
    assert POSTGRES and REDIS
    schema = bench.Schema(POSTGRES)
    servers = bench.start_servers(schema.url, REDIS, 2, "--review-budget", "0.01")
    try:
        seats = ["human", "random", "random", "random"]
        made = bench.post(
            servers[0], "/api/tables", {"seats": seats, "name": "Ann", "options": {"hand-sizes": "1"}}
        )
        table, token = made["table"], made["token"]
        bench.post(servers[0], f"/api/tables/{table}/start", {"token": token})
        holder = bench.holder_pid(REDIS, table)
        assert holder in {s.proc.pid for s in servers}
        _play_to_the_end(servers[0].base, table, token)
        other = next(s for s in servers if s.proc.pid != holder)

        def call(server: Any, method: str, token: str | None = None) -> tuple[int, Json]:
            data = json.dumps({"token": token}).encode() if method == "POST" else None
            headers = {"Content-Type": "application/json"}
            if token and method == "GET":
                headers["Authorization"] = f"Bearer {token}"
            request = urllib.request.Request(
                f"{server.base}/api/tables/{table}/review", data=data, headers=headers, method=method
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return answer.status, json.loads(answer.read())
            except urllib.error.HTTPError as err:
                return err.code, json.loads(err.read())

        # Asked on the process that does not hold the table: relayed to the holder.
        assert call(other, "POST")[0] == 403
        status, answer = call(other, "POST", token)
        assert status in (200, 202), answer
        deadline = time.monotonic() + 120
        while answer["status"] == "running":
            assert time.monotonic() < deadline, answer
            time.sleep(0.2)
            status, answer = call(other, "GET", token)
        assert answer["status"] == "done", answer
        assert call(servers[0], "GET", token)[1] == answer
        assert Review.from_json(answer["review"]).finished

        # The private table's record, through the process that does not hold
        # it: refused without the seat's token, given with it.
        def record(headers: dict[str, str]) -> tuple[int, str]:
            request = urllib.request.Request(f"{other.base}/api/tables/{table}/record", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as got:
                    return got.status, got.read().decode()
            except urllib.error.HTTPError as err:
                return err.code, err.read().decode()

        assert record({})[0] == 403
        status, text = record({"Authorization": f"Bearer {token}"})
        assert status == 200 and answer["key"] == review_key(text)
    finally:
        bench.stop_servers(servers)
        schema.drop()


# --- The command ---


@pytest.mark.parametrize(
    ("option", "value"),
    [("--review-budget", "0"), ("--review-budget", "17"), ("--review-time", "0"), ("--review-limit", "lots")],
)
def test_serve_refuses_review_settings_out_of_range(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from ohhell.cli import main

    assert main(["serve", option, value]) == 2
    assert option in capsys.readouterr().err
