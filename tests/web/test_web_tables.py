"""`ohhell serve`: the HTTP API and the WebSocket protocol (docs/web.md).

Everything runs in-process through Starlette's TestClient on a fresh SQLite
file per test; tests/web/web_support.py holds the client helpers. Matches are kept
short with the rule option ``hand-sizes``.
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's note that httpx is deprecated for TestClient
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_support import Player, connect, join, make_app, new_table, play_all, play_out

from ohhell.bots import OPPONENT_LEVELS, opponent_levels
from ohhell.cards import Card
from ohhell.cli import main
from ohhell.record import format_action, loads
from ohhell.rules import OPTION_NAMES, PRESETS, RulesError, make_rules
from ohhell.web.storage.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SHORT = {"hand-sizes": "2,1"}
BOTS3 = ["human", "random", "random", "random"]


@contextlib.contextmanager
def serve(tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"), **settings)) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serve(tmp_path) as c:
        yield c


def stored_lines(tmp_path: Path, table: str) -> tuple[str, ...]:
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    try:
        row = store.load(table)
        assert row is not None
        return row.lines
    finally:
        store.close()


def public(client: TestClient, table: str) -> dict[str, Any]:
    r = client.get(f"/api/tables/{table}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def three_people(client: TestClient, options: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """A started 3-player table of people only (seat 2 deals, so seat 0 bids
    first and seat 2 last): nothing moves unless a test makes it."""
    opts = {"players": "3", "hand-sizes": "1,1", "first-dealer": "2", **(options or {})}
    made = new_table(client, options=opts, seats=["human"] * 3)
    tokens = [made["token"], join(client, made["table"], 1), join(client, made["table"], 2)]
    r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
    assert r.status_code == 200, r.text
    return made["table"], tokens


# --- Pages and the JSON API ---


@pytest.mark.parametrize("path", ["/", "/t/abc", "/replay"])
def test_pages_are_html(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "<html" in r.text.lower()


def test_options_lists_presets_every_rule_option_and_levels(client: TestClient) -> None:
    data = client.get("/api/options").json()
    assert set(data["presets"]) == set(PRESETS)
    assert data["presets"]["pagat"] == PRESETS["pagat"].options()
    names = [o["name"] for o in data["options"]]
    assert names == [n.replace("_", "-") for n in OPTION_NAMES]
    by_name = {o["name"]: o for o in data["options"]}
    assert by_name["hook"]["choices"] == ["yes", "no"]
    assert by_name["hand-sizes"]["choices"] is None
    assert all(o["help"] for o in data["options"])
    # The built-in levels (the reference ismcts is not offered), then the
    # learned bot where NumPy is installed, as it is with the web extra.
    assert data["levels"][: len(OPPONENT_LEVELS)] == list(OPPONENT_LEVELS)
    assert data["levels"] == list(opponent_levels()) and "ismcts" not in data["levels"]
    assert "learned" in data["levels"]


def test_play_now_starts_a_table_against_bots(client: TestClient) -> None:
    r = client.post("/api/play-now", json={"name": "Ann", "level": "random"})
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["seat"] == 0 and len(made["token"]) >= 40
    table = public(client, made["table"])
    assert table["status"] == "playing"
    assert table["rules"] == PRESETS["pagat"].options()
    kinds = [(s["kind"], s["level"]) for s in table["seats"]]
    assert kinds == [("human", None)] + [("bot", "random")] * 3
    assert table["seats"][0]["name"] == "Ann"
    with connect(client, made["table"], made["token"]) as p:
        assert p.welcome == {"type": "welcome", "seat": 0, "host": True}
        p.my_turn()
        assert p.obs["seat"] == 0 and p.obs["hands"][0] is not None


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"level": "grandmaster"}, "unknown bot level"),
        ({"preset": "nope"}, "unknown preset"),
        ({"name": "x" * 40}, "longer than"),
    ],
)
def test_play_now_refuses_bad_requests(client: TestClient, body: dict[str, Any], problem: str) -> None:
    r = client.post("/api/play-now", json=body)
    assert r.status_code == 400
    assert problem in r.json()["error"]


def test_new_table_is_a_lobby_with_the_chosen_rules_and_seats(client: TestClient) -> None:
    made = new_table(
        client,
        preset="pagat",
        options={"hook": "no", "hand-sizes": "3,2,1"},
        seats=["random", "human", "expert", "human"],
        seat=1,
        name="Host Ann",
    )
    assert made["seat"] == 1
    table = public(client, made["table"])
    assert table["status"] == "lobby" and table["version"] == 0
    assert table["host_seat"] == 1
    assert table["rules"]["hook"] == "no" and table["rules"]["hand-sizes"] == "3,2,1"
    assert table["rules"] == make_rules("pagat", {"hook": "no", "hand-sizes": "3,2,1"}).options()
    assert table["description"] and all(isinstance(s, str) for s in table["description"])
    seats = [(s["kind"], s["level"]) for s in table["seats"]]
    assert seats == [("bot", "random"), ("human", None), ("bot", "expert"), ("open", None)]
    assert table["seats"][1]["name"] == "Host Ann"
    assert [s["connected"] for s in table["seats"]] == [False] * 4


def rules_error(preset: str, options: dict[str, str]) -> str:
    with pytest.raises(RulesError) as err:
        make_rules(preset, options)
    return str(err.value)


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("nope", {}),
        ("pagat", {"hook": "maybe"}),
        ("pagat", {"bogus": "x"}),
        ("pagat", {"players": "9"}),
        ("pagat", {"bidding": "simultaneous"}),  # R-HOOK needs a last bidder
    ],
)
def test_new_table_refuses_bad_rules_with_the_rules_error(
    client: TestClient, preset: str, options: dict[str, str]
) -> None:
    r = client.post("/api/tables", json={"preset": preset, "options": options})
    assert r.status_code == 400
    # The rules' own words; "field" names the option at fault for the form (test_web_form_errors.py).
    assert r.json()["error"] == rules_error(preset, options)
    assert set(r.json()) <= {"error", "field"}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"seats": ["human"] * 3}, "needs 4 seats, not 3"),
        ({"seats": ["human"] * 5}, "needs 4 seats, not 5"),
        ({"seats": ["human", "human", "grandmaster", "human"]}, "neither human nor a bot level"),
        ({"seats": "human"}, '"seats" must list'),
        ({"seat": 4}, "your seat must be from 0 to 3"),
        ({"seat": "0"}, "must be a whole number"),
        ({"options": {"hook": False}}, '"options" must map'),
        ({"options": ["hook"]}, '"options" must map'),
        ({"players": "four"}, "must be a whole number"),
        ({"name": "   "}, "the name is empty"),
    ],
)
def test_new_table_refuses_bad_bodies(client: TestClient, body: dict[str, Any], problem: str) -> None:
    r = client.post("/api/tables", json={"preset": "pagat", **body})
    assert r.status_code == 400
    assert problem in r.json()["error"]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'"pagat"', "must be a JSON object"),
        (b'{"name": "' + b"x" * 70000 + b'"}', "larger than"),
    ],
    ids=["broken", "list", "string", "oversized"],
)
def test_api_refuses_non_json_and_oversized_bodies(client: TestClient, raw: bytes, problem: str) -> None:
    for path in ("/api/tables", "/api/play-now"):
        r = client.post(path, content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 400, path
        assert problem in r.json()["error"]


def test_unknown_table_is_404_everywhere(client: TestClient) -> None:
    for method, path in [
        ("get", "/api/tables/nosuchtable"),
        ("post", "/api/tables/nosuchtable/join"),
        ("post", "/api/tables/nosuchtable/fill"),
        ("post", "/api/tables/nosuchtable/start"),
        ("get", "/api/tables/nosuchtable/record"),
        ("get", "/api/tables/../../etc"),
    ]:
        r = client.request(method, path, json={"seat": 1})
        assert r.status_code == 404, (method, path)
    with client.websocket_connect("/ws/nosuchtable") as ws:
        assert ws.receive_json()["code"] == "bad"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404


def test_join_gives_a_token_for_an_open_seat_only(client: TestClient) -> None:
    made = new_table(client, seats=["human", "human", "random", "human"])
    table = made["table"]
    r = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "Bea"})
    assert r.status_code == 200
    token = r.json()["token"]
    assert r.json() == {"table": table, "seat": 1, "token": token}
    assert token != made["token"]
    assert public(client, table)["seats"][1] | {"connected": False} == {
        "seat": 1,
        "name": "Bea",
        "kind": "human",
        "level": None,
        "connected": False,
        "away": False,
    }
    for seat in (0, 1, 2):  # the host's, just taken, a bot's
        r = client.post(f"/api/tables/{table}/join", json={"seat": seat, "name": "Cy"})
        assert r.status_code == 409 and f"seat {seat + 1} is taken" in r.json()["error"]  # said from 1
    for body in ({"seat": 7}, {"seat": -1}, {"seat": "3"}):  # (no seat at all: the first open one)
        assert client.post(f"/api/tables/{table}/join", json=body).status_code == 400
    r = client.post(f"/api/tables/{table}/fill", json={"token": made["token"], "level": "random"})
    assert r.status_code == 200
    r = client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
    assert r.status_code == 200
    r = client.post(f"/api/tables/{table}/join", json={"seat": 3, "name": "Late"})
    assert r.status_code == 409 and "started" in r.json()["error"]


def test_fill_and_start_are_for_the_host_only(client: TestClient) -> None:
    made = new_table(client, seats=["human", "human", "human", "random"], seat=2)
    table, host = made["table"], made["token"]
    guest = join(client, table, 0)
    for body in ({"token": guest}, {}, {"token": "not-a-token"}, {"token": 5}):
        for action in ("fill", "start"):
            r = client.post(f"/api/tables/{table}/{action}", json={**body, "level": "random"})
            assert r.status_code == 403, (action, body)
            assert "host" in r.json()["error"]
    r = client.post(f"/api/tables/{table}/start", json={"token": host})
    assert r.status_code == 409 and "seat 2 is still open" in r.json()["error"]  # seat index 1, said from 1
    r = client.post(f"/api/tables/{table}/fill", json={"token": host, "level": "grandmaster"})
    assert r.status_code == 400 and "unknown bot level" in r.json()["error"]
    r = client.post(f"/api/tables/{table}/fill", json={"token": host, "level": "beginner"})
    assert r.status_code == 200
    kinds = [(s["kind"], s["level"]) for s in r.json()["seats"]]
    assert kinds == [("human", None), ("bot", "beginner"), ("human", None), ("bot", "random")]
    assert public(client, table)["status"] == "lobby"
    r = client.post(f"/api/tables/{table}/start", json={"token": host})
    assert r.status_code == 200 and r.json()["status"] == "playing"
    for action in ("fill", "start"):
        r = client.post(f"/api/tables/{table}/{action}", json={"token": host, "level": "random"})
        assert r.status_code == 409, action


def test_record_is_offered_once_the_match_is_over(client: TestClient, tmp_path: Path) -> None:
    made = new_table(client, options=SHORT, seats=BOTS3, start=True)
    table = made["table"]
    seat = {"Authorization": f"Bearer {made['token']}"}  # the record of a private table is its players'
    r = client.get(f"/api/tables/{table}/record", headers=seat)
    assert r.status_code == 409
    final = play_out(client, table, made["token"])
    assert final["obs"]["phase"] == "over" and final["obs"]["standings"]
    assert public(client, table)["status"] == "over"
    r = client.get(f"/api/tables/{table}/record", headers=seat)
    assert r.status_code == 200
    assert f'filename="ohhell-{table}.ohr"' in r.headers["content-disposition"]
    record = loads(r.text)
    state = record.replay(complete=True)
    assert [format_action(a) for a in record.actions] == list(stored_lines(tmp_path, table))
    assert len(record.actions) == final["version"]
    assert list(state.totals) == final["obs"]["totals"]
    assert record.rules.options() == public(client, table)["rules"]
    assert record.seats[0] == "Host"


def test_replay_gives_one_face_up_frame_per_action(client: TestClient) -> None:
    made = new_table(client, options=SHORT, seats=BOTS3, start=True)
    play_out(client, made["table"], made["token"])
    text = client.get(
        f"/api/tables/{made['table']}/record", headers={"Authorization": f"Bearer {made['token']}"}
    ).text
    record = loads(text)
    r = client.post("/api/replay", content=text.encode())
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["seats"] == list(record.seats)
    frames = data["frames"]
    assert len(frames) == len(record.actions)
    assert [f["version"] for f in frames] == list(range(1, len(frames) + 1))
    assert [f["label"] for f in frames] == [format_action(a) for a in record.actions]
    # A frame holds what changed since the one before; merged, they are whole.
    merged: list[dict[str, Any]] = []
    for f in frames:
        merged.append({**(merged[-1] if merged else {}), **f["obs"]})
    in_hand = [o for o in merged if o["phase"] in ("bid", "play")]
    assert in_hand
    for o in in_hand:  # every hand face up, as many cards as the seat holds
        assert [len(h) for h in o["hands"]] == o["hand_counts"]
    assert merged[-1]["phase"] == "over"
    # Each hand's result is sent once; frames count how many are scored.
    assert len(data["results"]) == merged[-1]["results"] == len(record.replay(complete=True).results)
    assert [o["results"] for o in merged] == sorted(o["results"] for o in merged)


def test_replay_refuses_a_bad_record_naming_the_line(client: TestClient) -> None:
    made = new_table(client, options=SHORT, seats=BOTS3, start=True)
    play_out(client, made["table"], made["token"])
    seat = {"Authorization": f"Bearer {made['token']}"}
    lines = client.get(f"/api/tables/{made['table']}/record", headers=seat).text.splitlines()
    lines[5] = "what is this"
    r = client.post("/api/replay", content="\n".join(lines).encode())
    assert r.status_code == 400
    assert "line 6" in r.json()["error"]
    r = client.post("/api/replay", content=b"\xff\xfe\x00")
    assert r.status_code == 400 and "UTF-8" in r.json()["error"]


# --- Tokens ---


def test_a_token_holds_exactly_its_seat(client: TestClient) -> None:
    table, tokens = three_people(client)
    for seat, token in enumerate(tokens):
        with connect(client, table, token) as p:
            assert p.welcome == {"type": "welcome", "seat": seat, "host": seat == 0}
            state = p.state
            assert state is not None
            hands = state["obs"]["hands"]
            assert hands[seat] is not None
            assert [h is None for h in hands] == [s != seat for s in range(3)]


@pytest.mark.parametrize("token", [None, "wrong-token", ""])
def test_without_a_seat_token_you_watch_and_cannot_act(client: TestClient, token: str | None) -> None:
    table, tokens = three_people(client)
    with connect(client, table, tokens[0]) as p0, connect(client, table, token) as watcher:
        assert watcher.seat is None and watcher.welcome == {"type": "welcome", "seat": None, "host": False}
        errors = [m for m in watcher.seen if m["type"] == "error"]
        if token:
            assert [e["code"] for e in errors] == ["seat"]  # a wrong token is told so
        else:
            assert errors == []
        state = watcher.state
        assert state is not None
        assert state["obs"]["hands"] == [None, None, None]
        assert state["obs"]["seat"] is None and state["obs"]["legal"] == []
        version = state["version"]
        for message in (
            {"type": "act", "version": version, "action": {"kind": "bid", "bid": 0}},
            {"type": "keep"},
            {"type": "hint"},
        ):
            watcher.send(message)
            assert watcher.error()["code"] == "seat"
        assert public(client, table)["version"] == version
        p0.my_turn()
        p0.act({"kind": "bid", "bid": 0})
        seen = watcher.state_at(version + 1)
        assert seen["last"] == {"seat": 0, "kind": "bid", "bid": 0}
        assert seen["obs"]["hands"] == [None, None, None]


def test_tokens_are_stored_only_hashed(client: TestClient, tmp_path: Path) -> None:
    made = new_table(client, seats=["human", "human", "random", "random"])
    guest = join(client, made["table"], 1)
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    try:
        row = store.load(made["table"])
        assert row is not None
        hashes = [s.token_hash for s in row.seats]
    finally:
        store.close()
    assert hashes == [
        hashlib.sha256(made["token"].encode()).hexdigest(),
        hashlib.sha256(guest.encode()).hexdigest(),
        None,
        None,
    ]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("t.db"))
    for token in (made["token"], guest):
        assert token.encode() not in raw


# --- Acting over the WebSocket ---


def test_a_legal_action_reaches_every_connection(client: TestClient) -> None:
    table, tokens = three_people(client)
    with contextlib.ExitStack() as stack:
        players = [stack.enter_context(connect(client, table, t)) for t in tokens]
        watcher = stack.enter_context(connect(client, table))
        p0 = players[0]
        p0.my_turn()
        version = p0.version
        assert p0.obs["legal"] == [{"seat": 0, "kind": "bid", "bid": b} for b in (0, 1)]
        p0.act({"kind": "bid", "bid": 1})
        for p in [*players, watcher]:
            state = p.state_at(version + 1)
            assert state["version"] == version + 1
            assert state["last"] == {"seat": 0, "kind": "bid", "bid": 1}
            assert state["obs"]["bids"][0] == 1 and 1 in state["obs"]["actors"]
        assert public(client, table)["version"] == version + 1


def test_the_hooks_forbidden_bid_is_illegal_and_nobody_else_hears(client: TestClient) -> None:
    """R-HOOK: the last bidder (seat 2) may not make the bids add up to the tricks."""
    table, tokens = three_people(client)
    with contextlib.ExitStack() as stack:
        p0, p1, p2 = (stack.enter_context(connect(client, table, t)) for t in tokens)
        p0.my_turn()
        p0.act({"kind": "bid", "bid": 0})
        p1.my_turn()
        p1.act({"kind": "bid", "bid": 0})
        state = p2.my_turn()
        version = state["version"]
        assert state["obs"]["forbidden_bid"] == 1
        assert {"seat": 2, "kind": "bid", "bid": 1} not in state["obs"]["legal"]
        p0.state_at(version)
        p1.state_at(version)
        p2.act({"kind": "bid", "bid": 1})
        error = p2.error()
        assert error["code"] == "illegal"
        for p in (p0, p1, p2):
            p.ping()  # nothing was sent to anyone else, and no state to p2
        assert public(client, table)["version"] == version
        p2.act({"kind": "bid", "bid": 0})  # the refusal changed nothing: a legal bid still goes
        assert p0.state_at(version + 1)["last"] == {"seat": 2, "kind": "bid", "bid": 0}


def test_not_following_suit_when_able_is_illegal(client: TestClient) -> None:
    """R-FOLLOW: a player who holds the suit led must play it."""
    made = new_table(client, options={"hand-sizes": "6,6,6,6"}, seats=BOTS3, start=True)
    refused: list[str] = []

    def choose(p: Player) -> dict[str, Any]:
        obs = p.obs
        choices = [a for a in obs["legal"] if a["kind"] != "change"]
        if obs["phase"] == "play" and obs["trick"]:
            led = Card.parse(obs["trick"][0][1]).suit
            hand = obs["hands"][0]
            wrong = [c for c in hand if Card.parse(c).suit != led]
            if wrong and len(wrong) < len(hand):  # holds the suit led and another
                assert sorted(a["card"] for a in choices) == sorted(c for c in hand if c not in wrong)
                p.act({"kind": "play", "card": wrong[0]})
                error = p.error()
                assert error["code"] == "illegal"
                assert public(client, made["table"])["version"] == p.version
                p.ping()
                refused.append(wrong[0])
        return choices[0]

    with connect(client, made["table"], made["token"]) as p:
        final = play_all([p], choose)
    assert final["obs"]["phase"] == "over"
    assert refused, "no trick where seat 0 held the suit led and another suit"


def test_acting_out_of_turn_is_refused(client: TestClient) -> None:
    table, tokens = three_people(client)
    with contextlib.ExitStack() as stack:
        p0, p1 = (stack.enter_context(connect(client, table, t)) for t in tokens[:2])
        p0.my_turn()
        p1.state_at(p0.version)
        p1.act({"kind": "bid", "bid": 0})
        assert p1.error()["code"] == "turn"
        p1.act({"kind": "play", "card": p1.obs["hands"][1][0]})
        assert p1.error()["code"] == "turn"
        p0.ping()
        assert public(client, table)["version"] == p0.version


BAD_MESSAGES: list[Any] = [
    "{not json",
    "",
    "[1, 2, 3]",
    "42",
    '"act"',
    "null",
    {"version": 3},
    {"type": 3},
    {"type": None},
    {"type": "dance"},
    {"type": "hello", "token": "again"},
    {"type": "act", "action": {"kind": "bid", "bid": 0}},
    {"type": "act", "version": "V", "action": {"kind": "bid", "bid": 0}},
    {"type": "act", "version": 1.5, "action": {"kind": "bid", "bid": 0}},
    {"type": "act", "version": True, "action": {"kind": "bid", "bid": 0}},
    {"type": "act", "version": "$V"},
    {"type": "act", "version": "$V", "action": "bid 0"},
    {"type": "act", "version": "$V", "action": [0]},
    {"type": "act", "version": "$V", "action": {"bid": 0}},
    {"type": "act", "version": "$V", "action": {"kind": "pass"}},
    {"type": "act", "version": "$V", "action": {"kind": "bid", "bid": "3"}},
    {"type": "act", "version": "$V", "action": {"kind": "bid", "bid": 1.0}},
    {"type": "act", "version": "$V", "action": {"kind": "bid", "bid": False}},
    {"type": "act", "version": "$V", "action": {"kind": "bid", "bid": -1}},
    {"type": "act", "version": "$V", "action": {"kind": "bid", "bid": 10**30}},
    {"type": "act", "version": "$V", "action": {"kind": "bid"}},
    {"type": "act", "version": "$V", "action": {"kind": "change", "bid": "1"}},
    {"type": "act", "version": "$V", "action": {"kind": "trump", "suit": "X"}},
    {"type": "act", "version": "$V", "action": {"kind": "trump", "suit": 1}},
    {"type": "act", "version": "$V", "action": {"kind": "play", "card": "ZZ"}},
    {"type": "act", "version": "$V", "action": {"kind": "play", "card": "0S"}},
    {"type": "act", "version": "$V", "action": {"kind": "play", "card": 12}},
    {"type": "act", "version": "$V", "action": {"kind": "play", "card": "Q" * 100}},
    {"type": "ping", "pad": "x" * 4100},
    b"\xff\xfe not utf-8",
    b'{"type": "ping", "pad": "' + b"x" * 5000 + b'"}',
]


def test_bad_messages_are_refused_and_the_connection_goes_on(client: TestClient) -> None:
    table, tokens = three_people(client)
    with connect(client, table, tokens[0]) as p:
        version = p.my_turn()["version"]
        for message in BAD_MESSAGES:
            if isinstance(message, dict) and message.get("version") == "$V":
                message = {**message, "version": version}
            p.send(message)
            error = p.error()
            assert error["code"] == "bad", (message, error)
            assert error["error"], message
        p.ping()
        assert public(client, table)["version"] == version
        p.act({"kind": "bid", "bid": 0})  # still usable: a legal action goes through
        assert p.state_at(version + 1)["last"] == {"seat": 0, "kind": "bid", "bid": 0}


def test_a_bytes_message_is_read_like_text(client: TestClient) -> None:
    table, tokens = three_people(client)
    with connect(client, table, tokens[0]) as p:
        p.my_turn()
        p.send(b'{"type": "ping"}')
        assert p.recv() == {"type": "pong"}


def test_the_first_message_must_be_hello(client: TestClient) -> None:
    table, _ = three_people(client)
    for first in ('{"type": "ping"}', "nonsense", '{"type": "act", "version": 0}'):
        with client.websocket_connect(f"/ws/{table}") as ws:
            ws.send_text(first)
            error = ws.receive_json()
            assert error["type"] == "error" and error["code"] == "bad" and "hello" in error["error"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4400


def test_a_flood_of_messages_is_slowed_down(tmp_path: Path) -> None:
    with serve(tmp_path, rate=5) as client:
        table, _ = three_people(client)
        with connect(client, table) as watcher:
            sent = 400
            for _ in range(sent):
                watcher.send({"type": "ping"})
            answers: list[dict[str, Any]] = []
            while len(answers) < sent:
                answer = watcher.recv()
                if answer.get("type") != "table":  # comings and goings may be told meanwhile
                    answers.append(answer)
            pongs = [a for a in answers if a == {"type": "pong"}]
            refused = [a for a in answers if a.get("type") == "error"]
            assert len(pongs) + len(refused) == sent
            assert refused and all(a["code"] == "bad" and "too many messages" in a["error"] for a in refused)
            assert 150 <= len(pongs) <= 260  # the burst of 200, and a little refill
            time.sleep(0.5)  # the bucket refills at 5 a second
            watcher.ping()


def test_a_stale_version_is_refused(client: TestClient) -> None:
    table, tokens = three_people(client)
    with contextlib.ExitStack() as stack:
        p0, p1 = (stack.enter_context(connect(client, table, t)) for t in tokens[:2])
        version = p0.my_turn()["version"]
        p0.act({"kind": "bid", "bid": 0}, version + 5)  # a version from the future
        assert p0.error()["code"] == "stale"
        p0.act({"kind": "bid", "bid": 0}, version)
        p0.state_at(version + 1)
        p1.my_turn()
        # seat 1's choices appeared at version + 1: an action chosen before is stale
        p1.act({"kind": "bid", "bid": 0}, version)
        error = p1.error()
        assert error["code"] == "stale" and f"version {version}" in error["error"]
        p1.act({"kind": "bid", "bid": 0}, version + 1)
        assert p1.state_at(version + 2)["last"] == {"seat": 1, "kind": "bid", "bid": 0}


def test_the_same_action_sent_twice_is_applied_once(client: TestClient, tmp_path: Path) -> None:
    table, tokens = three_people(client)
    with connect(client, table, tokens[0]) as p0:
        version = p0.my_turn()["version"]
        p0.act({"kind": "bid", "bid": 1}, version)
        p0.act({"kind": "bid", "bid": 1}, version)
        p0.state_at(version + 1)
        assert p0.error()["code"] == "stale"
        p0.ping()
    lines = stored_lines(tmp_path, table)
    assert len(lines) == version + 1 and lines[-1] == "bid 0 1"
    assert public(client, table)["version"] == version + 1


@pytest.mark.parametrize("kind", ["bid", "play"])
def test_two_tabs_racing_for_one_seat_act_once(client: TestClient, tmp_path: Path, kind: str) -> None:
    """Two connections with the same token send the same action before reading:
    exactly one is applied, the other is refused as stale."""
    table, tokens = three_people(client, {"hook": "no"})
    with contextlib.ExitStack() as stack:
        players = [stack.enter_context(connect(client, table, t)) for t in tokens]
        tab = stack.enter_context(connect(client, table, tokens[0]))
        if kind == "play":  # everyone bids 0; seat 0 leads (R-BID-CHANGE: the bids are kept by the next bid)
            for p in players:
                p.my_turn()
                p.act({"kind": "bid", "bid": 0})
        players[0].state_where(lambda m: m["obs"]["phase"] == kind and 0 in m["obs"]["actors"])
        version = players[0].version
        tab.state_at(version)
        action = next(a for a in players[0].obs["legal"] if a["kind"] == kind)
        players[0].act(action, version)
        tab.act(action, version)
        errors = []
        for p in (players[0], tab):
            p.send({"type": "ping"})
            errors += [m for m in iter(p.recv, {"type": "pong"}) if m["type"] == "error"]
        assert [e["code"] for e in errors] == ["stale"]
        for p in (players[0], tab, players[1]):
            assert p.state_at(version + 1)["last"]["seat"] == 0
        players[1].ping()
    lines = stored_lines(tmp_path, table)
    assert len(lines) == version + 1
    assert lines[-1] == format_action_json(action)


def format_action_json(action: dict[str, Any]) -> str:
    value = action["bid"] if action["kind"] == "bid" else action["card"]
    return f"{action['kind']} {action['seat']} {value}"


def test_devils_bridge_refuses_a_named_card_without_telling_which_you_hold(tmp_path: Path) -> None:
    """R-DEVILS-BRIDGE: on a 1-card hand you cannot see your own card; naming
    any card gets the same refusal, and a play of card null plays it."""
    with serve(tmp_path) as client:
        made = new_table(
            client,
            options={"hand-sizes": "1", "devils-bridge": "yes", "first-dealer": "3"},
            seats=BOTS3,
            start=True,
        )
        table = made["table"]
        with connect(client, table, made["token"]) as p:
            state = p.my_turn()
            assert state["obs"]["devils_bridge"] is True
            assert state["obs"]["hands"][0] is None
            assert all(len(h) == 1 for h in state["obs"]["hands"][1:])
            p.act({"kind": "bid", "bid": 0})
            p.until(lambda m: m["type"] == "state" and m["obs"]["can_change"])
            p.keep()
            state = p.until(
                lambda m: m["type"] == "state" and m["obs"]["phase"] == "play" and 0 in m["obs"]["actors"]
            )
            assert state["obs"]["legal"] == [{"seat": 0, "kind": "play", "card": None}]
            held = str(client.app.state.server.hub.tables[table].state.hands[0][0])  # type: ignore[attr-defined]
            texts = set()
            for rank in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]:
                for suit in "CDHS":
                    p.act({"kind": "play", "card": rank + suit})
                    error = p.error()
                    assert error["code"] == "illegal"
                    texts.add(error["error"])
            assert len(texts) == 1, texts
            assert held not in texts.pop()
            assert public(client, table)["version"] == state["version"]
            p.act({"kind": "play", "card": None})
            played = p.state_at(state["version"] + 1)
            assert played["last"] == {"seat": 0, "kind": "play", "card": held}
            final = play_all([p])
        assert stored_lines(tmp_path, table)[state["version"]] == f"play 0 {held}"
        assert final["obs"]["phase"] == "over"


# --- R-BID-CHANGE: keep ---


def test_bots_wait_after_your_bid_until_you_keep_it(client: TestClient, tmp_path: Path) -> None:
    """R-BID-CHANGE: a bid may be changed until the next player bids, so a bot
    bidding next waits for the person to keep it (or change it)."""
    made = new_table(client, options={"hand-sizes": "3,1", "first-dealer": "3"}, seats=BOTS3, start=True)
    table = made["table"]
    with connect(client, table, made["token"]) as p:
        version = p.my_turn()["version"]
        assert p.obs["can_change"] is False
        p.keep()
        assert p.error()["code"] == "turn"  # nothing to keep yet
        p.act({"kind": "bid", "bid": 2})
        state = p.state_at(version + 1)
        assert state["obs"]["can_change"] is True
        assert set(state["obs"]["actors"]) == {0, 1}  # seat 1 to bid, seat 0 may change
        assert {"seat": 0, "kind": "change", "bid": 1} in state["obs"]["legal"]
        time.sleep(0.3)
        p.ping()  # no bot moved
        assert public(client, table)["version"] == version + 1
        p.act({"kind": "change", "bid": 1})
        state = p.state_at(version + 2)
        assert state["last"] == {"seat": 0, "kind": "change", "bid": 1}
        assert state["obs"]["bids"][0] == 1 and state["obs"]["can_change"] is True
        time.sleep(0.2)
        p.ping()
        p.keep()
        kept = p.recv()
        assert kept["type"] == "state" and kept["version"] == version + 2
        assert kept["obs"]["can_change"] is False
        moved = p.state_at(version + 3)
        assert moved["last"]["seat"] == 1 and moved["last"]["kind"] == "bid"
        assert moved["obs"]["can_change"] is False
        p.act({"kind": "change", "bid": 0}, version + 2)  # too late: seat 1 has bid
        assert p.until(lambda m: m["type"] == "error")["code"] in ("stale", "turn")
    lines = stored_lines(tmp_path, table)
    assert lines[version : version + 3] == ("bid 0 2", "change 0 1", lines[version + 2])
    assert lines[version + 2].startswith("bid 1 ")


# --- Reconnecting and away seats ---


def test_reconnecting_resumes_the_seat(client: TestClient) -> None:
    table, tokens = three_people(client)
    with connect(client, table) as watcher:
        with connect(client, table, tokens[0]) as p0:
            before = p0.my_turn()
            watcher.until(lambda m: m["type"] == "table" and m["seats"][0]["connected"])
        gone = watcher.until(lambda m: m["type"] == "table" and not m["seats"][0]["connected"])
        assert gone["seats"][0]["away"] is False  # away_after is 60 s
        assert public(client, table)["seats"][0]["connected"] is False
        with connect(client, table, tokens[0]) as p0:
            assert p0.seat == 0
            again = p0.state  # sent on connect
            assert again is not None
            assert again["version"] == before["version"]
            assert again["obs"] == before["obs"]
            assert p0.table is not None and p0.table["seats"][0]["connected"] is True
            p0.act({"kind": "bid", "bid": 0})
            assert watcher.state_at(before["version"] + 1)["last"] == {"seat": 0, "kind": "bid", "bid": 0}


def test_a_gone_players_seat_is_played_by_a_bot_until_they_return(tmp_path: Path) -> None:
    with serve(tmp_path, away_after=0.3, bot_delay=0.01) as client:
        made = new_table(
            client, options={"hand-sizes": "6,6,6,6", "first-dealer": "3"}, seats=BOTS3, start=True
        )
        table = made["table"]
        with connect(client, table) as watcher:
            with connect(client, table, made["token"]) as p:
                version = p.my_turn()["version"]
            watcher.state_at(version)
            time.sleep(0.1)
            assert public(client, table)["version"] == version  # not away yet: the table waits
            away = watcher.until(lambda m: m["type"] == "table" and m["seats"][0]["away"])
            assert away["seats"][0]["connected"] is False
            watcher.until(lambda m: m["type"] == "state" and (m["last"] or {}).get("seat") == 0)
            with connect(client, table, made["token"]) as p:
                assert p.table is not None
                assert p.table["seats"][0]["away"] is False and p.table["seats"][0]["connected"] is True
                watcher.until(lambda m: m["type"] == "table" and not m["seats"][0]["away"])
                for _ in range(10):  # a bot's move for the seat may have been under way
                    p.state_where(
                        lambda m: (
                            m["obs"]["can_change"] or any(a["kind"] != "change" for a in m["obs"]["legal"])
                        )
                    )
                    if p.obs["can_change"]:  # R-BID-CHANGE: the bot's bid for the seat is now the person's
                        p.keep()
                        p.until(lambda m: m["type"] == "state" and not m["obs"]["can_change"])
                        continue
                    choice = next(a for a in p.obs["legal"] if a["kind"] != "change")
                    p.act(choice)
                    mine = p.until(
                        lambda m: (
                            m["type"] == "error"
                            or (m["type"] == "state" and (m["last"] or {}).get("seat") == 0)
                        )
                    )
                    if mine["type"] == "state":
                        assert mine["last"] == choice
                        break
                    assert mine["code"] == "stale"
                else:
                    pytest.fail("the returning player could not act")
                final = play_all([p])
                assert final["obs"]["phase"] == "over"


# --- Hints ---


def test_a_hint_is_one_of_your_legal_actions(client: TestClient) -> None:
    table, tokens = three_people(client)
    with contextlib.ExitStack() as stack:
        p0, p1 = (stack.enter_context(connect(client, table, t)) for t in tokens[:2])
        state = p0.my_turn()
        p0.send({"type": "hint"})
        hint = p0.until(lambda m: m["type"] == "hint")
        assert hint["version"] == state["version"]
        assert hint["action"] in state["obs"]["legal"]
        assert hint["ranked"] and all(r["action"] in state["obs"]["legal"] for r in hint["ranked"])
        assert isinstance(hint["expected"], float)
        p1.state_at(state["version"])
        p1.send({"type": "hint"})
        assert p1.error()["code"] == "turn"
        p0.ping()
        assert public(client, table)["version"] == state["version"]  # a hint is not an action


# --- The command ---


def test_serve_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for option in ("--db", "--host", "--port", "--away", "--bot-delay", "--think"):
        assert option in out


def test_serve_refuses_a_bad_database_url() -> None:
    # A subprocess: if the URL is only tried once uvicorn runs, this must not
    # hang or take port 8000.
    done = subprocess.run(
        [sys.executable, "-m", "ohhell.cli", "serve", "--db", "nonsense://", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("ohhell serve: ") and "nonsense" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_refuses_negative_settings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--away", "-1"]) == 2
    assert "--away cannot be negative" in capsys.readouterr().err
