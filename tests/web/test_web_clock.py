"""The turn clock of ``ohhell serve`` (docs/web.md, "The turn clock").

A person has a table's clock (60 s unless the table or ``ohhell serve
--clock`` says otherwise; 0: none) for each decision; when it runs out a bot
makes that decision and goes on playing the seat until the person acts again
or says they are back. The host can hand a person's seat to a bot at once.
Every client is sent the clocks (seat and milliseconds left, counted by the
server) and the table page counts them down.

Time here is the server's own clock replaced by one that moves only when a
test moves it (``create_app(now=...)``), so no test waits for real time or
depends on the machine's load: moving it wakes the tables, and the test waits
for the messages that follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from web_support import Json, Player, connect, join, make_app

from ohhell.cli import main

CLOCK = 30  # seconds per decision at the tables here


class HandClock:
    """The server's time (seconds): it moves only when the test moves it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


class Server:
    """A test client, its app and the app's time."""

    def __init__(self, client: TestClient, app: Any, time: HandClock) -> None:
        self.client = client
        self.app = app
        self.time = time

    @property
    def hub(self) -> Any:
        return self.app.state.server.hub

    def advance(self, seconds: float) -> None:
        """Move the server's time on and let every table look at its clocks."""

        async def move() -> None:
            self.time.t += seconds
            for table in list(self.hub.tables.values()):
                table.wake.set()

        self.client.portal.call(move)  # type: ignore[union-attr]

    def public(self, table: str) -> Json:
        r = self.client.get(f"/api/tables/{table}")
        assert r.status_code == 200, r.text
        data: Json = r.json()
        return data

    def automatic(self, table: str) -> Any:
        """What the table's driver would do now (run on the server's loop)."""

        def look() -> Any:
            live = self.hub.tables[table]
            return live._automatic(self.time())

        return self.client.portal.call(look)  # type: ignore[union-attr]


@contextlib.contextmanager
def serve(db: Path, start: float = 1000.0, **settings: Any) -> Iterator[Server]:
    time = HandClock(start)
    app = make_app(str(db), now=time, **settings)
    with TestClient(app) as client:
        yield Server(client, app, time)


def people_and_a_bot(client: TestClient, clock: float | None = CLOCK, **options: str) -> tuple[str, str, str]:
    """A started 3-seat table: the host (seat 0, bids first), a second person
    (seat 1) and a random bot (seat 2); returns (table, host's token, seat 1's)."""
    body: Json = {
        "options": {"hand-sizes": "2", "first-dealer": "2", "players": "3", **options},
        "seats": ["human", "human", "random"],
    }
    if clock is not None:
        body["clock"] = clock
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    made = r.json()
    other = join(client, made["table"], 1)
    assert client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code == 200
    return made["table"], made["token"], other


def bid_of(state: Json, seat: int) -> Any:
    return state["obs"]["bids"][seat]


def first_bid(player: Player) -> Json:
    """Make this seat's first legal bid; returns the state after it."""
    turn = player.my_turn()
    player.act(turn["obs"]["legal"][0], turn["version"])
    return player.state_where(lambda m: bid_of(m, player.seat) is not None, "the bid made")  # type: ignore[arg-type]


# --- The clock runs out: a bot decides ---


def test_a_connected_player_who_never_acts_is_covered_when_the_clock_runs_out(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as server:
        table, host_token, other = people_and_a_bot(server.client)
        with connect(server.client, table, host_token) as host, connect(server.client, table, other) as idle:
            assert host.my_turn()["clocks"] == [{"seat": 0, "ms": CLOCK * 1000}]
            after = first_bid(host)
            assert after["clocks"] == [{"seat": 1, "ms": CLOCK * 1000}]
            # Half a second short: nothing happens, the seat is not away.
            server.advance(CLOCK - 0.5)
            seen = server.public(table)
            assert seen["clocks"] == [{"seat": 1, "ms": 500}]
            assert not seen["seats"][1]["away"] and seen["seats"][1]["connected"]
            assert server.automatic(table)[0] == -1  # still waiting for the person
            # Time is up: a bot bids for seat 1, which is marked away.
            server.advance(0.5)
            state = idle.state_where(lambda m: bid_of(m, 1) is not None, "a bot bidding for seat 1")
            assert state["last"]["seat"] == 1 and state["last"]["kind"] == "bid"
            # The table saying so came before the bot's bid.
            assert (
                idle.table is not None
                and idle.table["seats"][1]["away"]
                and idle.table["seats"][1]["connected"]
            )
            # The bot goes on for seat 1 (no more time passes) until its person
            # acts or says they are back (the host's test below).
            playing = host.state_where(
                lambda m: m["obs"]["phase"] == "play" and 0 in m["obs"]["actors"], "lead"
            )
            assert playing["clocks"] == [{"seat": 0, "ms": CLOCK * 1000}]
            host.act(playing["obs"]["legal"][0], playing["version"])
            played = host.state_where(lambda m: len(m["obs"]["trick"]) >= 2, "seat 1's card")
            assert played["last"]["seat"] == 1
            assert played["clocks"] == []  # seat 2, a bot, is to play: no clock


def test_bots_turns_have_no_clock_and_every_client_gets_the_clocks(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as server:
        table, host_token, other = people_and_a_bot(server.client)
        with (
            connect(server.client, table, host_token) as host,
            connect(server.client, table, other) as p1,
            connect(server.client, table) as watcher,
        ):
            everyone = (host, p1, watcher)
            for player in everyone:
                assert player.table is not None and player.table["clock"] == CLOCK
                state = player.state_where(lambda m: 0 in m["obs"]["actors"], "seat 0 to bid")
                assert state["clocks"] == [{"seat": 0, "ms": CLOCK * 1000}], player.seat
            server.advance(12.25)
            assert server.public(table)["clocks"] == [{"seat": 0, "ms": 17750}]
            first_bid(host)  # seat 0's bid; seat 1's clock starts in full
            for player in everyone:
                state = player.state_where(lambda m: 1 in m["obs"]["actors"], "seat 1 to bid")
                assert state["clocks"] == [{"seat": 1, "ms": CLOCK * 1000}], player.seat
            first_bid(p1)
            for player in everyone:
                # R-BID-CHANGE: the bot (seat 2) waits a short grace for seat 1,
                # who may still change their bid; seat 1 owes no move, so no
                # clock runs for it, and every page is told the grace.
                state = player.state_where(lambda m: 2 in m["obs"]["actors"], "seat 2 to bid")
                assert state["clocks"] == [], player.seat
                assert state["change_wait"] == {"seat": 1, "next": 2, "ms": 3000}, player.seat
            p1.keep()
            for player in everyone:
                player.state_where(lambda m: bid_of(m, 2) is not None, "seat 2's bid")
            assert server.public(table)["clocks"] == [{"seat": 0, "ms": CLOCK * 1000}]


def test_sealed_bids_give_each_person_a_clock_of_their_own(tmp_path: Path) -> None:
    # R-BID-SIMULTANEOUS: every person who has not bid is timed at once.
    with serve(tmp_path / "t.db") as server:
        options = {"bidding": "simultaneous", "bid-changes": "no", "hook": "no"}
        table, host_token, other = people_and_a_bot(server.client, **options)
        with connect(server.client, table, host_token) as host, connect(server.client, table, other) as idle:
            turn = host.state_where(lambda m: m["obs"]["phase"] == "bid" and 0 in m["obs"]["actors"], "bids")
            assert [c["seat"] for c in turn["clocks"]] == [0, 1]  # the bot's seat has none
            assert all(c["ms"] == CLOCK * 1000 for c in turn["clocks"])
            server.advance(10)
            host.act(turn["obs"]["legal"][0], turn["version"])
            after = host.state_where(lambda m: 0 not in m["obs"]["actors"], "the host's sealed bid")
            assert [c["seat"] for c in after["clocks"]] == [1]
            server.advance(CLOCK)
            idle.state_where(lambda m: m["obs"]["phase"] == "play", "a bot's bid for seat 1")
            assert idle.table is not None and idle.table["seats"][1]["away"]


def test_no_clock_means_no_countdown_and_no_cover(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as server:
        table, host_token, other = people_and_a_bot(server.client, clock=0)
        with connect(server.client, table, host_token) as host, connect(server.client, table, other) as idle:
            assert host.my_turn()["clocks"] == []
            assert first_bid(host)["clocks"] == []
            server.advance(10 * 3600)  # ten hours
            host.ping()  # no state came: nobody bid for seat 1
            assert idle.state is not None and bid_of(idle.state, 1) is None
            seen = server.public(table)
            assert seen["clock"] == 0 and seen["clocks"] == [] and not seen["seats"][1]["away"]
            assert server.automatic(table) is None  # the table waits for seat 1's person


def test_a_lone_player_with_bots_has_no_clock(tmp_path: Path) -> None:
    # Nobody waits for them, so nothing hurries them (the server's clock is 60 s).
    with serve(tmp_path / "t.db") as server:
        r = server.client.post("/api/play-now", json={"name": "Ann"})
        made = r.json()
        with connect(server.client, made["table"], made["token"]) as me:
            turn = me.my_turn()
            assert me.table is not None and me.table["clock"] == 60
            assert turn["clocks"] == []
            server.advance(3600)
            me.ping()
            assert not server.public(made["table"])["seats"][made["seat"]]["away"]


def test_a_bid_stands_when_the_short_wait_for_a_change_ends(tmp_path: Path) -> None:
    # R-BID-CHANGE: the bot after a person who may still change their bid
    # waits for them only the short grace, with no button pressed; then the
    # bid stands and the person is not covered (they made their decision).
    with serve(tmp_path / "t.db", change_grace=3.0) as server:
        r = server.client.post(
            "/api/tables",
            json={
                "options": {"hand-sizes": "2", "first-dealer": "2", "players": "3", "bid-changes": "yes"},
                "seats": ["human", "random", "human"],
                "clock": CLOCK,
            },
        )
        made = r.json()
        table = made["table"]
        other = join(server.client, table, 2)
        server.client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
        with connect(server.client, table, made["token"]) as host, connect(server.client, table, other):
            after = first_bid(host)
            assert after["obs"]["can_change"] and bid_of(after, 1) is None
            assert after["clocks"] == []  # the changer owes no move: no clock runs down
            assert after["change_wait"] == {"seat": 0, "next": 1, "ms": 3000}
            server.advance(2.9)
            host.ping()
            assert host.state is not None and bid_of(host.state, 1) is None  # still within the grace
            server.advance(0.1)
            state = host.state_where(lambda m: bid_of(m, 1) is not None, "the bot's bid after the grace")
            assert not state["obs"]["can_change"] and state["change_wait"] is None
            assert state["clocks"] == [{"seat": 2, "ms": CLOCK * 1000}]  # the next person's turn
            assert not server.public(table)["seats"][0]["away"]


def test_a_person_bidding_next_is_not_held_up_and_the_changer_has_no_clock(tmp_path: Path) -> None:
    # R-BID-CHANGE: a person after the changer bids when ready; nobody waits
    # for the change, and only the person to bid is on the clock.
    with serve(tmp_path / "t.db") as server:
        table, host_token, other = people_and_a_bot(server.client)
        with connect(server.client, table, host_token) as host, connect(server.client, table, other) as p1:
            after = first_bid(host)
            assert after["obs"]["can_change"] and after["change_wait"] is None
            assert after["clocks"] == [{"seat": 1, "ms": CLOCK * 1000}]
            assert server.automatic(table) is not None  # seat 1's clock is what the table waits on
            p1.state_where(lambda m: 1 in m["obs"]["actors"], "seat 1 to bid")


def test_the_host_hands_a_seat_to_a_bot_and_nobody_else_can(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as server:
        table, host_token, other = people_and_a_bot(server.client)
        with (
            connect(server.client, table, host_token) as host,
            connect(server.client, table, other) as p1,
            connect(server.client, table) as watcher,
        ):
            host.my_turn()
            p1.send({"type": "replace", "seat": 0})
            assert p1.error()["code"] == "seat"
            watcher.send({"type": "replace", "seat": 1})
            assert watcher.error()["code"] == "seat"
            for seat, code in ((0, "seat"), (2, "seat"), (3, "bad"), ("1", "bad")):
                host.send({"type": "replace", "seat": seat})
                assert host.error()["code"] == code, seat
            assert not server.public(table)["seats"][1]["away"]
            # Seat 1 handed to a bot while the host is to bid; then its person comes back.
            host.send({"type": "replace", "seat": 1})
            p1.until(lambda m: m["type"] == "table" and m["seats"][1]["away"], "seat 1 covered")
            p1.send({"type": "back"})
            p1.until(lambda m: m["type"] == "table" and not m["seats"][1]["away"], "seat 1 back")
            after = first_bid(host)
            assert after["clocks"] == [{"seat": 1, "ms": CLOCK * 1000}]  # theirs again, clock and all
            # Handed over again: the bot bids for seat 1 with no time passing,
            # once the host keeps their bid (R-BID-CHANGE: a bot waits the
            # short grace for a person who may still change theirs; the
            # changer owes no move, so no clock runs for them).
            host.send({"type": "replace", "seat": 1})
            shown = host.until(lambda m: m["type"] == "table" and m["seats"][1]["away"], "seat 1 covered")
            assert shown["clocks"] == []
            host.keep()
            state = p1.state_where(lambda m: bid_of(m, 1) is not None, "a bot bidding for seat 1")
            assert state["last"]["seat"] == 1
            assert server.public(table)["seats"][1]["away"]


def test_the_host_cannot_replace_before_the_match(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as server:
        r = server.client.post("/api/tables", json={"options": {"players": "3"}, "seats": ["human"] * 3})
        made = r.json()
        join(server.client, made["table"], 1)
        with connect(server.client, made["table"], made["token"]) as host:
            host.send({"type": "replace", "seat": 1})
            error = host.error()
            assert error["code"] == "turn" and "not being played" in error["error"]


# --- The option: the form, the API, `ohhell serve --clock`, a restart ---


def test_the_clock_option_default_and_bounds(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db", clock=45) as server:
        client = server.client
        options = client.get("/api/options").json()
        assert options["clock"] == 45 and options["max_clock"] == 3600  # the form starts from these
        table, _, _ = people_and_a_bot(client, clock=None)
        assert server.public(table)["clock"] == 45
        table, _, _ = people_and_a_bot(client, clock=3600)
        assert server.public(table)["clock"] == 3600
        for bad in (3601, -1, "60", True, None, [60]):
            r = client.post("/api/tables", json={"seats": ["human"] * 4, "clock": bad})
            assert r.status_code == 400 and "clock" in r.json()["error"], (bad, r.text)
        r = client.post(
            "/api/tables", content=b'{"clock": NaN}', headers={"content-type": "application/json"}
        )
        assert r.status_code == 400 and "clock" in r.json()["error"]


@pytest.mark.parametrize("value", ["3601", "nan", "-5"])
def test_serve_refuses_a_clock_out_of_range(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--clock", value]) == 2
    assert "--clock" in capsys.readouterr().err


def test_after_a_restart_every_clock_starts_again_in_full(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with serve(db) as server:
        table, host_token, other = people_and_a_bot(server.client)
        with connect(server.client, table, host_token) as host, connect(server.client, table, other):
            host.my_turn()
            host.send({"type": "replace", "seat": 1})  # a cover is not stored
            host.until(lambda m: m["type"] == "table" and m["seats"][1]["away"], "seat 1 covered")
            server.advance(CLOCK - 1)
            assert server.public(table)["clocks"] == [{"seat": 0, "ms": 1000}]
    # The server stops 1 s before the host's time is up, and starts again at
    # another time (its clock is not the wall's): the host has a full clock,
    # the stored option is kept, and seat 1 is its person's again.
    with serve(db, start=5.0) as server:
        assert table in server.hub.tables  # loaded at start: its match goes on
        seen = server.public(table)
        assert seen["clock"] == CLOCK
        assert seen["clocks"] == [{"seat": 0, "ms": CLOCK * 1000}]
        assert not seen["seats"][1]["away"]
        server.advance(CLOCK)
        with connect(server.client, table) as watcher:
            watcher.state_where(lambda m: bid_of(m, 0) is not None, "a bot bidding for the host")
            assert watcher.table is not None and watcher.table["seats"][0]["away"]


# --- In the browser: the countdown on the acting seat ---

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]


class LiveServer:
    """``ohhell serve`` in a thread on a loopback port, on a hand-moved time."""

    def __init__(self, base: str, app: Any, time: HandClock) -> None:
        self.base = base
        self.app = app
        self.time = time

    def advance(self, seconds: float) -> None:
        hub = self.app.state.server.hub
        tables = [t for t in hub.tables.values() if t.driver is not None]
        assert tables, "no table is being played"
        loop = tables[0].driver.get_loop()

        async def move() -> None:
            self.time.t += seconds
            for table in list(hub.tables.values()):
                table.wake.set()

        asyncio.run_coroutine_threadsafe(move(), loop).result(10)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    uvicorn = pytest.importorskip("uvicorn")
    if os.environ.get("OHHELL_TEST_BROWSER") != "1":  # CI sets it: missing pieces fail there
        pytest.importorskip("playwright.sync_api")
        if not os.access(CHROMIUM, os.X_OK):
            pytest.skip(f"the browser test needs Debian's chromium at {CHROMIUM}")
    time = HandClock()
    # A server clock of 90 s (the form's default); a person who leaves is away
    # only after a day (Bo never opens the page: only his clock may run out).
    app = make_app(str(tmp_path_factory.mktemp("clock") / "b.db"), now=time, clock=90, away_after=86400)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="ohhell-serve-clock", daemon=True)
    thread.start()
    for _ in range(1500):  # up to 15 s to start
        if server.started or not thread.is_alive():
            break
        threading.Event().wait(0.01)
    assert server.started, "the server did not start"
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app, time)
    finally:
        server.should_exit = True
        thread.join(10)


def _seconds(text: str) -> int:
    """A countdown's words ("45 s left", "9:58 left, then a bot chooses") in seconds."""
    found = re.match(r"(?:(\d+):(\d\d)|(\d+) s) left", text)
    assert found, f"no time left in the countdown {text!r}"
    if found.group(3):
        return int(found.group(3))
    return int(found.group(1)) * 60 + int(found.group(2))


# The same in the page, for waiting on the countdown.
SECONDS_JS = """(text) => {
  const m = text.match(/(?:(\\d+):(\\d\\d)|(\\d+) s) left/);
  return m[3] ? Number(m[3]) : Number(m[1]) * 60 + Number(m[2]);
}"""


def test_the_countdown_is_on_the_acting_seat_for_players_and_watchers(live: LiveServer) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            host = browser.new_context().new_page()
            watcher = browser.new_context().new_page()
            for page in (host, watcher):
                page.on("pageerror", lambda err: errors.append(str(err)))
            # The New table form starts from the server's clock; the host sets 10 minutes.
            host.goto(f"{live.base}/")
            host.locator("#nt-seat-list select").first.wait_for()
            assert host.input_value("#nt-clock") == "90"
            host.select_option("#nt-players", "3")
            host.fill("#nt-name", "Al")
            host.select_option("#seat-kind-1", "human")
            host.select_option("#seat-kind-2", "random")
            host.click("#nt-options-box summary")  # "More rules" is folded at first
            host.fill("#opt-hand-sizes", "2")
            host.select_option("#opt-first-dealer", "2")  # seat 3 deals: seat 1 (the host) bids first
            host.fill("#nt-clock", "600")
            host.click("#new-table-button")
            host.wait_for_url(re.compile(r"/t/[^/]+$"))
            table = host.url.rsplit("/", 1)[1]
            assert host.request.get(f"{live.base}/api/tables/{table}").json()["clock"] == 600
            r = host.request.post(f"{live.base}/api/tables/{table}/join", data={"seat": 1, "name": "Bo"})
            assert r.ok, r.text()
            host.locator("#start-button:enabled").click()
            host.locator("#game").wait_for()
            watcher.goto(f"{live.base}/t/{table}")
            # The watcher sees it on the acting seat; the host, whose clock it
            # is, as a bar under the prompt ("9:58 left, then a bot chooses").
            for page, where in (
                (host, "#my-clock .words"),
                (watcher, "#players .seat[data-seat='0'] .clock"),
            ):
                clock = page.locator(where)
                clock.wait_for()
                first = _seconds(clock.inner_text())
                assert 0 < first <= 600
            assert watcher.locator("#players .clock").count() == 1  # only the acting seat's
            assert host.locator("#players .clock").count() == 0 and host.locator("#my-clock").count() == 1
            assert "Move clock: 600 seconds" in (watcher.locator("#rules-list").text_content() or "")
            # The page counts down between the server's messages.
            watcher.wait_for_function(
                f"n => ({SECONDS_JS})(document.querySelector(\"#players .seat[data-seat='0'] .clock\")"
                ".textContent) < n",
                arg=first,
            )
            # The server's time runs out: a bot bids for the host, whose page says so,
            # and the countdown moves to seat 1 (Bo, a person) on every page.
            live.advance(600)
            host.locator("#back-button").wait_for()
            for page in (host, watcher):
                page.locator("#players .seat[data-seat='0'].away").wait_for(state="attached")
                page.locator("#players .seat[data-seat='1'] .clock").wait_for()
                assert page.locator("#players .seat[data-seat='0'] .clock").count() == 0
            assert host.locator("#my-clock").count() == 0
            host.click("#back-button")
            watcher.locator("#players .seat[data-seat='0']:not(.away)").wait_for(state="attached")
        finally:
            browser.close()
    assert not errors, f"script errors in the pages: {errors}"
