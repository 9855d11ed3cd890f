"""How the server shares its thinking between tables (``web/tables/thinking.py``;
docs/web.md, "Sharing the thinking"), and that its thinking processes end
with it.

The searches here are stand-ins (``Thinkers(run=...)``) that start when the
queue says and end when the test says, so the order of the turns is tested
without timing anything: one address running ten expert tables must not
hold up another table's decision for more than the search under way, a
long queue shortens every think, and one address's hints are capped.
The last tests run ``ohhell serve`` itself and stop it while the expert
thinks in a worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
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
from web_support import connect, from_address, make_app, new_table, with_addresses

from ohhell.web.tables.table import TableError
from ohhell.web.tables.thinking import HINTS_PER_ADDRESS, SHORTEST_THINK, Thinkers

CAP = 2  # hints one address may have on the way, in these tests (the server's is HINTS_PER_ADDRESS)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ATTACKER, VICTIM = "10.0.0.66", "10.0.0.7"


class Stand:
    """Searches that start when the queue says and end when the test says:
    ``started`` lists (seed, seconds) in the order they got a worker."""

    def __init__(self) -> None:
        self.started: list[tuple[str, float | None]] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def run(self, call: Any, seconds: float | None, *args: Any) -> Any:
        seed, obs = args[-1], args[-2] if call.__name__ == "_choose" else args[0]
        self.started.append((seed, seconds))
        gate = self.gates[seed] = asyncio.Event()
        await gate.wait()
        # A real observation gets a real answer from a very short search.
        return seed if obs is None else call(0.01, *args)

    async def finish(self, seed: str) -> None:
        """End the search ``seed`` and let the next ones start."""
        self.gates[seed].set()
        for _ in range(5):
            await asyncio.sleep(0)

    async def finish_all(self) -> None:
        """End every search started, and those that start meanwhile."""
        while not all(gate.is_set() for gate in self.gates.values()):
            for gate in list(self.gates.values()):
                gate.set()
            await asyncio.sleep(0.01)

    async def started_count(self, count: int) -> None:
        """Wait (a few seconds at most) until ``count`` searches have started."""
        for _ in range(500):
            if len(self.started) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{len(self.started)} searches started, not {count}: {self.order}")

    @property
    def order(self) -> list[str]:
        return [seed for seed, _ in self.started]


async def _ten_and_one(fair: bool) -> tuple[Stand, list[asyncio.Task[Any]]]:
    stand = Stand()
    thinkers = Thinkers(1, run=stand.run, fair=fair)
    tasks = [
        asyncio.create_task(
            thinkers.choose("expert", {"seconds": 1.0}, None, f"a{i}", owner=ATTACKER, table=f"a{i}")
        )  # type: ignore[arg-type]
        for i in range(10)
    ]
    await asyncio.sleep(0)
    tasks.append(
        asyncio.create_task(thinkers.choose("expert", {"seconds": 1.0}, None, "b", owner=VICTIM, table="b"))  # type: ignore[arg-type]
    )
    await asyncio.sleep(0)
    return stand, tasks


def test_ten_tables_of_one_address_hold_up_another_table_for_one_search_at_most() -> None:
    async def main() -> None:
        stand, tasks = await _ten_and_one(fair=True)
        assert stand.order == ["a0"]  # one worker: the first search runs, the rest wait
        await stand.finish("a0")
        assert stand.order == ["a0", "b"]  # the other address's table is next, not eleventh
        for seed in ["b", *(f"a{i}" for i in range(1, 10))]:
            await stand.finish(seed)
        assert sorted(stand.order) == sorted(["b", *(f"a{i}" for i in range(10))])
        assert await asyncio.gather(*tasks) == [*(f"a{i}" for i in range(10)), "b"]

        # In arrival order, as the server thought before: the table waits for all ten.
        stand, tasks = await _ten_and_one(fair=False)
        for i in range(10):
            await stand.finish(f"a{i}")
        assert stand.order.index("b") == 10
        await stand.finish("b")
        await asyncio.gather(*tasks)

    asyncio.run(main())


def test_a_long_queue_shortens_every_think_and_a_short_one_does_not() -> None:
    async def main() -> None:
        stand, tasks = await _ten_and_one(fair=True)
        assert stand.started[0] == ("a0", 1.0)  # nobody waited when it started: the whole think
        await stand.finish("a0")
        seed, seconds = stand.started[1]
        assert seed == "b" and seconds is not None
        assert SHORTEST_THINK <= seconds <= 1.0 / 10  # ten searches want the one worker
        for seed in ["b", *(f"a{i}" for i in range(1, 10))]:
            await stand.finish(seed)
        await asyncio.gather(*tasks)
        # The queue is empty again: a lone search thinks its whole time.
        thinkers = Thinkers(1, run=stand.run)
        task = asyncio.create_task(thinkers.choose("expert", {"seconds": 1.0}, None, "alone", owner=VICTIM))  # type: ignore[arg-type]
        await stand.started_count(12)
        assert stand.started[-1] == ("alone", 1.0)
        await stand.finish("alone")
        await task

    asyncio.run(main())


def test_a_table_that_goes_away_gives_up_its_place() -> None:
    async def main() -> None:
        stand, tasks = await _ten_and_one(fair=False)
        tasks[1].cancel()  # a1's table was unloaded while it waited
        await asyncio.sleep(0)
        for seed in ["a0", *(f"a{i}" for i in range(2, 10)), "b"]:
            await stand.finish(seed)
        assert "a1" not in stand.order
        with pytest.raises(asyncio.CancelledError):
            await tasks[1]

    asyncio.run(main())


def test_one_address_may_have_a_few_hints_on_the_way_and_one_asked_twice_is_one_search() -> None:
    async def main() -> None:
        stand = Stand()
        thinkers = Thinkers(1, run=stand.run, hints_per_address=CAP)
        asked = [
            asyncio.create_task(thinkers.hint(None, f"hint:t{i}:5:0", 1.0, owner=ATTACKER, table=f"t{i}"))  # type: ignore[arg-type]
            for i in range(CAP)
        ]
        again = asyncio.create_task(thinkers.hint(None, "hint:t0:5:0", 1.0, owner=ATTACKER, table="t0"))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        with pytest.raises(TableError, match="Too many hints") as refused:
            await thinkers.hint(None, "hint:t9:5:0", 1.0, owner=ATTACKER, table="t9")  # type: ignore[arg-type]
        assert refused.value.code == "busy"
        other = asyncio.create_task(thinkers.hint(None, "hint:u:5:0", 1.0, owner=VICTIM, table="u"))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        for seed in ["hint:t0:5:0", "hint:u:5:0", "hint:t1:5:0"]:
            await stand.finish(seed)
        await asyncio.gather(*asked, again, other)
        assert sorted(stand.order) == ["hint:t0:5:0", "hint:t1:5:0", "hint:u:5:0"]  # no second search
        assert stand.order[1] == "hint:u:5:0"  # the other address's hint took the next turn
        # Answered hints are remembered: asking again costs no search, and the cap is free again.
        assert await thinkers.hint(None, "hint:t0:5:0", 1.0, owner=ATTACKER, table="t0") == "hint:t0:5:0"  # type: ignore[arg-type]
        assert len(stand.started) == 3

    asyncio.run(main())


# --- Through the server ---


def _portal(client: TestClient, fn: Any) -> Any:
    async def call() -> Any:
        return await fn()

    return client.portal.call(call)  # type: ignore[union-attr]


def test_a_tables_bots_think_on_their_peoples_address_and_hints_on_the_askers(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    stand = Stand()
    with TestClient(with_addresses(app)) as client:
        hub = app.state.server.hub
        thinkers = hub.thinkers = Thinkers(1, run=stand.run)
        opts = {"hand-sizes": "2", "first-dealer": "0"}  # seats 1-3 (experts) bid before seat 0
        body = {"options": opts, "seats": ["human", "expert", "expert", "expert"], "name": "Ann"}
        made = client.post("/api/tables", json=body, headers=from_address(VICTIM)).json()
        client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
        with (
            connect(client, made["table"], made["token"], address=VICTIM) as ann,
            connect(client, made["table"], address=ATTACKER),  # a watcher: its address owns nothing
        ):
            for bot in range(3):  # the three experts bid, each in its turn at the worker
                _portal(client, lambda bot=bot: stand.started_count(bot + 1))
                assert hub.tables[made["table"]].owner == VICTIM  # the host's, not the watcher's
                assert set(thinkers._served) == {VICTIM}
                _portal(client, lambda: stand.finish(stand.order[-1]))
            ann.my_turn()
            ann.send({"type": "hint"})
            _portal(client, lambda: stand.started_count(4))
            assert stand.order[-1].startswith("hint:") and set(thinkers._hints_of) == {VICTIM}
            _portal(client, stand.finish_all)
            assert ann.until(lambda m: m["type"] == "hint", "the hint")["action"] in ann.obs["legal"]


def test_hint_spam_from_one_address_is_refused_past_its_cap(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    stand = Stand()
    with TestClient(with_addresses(app)) as client:
        hub = app.state.server.hub
        hub.thinkers = Thinkers(1, run=stand.run, hints_per_address=CAP)
        opts = {"hand-sizes": "2", "first-dealer": "3"}  # seat 0 bids first: the person's turn at once
        tables = [
            new_table(client, options=opts, seats=["human", "random", "random", "random"], start=True)
            for _ in range(CAP + 1)
        ]
        with (
            connect(client, tables[0]["table"], tables[0]["token"], address=ATTACKER) as p0,
            connect(client, tables[1]["table"], tables[1]["token"], address=ATTACKER) as p1,
            connect(client, tables[2]["table"], tables[2]["token"], address=ATTACKER) as p2,
        ):
            for p in (p0, p1):
                p.my_turn()
                for _ in range(20):  # spam: one search for all of them
                    p.send({"type": "hint"})
                p.ping()
            p2.my_turn()
            p2.send({"type": "hint"})
            refused = p2.until(lambda m: m["type"] == "error", "the refusal")
            assert refused["code"] == "busy" and "Too many hints" in refused["error"]
            # Forty hints asked for: one search under way, one waiting.
            assert len(stand.started) == 1 and hub.thinkers.waiting == 1
            _portal(client, stand.finish_all)
            for p in (p0, p1):
                p.until(lambda m: m["type"] == "hint", "the hint")
            for _ in range(5):  # asked again at the same version: remembered, no new search
                p0.send({"type": "hint"})
                p0.until(lambda m: m["type"] == "hint", "the hint again")
            assert len(stand.started) == 2
            p2.send({"type": "hint"})  # the address's hints came: it may ask again
            _portal(client, lambda: stand.started_count(3))
            _portal(client, stand.finish_all)
            p2.until(lambda m: m["type"] == "hint", "the hint")


# --- The thinking processes end with the server ---


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _session(sid: int) -> list[int]:
    """The processes of session ``sid`` (the server and whatever it started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[3]) == sid:  # state, ..., session id
                found.append(int(entry))
    return found


def _workers(sid: int) -> list[int]:
    out = []
    for pid in _session(sid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    out.append(pid)
        except OSError:
            pass
    return out


@pytest.fixture
def thinking_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``ohhell serve`` in a session of its own, with an expert thinking (for
    a minute a decision) in its worker process."""
    if not os.path.isdir("/proc"):
        pytest.skip("needs /proc to see the server's processes")
    ws_client = pytest.importorskip("websockets.sync.client")
    port = _free_port()
    env = {**os.environ, "OHHELL_HOME": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "ohhell",
        "serve",
        "--port",
        str(port),
        "--think",
        "60",
        "--bot-delay",
        "0",
    ]
    proc = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "the server did not start"
                time.sleep(0.1)
        body = json.dumps({"level": "expert", "preset": "common"}).encode()  # seat 0 deals: seat 1 bids first
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/play-now", body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            made = json.load(answer)
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws/{made['table']}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": made["token"]}))
            while True:
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "state":
                    assert message["obs"]["actors"] == [1]  # the expert's turn: it thinks
                    break
            deadline = time.monotonic() + 15
            while not _workers(proc.pid):
                assert time.monotonic() < deadline, "no worker process started"
                time.sleep(0.1)
            time.sleep(1.0)  # well into its minute of search (or its warm-up)
            yield proc, port
    finally:
        for pid in _session(proc.pid):  # whatever a failed test left
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)


def _gone(sid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _session(sid)


def test_sigterm_while_the_expert_thinks_leaves_no_process_behind(
    thinking_server: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, _ = thinking_server
    proc.send_signal(signal.SIGTERM)
    proc.wait(15)
    assert _gone(proc.pid, 5.0) == []


def test_a_killed_servers_workers_end_by_themselves(
    thinking_server: tuple[subprocess.Popen[bytes], int],
) -> None:
    proc, _ = thinking_server
    proc.kill()  # no chance to stop its workers: they notice their parent is gone
    proc.wait(15)
    assert _gone(proc.pid, 5.0) == []


def test_every_person_of_the_largest_table_may_ask_for_a_hint_from_one_address() -> None:
    # A household (one address) filling a table: nobody is refused for the others' hints.
    from ohhell import MAX_PLAYERS

    assert HINTS_PER_ADDRESS >= MAX_PLAYERS
