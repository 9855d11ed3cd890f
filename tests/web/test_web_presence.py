"""Who is at a table, and what that costs: a table's bots play only while a
person of the table is there or has been gone a short while (docs/web.md,
"Lifetimes"), and a seat's player coming and going is told to the others
at most every half second, as watchers' comings and goings are.

The server's clock is one the test moves (``create_app(now=...)``), so
"gone for five minutes" takes no waiting.
"""

from __future__ import annotations

import contextlib
import time
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
from web_support import Json, Still, connect, join, make_app

from ohhell.web.tables import table as table_module
from ohhell.web.tables.table import LEFT_ALONE

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


class Server:
    def __init__(self, client: TestClient, app: Any, clock: Still) -> None:
        self.client = client
        self.app = app
        self.clock = clock

    @property
    def hub(self) -> Any:
        return self.app.state.server.hub

    def on_loop(self, fn: Any) -> Any:
        async def call() -> Any:
            return fn()

        return self.client.portal.call(call)  # type: ignore[union-attr]

    def advance(self, seconds: float) -> None:
        """Move the server's time on and let every table look again."""

        def move() -> None:
            self.clock.t += seconds
            for live in self.hub.tables.values():
                live.wake.set()

        self.on_loop(move)

    def automatic(self, table: str) -> Any:
        """What the table's driver would do now: None when it waits."""
        return self.on_loop(lambda: self.hub.tables[table]._automatic(self.clock()))

    def version(self, table: str) -> int:
        version: int = self.client.get(f"/api/tables/{table}").json()["version"]
        return version


@contextlib.contextmanager
def serve(tmp_path: Path, **settings: Any) -> Iterator[Server]:
    clock = Still()
    app = make_app(str(tmp_path / "t.db"), now=clock, **settings)
    with TestClient(app) as client:
        yield Server(client, app, clock)


def still(server: Server, table: str, seconds: float = 0.3) -> int:
    """The table's version, checked not to move for ``seconds`` of real time."""
    before = server.version(table)
    time.sleep(seconds)
    assert server.version(table) == before, "the bots went on"
    return before


# --- A table's bots play for its people, not for a watcher ---


def test_a_play_now_table_only_a_watcher_opened_waits_for_its_person(tmp_path: Path) -> None:
    with serve(tmp_path, away_after=0.0) as server:
        client = server.client
        made = client.post("/api/play-now", json={"preset": "common"}).json()
        with connect(client, made["table"]) as watcher:
            server.advance(3600)  # the person is long "away": still nobody to cover
            watcher.ping()
            assert server.automatic(made["table"]) is None
            assert still(server, made["table"]) <= 1  # the deal at most
        with connect(client, made["table"], made["token"]) as person:
            person.my_turn()  # the bots bid up to the person's turn: play has started
            person.act(person.my_turn()["obs"]["legal"][0])
            person.state_where(lambda m: m["version"] >= 6, "the bots going on after the person")


def test_bots_stop_when_every_person_has_been_gone_for_long_and_go_on_when_one_comes_back(
    tmp_path: Path,
) -> None:
    with serve(tmp_path, away_after=60, bot_delay=0.05) as server:
        client = server.client
        made = client.post("/api/play-now", json={"preset": "common"}).json()
        table = made["table"]
        with connect(client, table, made["token"]) as person:
            person.my_turn()
        with connect(client, table) as watcher:
            server.advance(61)  # away: a bot covers the person, so the match goes on a while
            watcher.state_where(lambda m: (m["last"] or {}).get("seat") == 0, "the cover bot's move")
            server.advance(LEFT_ALONE)  # nobody of the table for five minutes: the bots stop
            watcher.ping()
            assert server.automatic(table) is None
            stopped = still(server, table)
            assert server.on_loop(lambda: server.hub.tables[table].left_alone(server.clock()))
        with connect(client, table, made["token"]) as person:  # back: play goes on
            assert person.version == stopped
            assert not server.on_loop(lambda: server.hub.tables[table].left_alone(server.clock()))
            person.send({"type": "back"})  # takes the seat back from the cover bot
            for _ in range(10):  # the person plays their turns until a bot has moved again
                turn = person.my_turn()
                person.act(turn["obs"]["legal"][0])
                moved = person.state_at(turn["version"] + 1)
                if (moved["last"] or {}).get("seat") != 0 or 0 not in moved["obs"]["actors"]:
                    break
            person.state_where(lambda m: (m["last"] or {}).get("seat") in (1, 2, 3), "the bots going on")


# --- A seat's comings and goings are told at most every half second ---


def three_people(client: TestClient) -> tuple[str, list[str]]:
    """A started table: Ann (host, seat 0, to bid first), Bob (1), Cat (2), a bot (3)."""
    options = {"hand-sizes": "3,2", "first-dealer": "3"}
    body = {"name": "Ann", "options": options, "seats": ["human", "human", "human", "random"], "clock": 0}
    made = client.post("/api/tables", json=body).json()
    tokens = [made["token"], join(client, made["table"], 1, "Bob"), join(client, made["table"], 2, "Cat")]
    assert client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code == 200
    return made["table"], tokens


def tables(messages: list[Json]) -> list[Json]:
    return [m for m in messages if m["type"] == "table"]


def test_a_seat_reconnecting_again_and_again_costs_the_others_one_table_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The comings and goings wait long enough here that none is told before
    # the test says so: what is counted is what the reconnections sent at once.
    monkeypatch.setattr(table_module, "PRESENCE_INTERVAL", 3600.0)
    with serve(tmp_path, away_after=0.1) as server:
        client = server.client
        table, tokens = three_people(client)
        with connect(client, table, tokens[0]) as ann:
            ann.send({"type": "replace", "seat": 2})  # a bot covers Cat: a seat counted as away
            ann.until(lambda m: m["type"] == "table" and m["seats"][2]["away"], "Cat covered")
            start = len(ann.seen)
            for _ in range(50):
                with connect(client, table, tokens[1]) as bob:
                    assert bob.table is not None and bob.table["seats"][1]["connected"]  # told at once
            time.sleep(0.3)  # past every away announcement a departure used to leave behind
            ann.ping()
            assert len(tables(ann.seen[start:])) <= 1, [m["seats"] for m in tables(ann.seen[start:])]
            # When the moment is over, one message tells where things stand.
            server.on_loop(lambda: server.hub.tables[table]._flush_presence())
            told = ann.until(lambda m: m["type"] == "table", "the comings and goings")
            assert [s["connected"] for s in told["seats"]] == [True, False, False, False]


def test_a_player_coming_back_from_away_is_told_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "PRESENCE_INTERVAL", 3600.0)
    with serve(tmp_path, away_after=60) as server:
        client = server.client
        table, tokens = three_people(client)
        with connect(client, table, tokens[0]) as ann:
            server.advance(61)  # Bob and Cat never came: away, bots play their seats
            assert client.get(f"/api/tables/{table}").json()["seats"][1]["away"]
            ann.ping()
            with connect(client, table, tokens[1]):
                back = ann.until(lambda m: m["type"] == "table" and m["seats"][1]["connected"], "Bob back")
                assert not back["seats"][1]["away"]
