"""Ratings (web/ratings.py): OpenSkill's Plackett-Luce model over finished
matches, once a table; bots as fixed landmarks; what is not rated."""

from __future__ import annotations

import json
import random
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openskill")
pytest.importorskip("starlette")

from sqlalchemy import select

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import connect, from_address, make_app, play_all, with_addresses

from ohhell import PRESETS, make_rules
from ohhell.web.accounts import ratings
from ohhell.web.accounts.model import Accounts
from ohhell.web.accounts.ratings import Entrant, new_ratings, places, rate_table, rated_tables_t, rating_of
from ohhell.web.storage.store import SeatRow, Store

PASSWORD = "correct horse battery"


def test_places_share_ties_and_put_those_who_left_last() -> None:
    entrants = [
        Entrant(0, score=40),
        Entrant(1, score=55),
        Entrant(2, score=40),
        Entrant(3, score=90, left=True),  # ahead when they left: still last
    ]
    assert places(entrants) == [2, 1, 2, 4]


def _table(store: Store, table_id: str, players: int = 4) -> None:
    seats = [SeatRow(s, f"P{s}", "human", None, None) for s in range(players)]
    store.create(table_id, make_rules("pagat", {"players": str(players)}).options(), 1, 0, seats)


def test_a_match_is_rated_once_and_bots_stay_where_they_were(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    accounts = Accounts(store.engine)
    ann = accounts.sign_up("Ann", PASSWORD)
    _table(store, "t1")
    rules = PRESETS["pagat"]
    entrants = [
        Entrant(0, 120, account=ann.id),
        Entrant(1, 80, level="intermediate"),
        Entrant(2, 60, level="intermediate"),
        Entrant(3, 20, level="random"),
    ]
    assert rate_table(store.engine, "t1", rules, entrants) == "rated"
    first = rating_of(store.engine, ann.id)
    assert first.matches == 1 and first.mu > 25 and first.sigma < 8.34 and first.provisional
    # Again (a restart, another process): nothing changes.
    assert rate_table(store.engine, "t1", rules, entrants) == "rated"
    assert rating_of(store.engine, ann.id) == first
    assert ratings.landmarks()["intermediate"] == ratings.landmarks()["intermediate"]  # fixed data
    store.close()


def test_a_hint_other_options_or_one_account_in_two_seats_is_not_rated(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    ann = Accounts(store.engine).sign_up("Ann", PASSWORD)
    pagat = PRESETS["pagat"]
    bots = [Entrant(s, 10 * s, level="beginner") for s in (1, 2, 3)]
    for table_id, rules, entrants, why in (
        ("h", pagat, [Entrant(0, 99, account=ann.id, unrated=True), *bots], "hints"),
        ("o", pagat.replace(hook=not pagat.hook), [Entrant(0, 99, account=ann.id), *bots], "options"),
        ("d", pagat, [Entrant(0, 99, account=ann.id), Entrant(1, 5, account=ann.id), *bots[1:]], "two seats"),
    ):
        _table(store, table_id)
        assert why in rate_table(store.engine, table_id, rules, entrants)
    assert rating_of(store.engine, ann.id).matches == 0
    # Another number of players of a preset is rated.
    assert ratings.rated_rules(pagat.replace(players=5))
    store.close()


def test_a_population_of_known_strengths_converges_to_their_order() -> None:
    # Eight players of known strength play 4-seat matches drawn at random;
    # each match's order is drawn from the true strengths (Plackett-Luce).
    rng = random.Random(7)
    truth = [20.0 + 2.0 * i for i in range(8)]
    rating = {i: (25.0, 25.0 / 3) for i in range(8)}
    for _ in range(400):
        seated = rng.sample(range(8), 4)
        order: list[int] = []
        left = list(seated)
        while left:  # the next place by weight exp(strength / beta)
            weights = [2.718281828 ** (truth[p] / 4.1667) for p in left]
            pick = rng.choices(left, weights)[0]
            order.append(pick)
            left.remove(pick)
        ranks = [order.index(p) + 1 for p in seated]
        after = new_ratings([rating[p] for p in seated], ranks)
        rating.update(zip(seated, after, strict=True))
    by_rating = sorted(range(8), key=lambda p: rating[p][0])
    # Neighbours 2 points apart may swap; the order is otherwise right.
    assert sum(1 for a, b in zip(by_rating, range(8), strict=True) if abs(a - b) > 1) == 0
    assert max(sigma for _, sigma in rating.values()) <= ratings.SETTLED  # settled: no longer provisional


def test_play_now_signed_in_is_rated_and_a_hint_makes_it_unrated(tmp_path: Path) -> None:
    app = with_addresses(make_app(str(tmp_path / "t.db")))
    with TestClient(app) as client:
        r = client.post(
            "/api/account/signup", json={"name": "Ann", "password": PASSWORD}, headers=from_address("a")
        )
        assert r.status_code == 200
        outcomes = []
        results: list[dict[str, list[int]]] = []  # every hand of both matches, as the page saw them
        for hint in (False, True):
            made = client.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
            with connect(client, made["table"], made["token"]) as player:
                if hint:
                    player.my_turn()
                    player.send({"type": "hint"})
                    player.until(lambda m: m["type"] == "hint", "the hint")
                final = play_all([player])
            assert final["obs"]["phase"] == "over"
            results.extend(final["obs"]["results"])
            engine = app.state.server.store.engine
            for _ in range(200):  # rated in a thread as the match ends
                with engine.connect() as db:
                    query = select(rated_tables_t.c.outcome).where(rated_tables_t.c.table_id == made["table"])
                    found = db.execute(query).scalar()
                if found is not None:
                    break
                client.get("/api/account")  # lets the server's loop run
            outcomes.append(found)
        assert outcomes[0] == "rated" and "hints" in str(outcomes[1])
        account = Accounts(engine).by_name("Ann")
        assert account is not None and rating_of(engine, account.id).matches == 1
        # The profile's statistics count both matches, hinted or not.
        stats = client.get("/api/account/history").json()["statistics"]
        assert stats["matches"] == 2 and stats["hands"] == len(results)
        assert stats["exact"] == sum(r["bids"][0] == r["tricks"][0] for r in results)
        assert stats["points_per_hand"] == round(sum(r["scores"][0] for r in results) / len(results), 2)
        assert stats["losses"] == [] and stats["costliest"] == []  # no review asked for
        # Both matches listed, newest first: the hinted one says it is not rated.
        hinted, rated = stats["played"]
        assert "not rated" in hinted["rating"]["outcome"] and rated["rating"]["after"] > 0
        assert rated["rules"].startswith("Okenuff's rules, 4 players") and rated["players"][0] == "Player 1"
        assert 1 <= rated["place"] <= rated["sides"] == 4 and rated["score"] == sum(
            r["scores"][0] for r in results[: len(results) // 2]
        )


def test_a_private_profile_is_not_served_and_the_leaderboard_lists_the_public_with_bots(
    tmp_path: Path,
) -> None:
    app = with_addresses(make_app(str(tmp_path / "t.db")))
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    accounts = Accounts(store.engine)
    ann = accounts.sign_up("Ann", PASSWORD)
    bob = accounts.sign_up("Bob", PASSWORD)
    for n in range(6):  # six rated matches each: enough to be listed
        _table(store, f"m{n}")
        entrants = [Entrant(0, 50, account=ann.id), Entrant(1, 40, account=bob.id)]
        entrants += [Entrant(2, 30, level="beginner"), Entrant(3, 10, level="random")]
        assert rate_table(store.engine, f"m{n}", PRESETS["pagat"], entrants) == "rated"
    accounts.set_public(ann.id, True)
    store.close()
    with TestClient(app) as client:
        # Bob keeps his profile private: to others it is the same 404 as no player at all.
        unknown = client.get("/api/players/Nobody")
        private = client.get("/api/players/bob")
        assert private.status_code == unknown.status_code == 404 and private.json() == unknown.json()
        shown = client.get("/api/players/ann").json()
        assert shown["name"] == "Ann" and len(shown["matches"]) == 6 and shown["rating"]["matches"] == 6
        rows = client.get("/api/leaderboard").json()["rows"]
        names = [r.get("name") or r.get("bot") for r in rows]
        assert "Ann" in names and "Bob" not in names and {"random", "beginner", "intermediate"} <= set(names)
        assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
        # Bob sees his own profile, signed in.
        r = client.post(
            "/api/account/signin", json={"name": "Bob", "password": PASSWORD}, headers=from_address("b")
        )
        assert r.status_code == 200
        assert client.get("/api/players/Bob").json()["rating"]["matches"] == 6
        me = client.get("/api/account").json()["account"]
        assert me["rating"]["matches"] == 6
        standing = me["rating"]["standing"]
        assert re.match(r"[\d,]+\??: (between|above|below) ", standing), standing


def test_an_account_that_never_played_its_seat_is_not_rated_and_rates_nobody_up(tmp_path: Path) -> None:
    # The host seats a second account of theirs and never plays it: a bot
    # covers that seat all match. The seat counts as that bot; the account
    # behind it gets no rating, so made-up seats are worth nothing.
    db = tmp_path / "t.db"
    with (
        TestClient(with_addresses(make_app(str(db), away_after=0.05))) as host,
        TestClient(with_addresses(make_app(str(db), away_after=0.05))) as other,
    ):
        host.post(
            "/api/account/signup", json={"name": "Ann", "password": PASSWORD}, headers=from_address("a")
        )
        other.post(
            "/api/account/signup", json={"name": "Bob", "password": PASSWORD}, headers=from_address("b")
        )
        body = {"preset": "okenuff", "seats": ["human", "human", "random", "random"], "name": "Ann"}
        made = host.post("/api/tables", json=body).json()
        joined = other.post(f"/api/tables/{made['table']}/join", json={"seat": 1, "name": "Bob"})
        assert joined.status_code == 200
        assert (
            host.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code == 200
        )
        with connect(host, made["table"], made["token"]) as player:
            assert play_all([player])["obs"]["phase"] == "over"
        engine = host.app.state.server.store.engine  # type: ignore[attr-defined]
        for _ in range(200):
            with engine.connect() as conn:
                query = select(rated_tables_t.c.outcome).where(rated_tables_t.c.table_id == made["table"])
                if conn.execute(query).scalar() is not None:
                    break
            host.get("/api/account")
        accounts = Accounts(engine)
        ann, bob = accounts.by_name("Ann"), accounts.by_name("Bob")
        assert ann is not None and bob is not None
        assert rating_of(engine, ann.id).matches == 1
        assert rating_of(engine, bob.id).matches == 0


def test_a_finished_table_loaded_again_after_a_restart_is_not_rated_twice(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with TestClient(with_addresses(make_app(str(db)))) as client:
        signup = {"name": "Ann", "password": PASSWORD}
        client.post("/api/account/signup", json=signup, headers=from_address("a"))
        made = client.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
        with connect(client, made["table"], made["token"]) as player:
            play_all([player])
        engine = client.app.state.server.store.engine  # type: ignore[attr-defined]
        for _ in range(200):
            with engine.connect() as conn:
                query = select(rated_tables_t.c.outcome).where(rated_tables_t.c.table_id == made["table"])
                if conn.execute(query).scalar() is not None:
                    break
            client.get("/api/account")
        ann = Accounts(engine).by_name("Ann")
        assert ann is not None
        first = rating_of(engine, ann.id)
    # Another process (a restart) loads the finished table: it asks to rate it, which changes nothing.
    with TestClient(with_addresses(make_app(str(db)))) as again:
        assert again.get(f"/api/tables/{made['table']}").json()["status"] == "over"
        record = again.get(
            f"/api/tables/{made['table']}/record", headers={"Authorization": f"Bearer {made['token']}"}
        )
        assert record.status_code == 200
        engine = again.app.state.server.store.engine  # type: ignore[attr-defined]
        assert rating_of(engine, ann.id) == first and first.matches == 1


def test_each_preset_has_its_own_rating_and_a_board_once_three_players_have_one(tmp_path: Path) -> None:
    app = with_addresses(make_app(str(tmp_path / "t.db")))
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    accounts = Accounts(store.engine)
    people = [accounts.sign_up(name, PASSWORD) for name in ("Ann", "Bob", "Cyd")]
    for person in people:
        accounts.set_public(person.id, True)
    n = 0
    for preset, seated in (("river", people), ("pagat", people[:2])):
        for _ in range(6):  # enough rated matches to be listed
            n += 1
            _table(store, f"m{n}")
            entrants = [Entrant(i, 100 - 10 * i, account=p.id) for i, p in enumerate(seated)]
            entrants += [Entrant(len(entrants), 5, level="random")]
            assert rate_table(store.engine, f"m{n}", PRESETS[preset], entrants) == "rated"
    # Ann won all twelve: her overall rating counts both presets' matches,
    # each preset's only its own.
    river = ratings.rating_of(store.engine, people[0].id, "river")
    pagat = ratings.rating_of(store.engine, people[0].id, "pagat")
    overall = ratings.rating_of(store.engine, people[0].id)
    assert (river.matches, pagat.matches, overall.matches) == (6, 6, 12)
    assert (
        overall.mu > max(river.mu, pagat.mu)
        and ratings.rating_of(store.engine, people[2].id, "pagat").matches == 0
    )
    store.close()
    with TestClient(app) as client:
        board = client.get("/api/leaderboard").json()
        # River has three listed players; Pagat's two are not a board of their own.
        assert board["preset"] is None and [p["preset"] for p in board["presets"]] == ["river"]
        river_board = client.get("/api/leaderboard?preset=river").json()
        names = [r["name"] for r in river_board["rows"] if "name" in r]
        assert river_board["preset"] == "river" and names == ["Ann", "Bob", "Cyd"]
        assert [r["matches"] for r in river_board["rows"] if "name" in r] == [6, 6, 6]
        assert {"random", "expert"} <= {r.get("bot") for r in river_board["rows"]}
        wrong = client.get("/api/leaderboard?preset=" + "x" * 5000)
        assert wrong.status_code == 400 and "presets are" in wrong.json()["error"]
        profile = client.get("/api/players/Ann").json()
        assert [(p["preset"], p["matches"]) for p in profile["presets"]] == [("pagat", 6), ("river", 6)]
        r = client.post(
            "/api/account/signin", json={"name": "Cyd", "password": PASSWORD}, headers=from_address("c")
        )
        assert r.status_code == 200
        mine = client.get("/api/account").json()["account"]["presets"]
        assert [(p["preset"], p["matches"]) for p in mine] == [("river", 6)]
        data = client.get("/api/account/data").json()
        assert data["ratings"]["overall"]["matches"] == 6 and len(data["ratings"]["matches"]) == 6
        # Deleting the account takes its ratings with it, the preset's too.
        r = client.post("/api/account/delete", json={"password": PASSWORD}, headers=from_address("c"))
        assert r.status_code == 200
        names = [r["name"] for r in client.get("/api/leaderboard?preset=river").json()["rows"] if "name" in r]
        assert names == ["Ann", "Bob"]


def _sign_up(client: TestClient, name: str) -> None:
    body = {"name": name, "password": PASSWORD}
    answer = client.post("/api/account/signup", json=body, headers=from_address("a"))
    assert answer.status_code == 200, answer.text


def _bid_once(player: Any) -> None:
    """The person's first decision, taken (a match under way, theirs played)."""
    state = player.my_turn()
    player.act(next(a for a in state["obs"]["legal"] if a["kind"] != "change"))
    player.state_where(lambda m: m["version"] > state["version"], "the bid taken")


def _rated(client: TestClient, table: str) -> str:
    """The table's rating outcome, once it is written (in a thread)."""
    engine = client.app.state.server.store.engine  # type: ignore[attr-defined]
    for _ in range(300):
        with engine.connect() as db:
            query = select(rated_tables_t.c.outcome).where(rated_tables_t.c.table_id == table)
            found = db.execute(query).scalar()
        if found is not None:
            return str(found)
        client.get("/api/account")  # lets the server's loop run
    raise AssertionError("the table was never rated")


def test_a_host_who_ends_a_match_under_way_is_rated_last_and_nobody_else_is_moved(tmp_path: Path) -> None:
    # Ending the match when it goes badly must cost what losing it does.
    app = with_addresses(make_app(str(tmp_path / "t.db")))
    with TestClient(app) as client:
        _sign_up(client, "Ann")
        made = client.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
        with connect(client, made["table"], made["token"]) as player:
            _bid_once(player)
            player.send({"type": "end"})
            player.until(lambda m: m["type"] == "table" and m["status"] == "ended", "the end")
        assert _rated(client, made["table"]) == "rated"
        engine = app.state.server.store.engine
        ann = Accounts(engine).by_name("Ann")
        assert ann is not None
        with engine.connect() as db:
            changes = db.execute(select(ratings.rating_changes_t)).all()
        # Ann alone is moved, down, in last place of four.
        assert [(c.account_id, c.place, c.players) for c in changes] == [(ann.id, 4, 4)]
        assert changes[0].mu_after < changes[0].mu_before
        played = client.get("/api/account/history").json()["statistics"]["played"]
        assert played[0]["ended"] and played[0]["rating"]["after"] < played[0]["rating"]["before"]


def test_the_server_s_host_closing_a_table_rates_nobody(tmp_path: Path) -> None:
    from ohhell.web.tables.seating import end

    app = with_addresses(make_app(str(tmp_path / "t.db")))
    with TestClient(app) as client:
        _sign_up(client, "Ann")
        made = client.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
        with connect(client, made["table"], made["token"]) as player:
            _bid_once(player)
            table = app.state.server.hub.tables[made["table"]]
            client.portal.call(lambda: end(table, "The server closed the table.", by_host=False))  # type: ignore[union-attr]
            player.until(lambda m: m["type"] == "table" and m["status"] == "ended", "the end")
        client.get("/api/account")
        engine = app.state.server.store.engine
        with engine.connect() as db:
            assert db.execute(select(rated_tables_t)).all() == []


def test_who_let_a_bot_finish_is_placed_last_and_a_seat_the_host_took_is_not() -> None:
    from ohhell.web.accounts.ratings import rate_finished

    rules = PRESETS["pagat"]
    seats = [("human", None), ("human", None), ("human", None), ("bot", "random")]
    calls: list[list[Entrant]] = []

    def capture(engine: object, table_id: str, rules: object, entrants: list[Entrant]) -> str:
        calls.append(list(entrants))
        return "rated"

    original = ratings.rate_table
    ratings.rate_table = capture  # type: ignore[assignment]
    try:
        # Seat 1 played 3 of its decisions and closed the page (a bot made
        # the rest); seat 2 was removed by the host; seat 0 played it all.
        rate_finished(
            None,  # type: ignore[arg-type]
            "t",
            rules,
            seats,
            [10, 90, 80, 5],
            {0: "ann", 1: "bob", 2: "cyd"},
            unrated=set(),
            played={0, 2},
            acted={0, 1, 2},
            removed={2},
            cover="intermediate",
        )
    finally:
        ratings.rate_table = original  # type: ignore[assignment]
    ann, bob, cyd, bot = calls[0]
    assert ann.account == "ann" and not ann.left
    assert bob.account == "bob" and bob.left  # placed last, whatever the bot scored for him
    assert places(calls[0])[1] == 4
    assert cyd.account is None and cyd.level == "intermediate" and not cyd.left  # neither last nor rated
    assert bot.level == "random"


def test_others_see_no_private_table_of_a_public_profile(tmp_path: Path) -> None:
    app = with_addresses(make_app(str(tmp_path / "t.db")))
    with TestClient(app) as client:
        _sign_up(client, "Ann")
        client.post("/api/account/public", json={"public": True}, headers=from_address("a"))
        made = client.post("/api/play-now", json={"level": "random", "preset": "okenuff"}).json()
        with connect(client, made["table"], made["token"]) as player:
            play_all([player])
        _rated(client, made["table"])
        mine = client.get("/api/account/history").json()
        assert mine["statistics"]["played"][0]["table"] == made["table"]
        client.post("/api/account/signout", json={}, headers=from_address("a"))
        seen = client.get("/api/players/Ann").json()
        assert seen["statistics"]["played"][0]["table"] is None
        assert seen["statistics"]["played"][0]["players"][1:] == [None, None, None]
        assert all(m["table"] is None for m in seen["matches"]) and len(seen["matches"]) == 1
        assert made["table"] not in json.dumps(seen)
