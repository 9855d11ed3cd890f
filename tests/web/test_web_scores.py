"""The web scorekeeper (issue 6): ``/score`` pages and ``/api/scores`` (docs/web.md).

The model (``ohhell.scorekeeper.model.ScoreGame``) is tested in test_scorekeeper.py;
here the HTTP layer: setup, entries in order, refusals that change nothing,
edits and undo, the read-only link, persistence and exports. Everything runs
in-process through Starlette's TestClient on a fresh SQLite file per test.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3
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
from web_support import make_app

from ohhell.rules import make_rules
from ohhell.scorekeeper import ScoreGame
from ohhell.web.serving.scores import score_routes

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NAMES = ["Ann", "Bob", "Cid", "Dee"]
Json = dict[str, Any]


def scores_app(db: Path) -> Any:
    """``create_app`` with the scorekeeper's routes (added here until app.py lists them)."""
    app = make_app(str(db))
    if not any(getattr(r, "path", None) == "/api/scores" for r in app.router.routes):
        app.router.routes[0:0] = score_routes(app.state.server)
    return app


@contextlib.contextmanager
def serve(db: Path) -> Iterator[TestClient]:
    with TestClient(scores_app(db)) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serve(tmp_path / "t.db") as c:
        yield c


def create(client: TestClient, **body: Any) -> Json:
    body.setdefault("players", NAMES)
    r = client.post("/api/scores", json=body)
    assert r.status_code == 200, r.text
    made: Json = r.json()
    return made


def entry(client: TestClient, made: Json, status: int = 200, **body: Any) -> Json:
    body.setdefault("edit_token", made["edit_token"])
    r = client.post(f"/api/scores/{made['id']}/entry", json=body)
    assert r.status_code == status, r.text
    answer: Json = r.json()
    return answer


def sheet(client: TestClient, made: Json) -> Json:
    r = client.get(f"/api/scores/{made['id']}")
    assert r.status_code == 200, r.text
    answer: Json = r.json()
    return answer


def bids(client: TestClient, made: Json, values: dict[int, int]) -> Json:
    """Enter bids in the sheet's bidding order (R-BID-ORDER); ``values`` by seat."""
    answer = sheet(client, made)
    for seat in answer["current"]["bidding_order"]:
        answer = entry(client, made, op="bid", seat=seat, bid=values[seat])
    return answer


def pagat_short(client: TestClient) -> Json:
    """Pagat (R-SC-PAGAT: 10 + bid when exact), hands of 2 then 1 card, Dee deals first."""
    return create(client, preset="pagat", options={"hand-sizes": "2,1"}, first_dealer=3)


# --- Setting up ---


def test_create_and_current_hand(client: TestClient) -> None:
    made = pagat_short(client)
    assert set(made) == {"id", "edit_token"}
    s = sheet(client, made)
    assert s["id"] == made["id"] and s["players"] == NAMES
    assert s["finished"] is False and s["hands"] == [] and s["totals"] == [0, 0, 0, 0]
    cur = s["current"]
    # R-DEALER-ROTATE: Dee (3) deals; R-BID-ORDER: Ann, left of the dealer, bids first.
    assert (cur["hand"], cur["cards"], cur["dealer"], cur["first_bidder"]) == (1, 2, 3, 0)
    assert cur["bidding_order"] == [0, 1, 2, 3] and cur["next_bidder"] == 0
    assert cur["trump_known"] is False and cur["trump_rule"] == "turned"  # R-TRUMP-TURN
    assert s["rules"]["players"] == "4" and s["hands_scheduled"] == 2
    assert "edit_token" not in json.dumps(s) and made["edit_token"] not in json.dumps(s)


def test_trump_fixed_by_the_rules_is_shown(client: TestClient) -> None:
    made = create(
        client, preset="pagat", options={"trump": "rotate", "trump-rotation": "H,S"}, first_dealer=0
    )
    assert sheet(client, made)["current"]["trump"] == "H"  # R-TRUMP-ROTATE
    made = create(client, preset="pagat", options={"trump": "fixed", "trump-suit": "C"}, first_dealer=0)
    assert sheet(client, made)["current"]["trump"] == "C"  # R-TRUMP-FIXED
    made = create(client, preset="pagat", options={"hand-sizes": "13"}, first_dealer=0)
    cur = sheet(client, made)["current"]
    assert cur["trump_known"] and cur["trump"] == "NT"  # R-TRUMP-NONE-ALL-DEALT


def test_players_set_the_number_of_seats_and_preset_dealer(client: TestClient) -> None:
    made = create(client, players=["Ann", "Bob", "Cid"], preset="common")
    s = sheet(client, made)
    assert s["rules"]["players"] == "3" and s["first_dealer"] == 0  # common: seat 0 deals first
    assert s["current"]["cards"] == make_rules("common", {"players": "3"}).schedule[0]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"players": NAMES, "preset": "pagat"}, "draw at the table"),  # R-DEALER-DRAW
        ({"players": ["Ann", "ann", "Bob", "Cid"], "first_dealer": 0}, "same name"),
        ({"players": ["Ann", "Bob"], "first_dealer": 0}, "3 to 7 players"),
        ({"players": NAMES, "first_dealer": 4}, "first dealer"),
        ({"players": NAMES, "first_dealer": "Ann"}, "first_dealer"),
        ({"players": NAMES, "first_dealer": 0, "preset": "nope"}, "unknown preset"),
        ({"players": NAMES, "first_dealer": 0, "options": {"hook": "perhaps"}}, "hook"),
        ({"players": NAMES, "first_dealer": 0, "options": {"players": "5"}}, "5 players"),
        ({"players": ["Ann", "", "Cid", "Dee"], "first_dealer": 0}, "name"),
        ({"players": "Ann,Bob,Cid", "first_dealer": 0}, "players"),
    ],
)
def test_setup_refusals(client: TestClient, body: Json, words: str) -> None:
    r = client.post("/api/scores", json=body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]


# --- Entering a game ---


def test_whole_short_game(client: TestClient) -> None:
    made = pagat_short(client)
    s = bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})  # the dealer may bid 0: the bids total 1 of 2
    assert s["current"]["balance"] == "under"  # R-BID-ANNOUNCE
    s = entry(client, made, op="trump", suit="S")  # the turned card, for the record
    assert s["current"]["trump"] == "S"
    s = entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    hand = s["hands"][0]
    # R-SC-PAGAT: 10 + the bid when exact; Cid bid 0 and took 1: a blob.
    assert hand["scores"] == [11, 10, 0, 10] and hand["missed"] == [2] and hand["complete"]
    assert s["totals"] == [11, 10, 0, 10]
    cur = s["current"]
    assert (cur["hand"], cur["cards"], cur["dealer"], cur["first_bidder"]) == (2, 1, 0, 1)  # R-DEALER-ROTATE
    s = bids(client, made, {1: 1, 2: 1, 3: 1, 0: 1})  # 4 bids of 1 in a hand of 1: over
    assert s["current"]["balance"] == "over"
    s = entry(client, made, op="tricks", tricks=[0, 0, 1, 0])
    assert s["finished"] is True and s["current"] is None
    assert s["totals"] == [11, 10, 11, 10]
    assert s["running"] == [[11, 10, 0, 10], [11, 10, 11, 10]]
    assert s["exact"] == [1, 1, 1, 1] and s["exact_rates"] == [0.5, 0.5, 0.5, 0.5]
    # R-WIN: a tie without a tie break shares the place.
    assert [(x["place"], x["seats"]) for x in s["standings"]] == [(1, [0]), (1, [2]), (3, [1]), (3, [3])]
    assert s["settlement"] is None  # R-SETTLE is Okenuff's
    r = client.post(f"/api/scores/{made['id']}/entry", json={"edit_token": made["edit_token"], "op": "bid"})
    assert r.status_code == 400


def test_okenuff_trump_no_trump_doubling_and_settlement(client: TestClient) -> None:
    made = create(client, preset="okenuff", options={"hand-sizes": "4"}, first_dealer=3)
    s = bids(client, made, {0: 1, 1: 0, 2: 2, 3: 0})
    cur = s["current"]
    assert cur["trump_namer"] == 2 and cur["needs_trump"]  # R-TRUMP-BIDDER: Cid bid highest
    r = entry(client, made, 400, op="tricks", tricks=[1, 0, 3, 0])
    assert "must name trump" in r["error"]
    s = entry(client, made, op="trump", suit="NT")
    assert s["current"]["trump"] == "NT"
    s = entry(client, made, op="tricks", tricks=[1, 0, 2, 1])
    game = ScoreGame(make_rules("okenuff", {"hand-sizes": "4"}), NAMES, 3)
    for seat, bid in ((0, 1), (1, 0), (2, 2), (3, 0)):
        game.bid(seat, bid)
    game.name_trump(None)
    game.tricks([1, 0, 2, 1])
    assert s["totals"] == list(game.totals)
    # R-SC-OKENUFF: 0 scores 5, 1 scores 6, 2 scores 8; a missed bid of 0 by one loses 5;
    # no trump doubles the hand.
    assert s["hands"][0]["scores"] == [12, 10, 16, -10]
    assert s["finished"]
    assert s["settlement_net"] == game.settlement_net() and sum(s["settlement_net"]) == 0  # R-SETTLE
    assert s["settlement"][0][3] == 22  # what Dee pays Ann


def test_hook_refusal_changes_nothing(client: TestClient) -> None:
    made = pagat_short(client)
    for seat, bid in ((0, 1), (1, 0), (2, 0)):
        s = entry(client, made, op="bid", seat=seat, bid=bid)
    assert s["current"]["next_bidder"] == 3 and s["current"]["forbidden"] == 1  # R-HOOK
    before = sheet(client, made)
    r = entry(client, made, 400, op="bid", seat=3, bid=1)
    assert "hook forbids Dee" in r["error"] and r["rule"] == "R-HOOK" and "R-" not in r["error"]
    after = sheet(client, made)
    assert after == before  # nothing changed, not even the revision
    r = entry(client, made, 400, op="bid", seat=0, bid=0)  # not Ann's turn (R-BID-ORDER)
    assert "turn to bid" in r["error"] and r["rule"] == "R-BID-ORDER"
    r = entry(client, made, 400, op="bid", seat=3, bid=3)  # R-BID-RANGE
    assert "a bid is from 0 to" in r["error"] and r["rule"] == "R-BID-RANGE"
    assert entry(client, made, op="bid", seat=3, bid=2)["current"]["balance"] == "over"


def test_no_hook_allows_the_even_bid(client: TestClient) -> None:
    made = create(client, preset="pagat", options={"hook": "no", "hand-sizes": "2"}, first_dealer=3)
    s = bids(client, made, {0: 1, 1: 0, 2: 0, 3: 1})
    assert s["current"]["balance"] == "even" and s["current"]["forbidden"] is None


def test_tricks_must_total_the_hand_size(client: TestClient) -> None:
    made = pagat_short(client)
    r = entry(client, made, 400, op="tricks", tricks=[1, 1, 0, 0])
    assert "enter every bid" in r["error"]
    bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
    before = sheet(client, made)
    r = entry(client, made, 400, op="tricks", tricks=[1, 1, 1, 0])
    assert "add up to 3" in r["error"] and "2 tricks" in r["error"]
    entry(client, made, 400, op="tricks", tricks=[2, 0, 0])  # one seat missing
    entry(client, made, 400, op="tricks", tricks=[3, -1, 0, 0])
    entry(client, made, 400, op="tricks", tricks="2 0 0 0")
    assert sheet(client, made) == before


def test_revoke_costs_twenty(client: TestClient) -> None:
    made = pagat_short(client)
    r = entry(client, made, 400, op="revoke", seat=1)  # before the bidding is over
    assert "revoke" in r["error"]
    bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
    s = entry(client, made, op="revoke", seat=1)
    assert s["current"]["revokes"] == [1]
    s = entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    assert s["hands"][0]["scores"] == [11, -10, 0, 10]  # R-REVOKE: Bob made his 0 (10) and pays 20
    s = entry(client, made, op="revoke", seat=2, hand=1)  # a revoke found later, in hand 1
    assert s["hands"][0]["revokes"] == [1, 2] and s["totals"] == [11, -10, -20, 10]
    entry(client, made, 400, op="revoke", seat=2, hand=5)
    entry(client, made, 400, op="revoke", seat=9)


def test_edit_past_hand_recomputes_everything(client: TestClient) -> None:
    made = pagat_short(client)
    bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
    entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    bids(client, made, {1: 1, 2: 1, 3: 1, 0: 1})
    s = entry(client, made, op="tricks", tricks=[0, 0, 1, 0])
    assert s["totals"] == [11, 10, 11, 10]
    s = entry(client, made, op="edit", hand=1, tricks=[1, 1, 0, 0])
    assert s["hands"][0]["scores"] == [11, 0, 10, 10] and s["hands"][0]["missed"] == [1]
    assert s["running"] == [[11, 0, 10, 10], [11, 0, 21, 10]] and s["totals"] == [11, 0, 21, 10]
    assert s["standings"][0]["seats"] == [2]
    s = entry(client, made, op="edit", hand=1, bids=[1, 1, 0, 1])  # Dee's bid 1 would be even...
    assert "edit" in s["done"]
    # ...which the hook forbids: now refused with the hand and the reason, and nothing changes.
    before = sheet(client, made)
    r = entry(client, made, 400, op="edit", hand=1, bids=[1, 0, 0, 1])
    assert r["error"].startswith("the edit is refused: hand 1") and r["rule"] == "R-HOOK"
    r = entry(client, made, 400, op="edit", hand=3, tricks=[1, 0, 0, 0])
    assert "no hand 3" in r["error"]
    entry(client, made, 400, op="edit", hand=1)
    assert sheet(client, made) == before


def test_edit_trump_under_okenuff(client: TestClient) -> None:
    made = create(client, preset="okenuff", options={"hand-sizes": "4,4"}, first_dealer=3)
    bids(client, made, {0: 1, 1: 0, 2: 2, 3: 0})
    entry(client, made, op="trump", suit="H")
    s = entry(client, made, op="tricks", tricks=[1, 0, 2, 1])
    plain = s["hands"][0]["scores"]
    s = entry(client, made, op="edit", hand=1, trump="NT")  # no trump doubles (R-SC-OKENUFF)
    assert s["hands"][0]["trump"] == "NT" and s["hands"][0]["scores"] == [2 * x for x in plain]


def test_undo(client: TestClient) -> None:
    made = pagat_short(client)
    assert sheet(client, made)["can_undo"] is False
    r = entry(client, made, 400, op="undo")
    assert "nothing to undo" in r["error"]
    entry(client, made, op="bid", seat=0, bid=1)
    s = entry(client, made, op="bid", seat=1, bid=0)
    assert s["can_undo"] is True
    s = entry(client, made, op="undo")
    assert s["current"]["bids"] == [1, None, None, None] and s["done"] == "undone: Bob's bid"
    s = entry(client, made, op="undo")
    assert s["hands"] == [] and s["current"]["next_bidder"] == 0


def test_undo_takes_back_an_edit(client: TestClient) -> None:
    """Undo takes back the last command, an edit of a past hand included."""
    made = pagat_short(client)
    bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
    entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    entry(client, made, op="bid", seat=1, bid=0)
    s = entry(client, made, op="edit", hand=1, tricks=[2, 0, 0, 0])
    assert s["totals"] == [0, 10, 10, 10]
    s = entry(client, made, op="undo")
    assert s["done"] == "undone: the edit of hand 1"
    assert s["totals"] == [11, 10, 0, 10] and s["current"]["bids"] == [None, 0, None, None]


# --- Read-only, persistence, exports ---


def test_read_only_without_the_token(client: TestClient) -> None:
    made = pagat_short(client)
    url = f"/api/scores/{made['id']}/entry"
    for body in (
        {"op": "bid", "seat": 0, "bid": 1},
        {"op": "bid", "seat": 0, "bid": 1, "edit_token": "x" * 43},
    ):
        r = client.post(url, json=body)
        assert r.status_code == 403 and "read-only" in r.json()["error"]
    other = pagat_short(client)  # another sheet's token is no good here
    r = client.post(url, json={"op": "undo", "edit_token": other["edit_token"]})
    assert r.status_code == 403
    assert sheet(client, made)["current"]["bids"] == [None] * 4
    verify = f"/api/scores/{made['id']}/verify"
    assert client.post(verify, json={"edit_token": made["edit_token"]}).json()["editable"] is True
    assert client.post(verify, json={"edit_token": other["edit_token"]}).status_code == 403
    assert client.post(verify, json={}).status_code == 403


def test_stale_revision_is_refused(client: TestClient) -> None:
    made = pagat_short(client)
    rev = sheet(client, made)["revision"]
    s = entry(client, made, op="bid", seat=0, bid=1, revision=rev)
    assert s["revision"] == rev + 1
    r = entry(client, made, 409, op="bid", seat=1, bid=0, revision=rev)  # a second device, behind
    assert "changed meanwhile" in r["error"]
    assert sheet(client, made)["current"]["bids"] == [1, None, None, None]


def test_persistence_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with serve(db) as client:
        made = pagat_short(client)
        bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
        entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
        entry(client, made, op="edit", hand=1, tricks=[2, 0, 0, 0])
        before = sheet(client, made)
    with serve(db) as client:
        after = sheet(client, made)
        assert after == before
        s = entry(client, made, op="undo")  # the undo history is stored too
        assert s["done"] == "undone: the edit of hand 1" and s["totals"] == [11, 10, 0, 10]
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"ohhell_tables", "ohhell_scoregames"} <= tables  # the same database as web matches


def test_exports(client: TestClient) -> None:
    made = pagat_short(client)
    bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
    entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    entry(client, made, op="bid", seat=1, bid=1)
    r = client.get(f"/api/scores/{made['id']}/export.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert f"ohhell-score-{made['id']}.csv" in r.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 2
    assert rows[0]["dealer"] == "Dee" and rows[0]["first bidder"] == "Ann" and rows[0]["cards"] == "2"
    assert (rows[0]["Cid bid"], rows[0]["Cid took"], rows[0]["Cid made"]) == ("0", "1", "no")
    assert rows[0]["Ann total"] == "11" and rows[1]["Bob bid"] == "1" and rows[1]["Bob took"] == ""
    r = client.get(f"/api/scores/{made['id']}/export.json")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    data = r.json()
    assert data["format"] == "ohhell-scoresheet" and data["version"] == 2 and data["players"] == NAMES
    # Dee (the fourth player) was picked to deal first: both fields say so, counted from 1.
    assert data["first_dealer"] == 4 and data["rules"]["first-dealer"] == "4"
    assert data["hands"][0] == {"bids": [1, 0, 0, 0], "trump": None, "tricks": [1, 0, 1, 0], "revokes": []}
    game = ScoreGame.from_json(r.text)  # what `ohhell score --file` reads
    assert game.totals == (11, 10, 0, 10) and game.current is not None and game.current.bids[1] == 1


def test_unknown_sheet_is_404(client: TestClient) -> None:
    for path in ("/api/scores/nope", "/api/scores/nope/export.csv", "/api/scores/nope/export.json"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["error"] == "there is no such score sheet"
    r = client.post("/api/scores/nope/entry", json={"op": "undo", "edit_token": "x"})
    assert r.status_code == 404
    assert client.get("/api/scores/" + "x" * 200).status_code == 404


def test_bad_requests_are_400(client: TestClient) -> None:
    made = pagat_short(client)
    url = f"/api/scores/{made['id']}/entry"
    token = made["edit_token"]
    for raw in (b"{not json", b"[1, 2]", b'"text"'):
        assert client.post("/api/scores", content=raw).status_code == 400
        r = client.post(url, content=raw)
        assert r.status_code == 400, r.text
    assert client.post("/api/scores", content=b"x" * 70_000).status_code == 400
    for body, words in (
        ({"op": "dance"}, "unknown op"),
        ({}, "unknown op"),
        ({"op": "bid", "seat": "Ann", "bid": 1}, '"seat"'),
        ({"op": "bid", "seat": 0, "bid": 1.5}, '"bid"'),
        ({"op": "bid", "seat": 7, "bid": 1}, "not a seat"),
        ({"op": "trump", "suit": 3}, "trump"),
        ({"op": "trump", "suit": "X"}, "NT"),
        ({"op": "tricks", "tricks": [1, None, 0, 0]}, "tricks"),
        ({"op": "edit", "hand": "1", "bids": [0, 0, 0, 0]}, '"hand"'),
        ({"op": "revoke", "seat": 0, "hand": "1"}, '"hand"'),
    ):
        r = client.post(url, json={"edit_token": token, **body})
        assert r.status_code == 400, (body, r.text)
        assert words in r.json()["error"], (body, r.text)
    assert sheet(client, made)["revision"] == 0


def test_pages(client: TestClient) -> None:
    made = pagat_short(client)
    for path in ("/score", f"/score/{made['id']}"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        for needle in ('id="sheet"', 'id="entry"', 'id="totals"', 'id="standings"', 'id="undo"', "score.js"):
            assert needle in r.text
    for name in ("score.js", "score.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/").status_code == 200  # the other pages are untouched


# --- The words of the sheet (a new player's trial) ---


def test_the_dealer_picked_is_the_rules_dealer(client: TestClient) -> None:
    # R-DEALER-DRAW: pagat draws for the first dealer; the keeper picked Dee after the draw,
    # so "Rules of this game" and the rules exported say Dee, never that the dealer is drawn.
    made = pagat_short(client)
    s = sheet(client, made)
    assert "Dee deals first; the deal passes to the left." in s["description"]
    assert not any("drawn" in line for line in s["description"])
    assert s["rules"]["first-dealer"] == "3" == str(s["first_dealer"])  # the page's view: seats from 0
    assert s["date"] is not None and len(s["date"]) == 10  # the day the sheet was started


def test_the_title_says_the_changed_rules_in_words(client: TestClient) -> None:
    made = create(client, preset="pagat", options={"hand-sizes": "3,2", "hook": "no"}, first_dealer=0)
    title = sheet(client, made)["title"]
    assert title == "Pagat's rules, 4 players: hands of 3 and 2 cards, no hook"
    assert "hand-sizes" not in title and "first-dealer" not in title


def test_an_undo_stored_by_the_older_form_still_works(tmp_path: Path) -> None:
    # Undo entries written before version 2 have no version and count revokes from seat 0.
    db = tmp_path / "t.db"
    with serve(db) as client:
        made = pagat_short(client)
        bids(client, made, {0: 1, 1: 0, 2: 0, 3: 0})
        entry(client, made, op="revoke", seat=3)
        entry(client, made, op="tricks", tricks=[1, 0, 1, 0])
    old = [
        {
            "what": "the tricks of hand 1",
            "hands": [{"bids": [1, 0, 0, 0], "trump": None, "tricks": None, "revokes": [3]}],
        }
    ]
    with sqlite3.connect(db) as con:
        con.execute("UPDATE ohhell_scoregames SET undo = ?", (json.dumps(old),))
    with serve(db) as client:
        s = entry(client, made, op="undo")
        assert s["done"] == "undone: the tricks of hand 1"
        assert s["current"]["revokes"] == [3] and s["current"]["tricks"] is None  # Dee's revoke
