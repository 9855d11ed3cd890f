"""A bot's answer that comes back too late is dropped, never stored
(docs/web.md, "Claims" and "Sharing the thinking"): the host ended the table
while the expert thought, or the table moved on past the version it thought
for. The searches here are stand-ins (``Thinkers(run=...)``) that end when
the test says, so the answer arrives exactly when the test wants it to.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient
from web_support import connect, make_app

from ohhell.web.tables.thinking import Thinkers


class Gate:
    """Searches that answer (with a real, very short search) once the test opens the gate."""

    def __init__(self) -> None:
        self.started = 0
        self.open = asyncio.Event()

    async def run(self, call: Any, seconds: float | None, *args: Any) -> Any:
        self.started += 1
        await self.open.wait()
        return call(0.01 if seconds is not None else None, *args)


def _portal(client: TestClient, fn: Any) -> Any:
    async def call() -> Any:
        return await fn()

    return client.portal.call(call)  # type: ignore[union-attr]


async def _until(check: Any, what: str) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"waited in vain for {what}")


def test_an_experts_move_under_way_when_the_host_ends_the_table_is_never_stored(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"))
    gate = Gate()
    with TestClient(app) as client:
        hub = app.state.server.hub
        hub.thinkers = Thinkers(1, run=gate.run)
        opts = {"hand-sizes": "2", "first-dealer": "0"}  # seats 1-3 (experts) bid before seat 0
        body = {"options": opts, "seats": ["human", "expert", "expert", "expert"], "name": "Ann"}
        made = client.post("/api/tables", json=body).json()
        table = made["table"]
        assert client.post(f"/api/tables/{table}/start", json={"token": made["token"]}).status_code == 200
        with connect(client, table, made["token"]) as ann:
            live = hub.tables[table]
            _portal(client, lambda: _until(lambda: gate.started >= 1, "the first expert's search"))
            version = live.version
            ann.send({"type": "end"})
            _portal(client, lambda: _until(lambda: live.status == "ended", "the end"))
            gate.open.set()  # the expert's answer arrives now, after the end
            _portal(client, lambda: asyncio.sleep(0.3))
            assert live.version == version
            stored = hub.store.load(table)
            assert stored is not None and stored.status == "ended" and len(stored.lines) == version


def test_an_answer_for_a_version_the_table_left_behind_is_dropped(tmp_path: Path) -> None:
    # The expert thinks for seat 1's bid; meanwhile the table moves on
    # without it (seat 1's bid is stored first, as by another process that
    # held the table): the expert's answer, for the old version, is dropped.
    app = make_app(str(tmp_path / "t.db"))
    gate = Gate()
    with TestClient(app) as client:
        hub = app.state.server.hub
        hub.thinkers = Thinkers(1, run=gate.run)
        opts = {"hand-sizes": "2", "first-dealer": "0"}
        body = {"options": opts, "seats": ["human", "expert", "intermediate", "intermediate"], "name": "Ann"}
        made = client.post("/api/tables", json=body).json()
        table = made["table"]
        client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
        with connect(client, table, made["token"]):
            live = hub.tables[table]
            _portal(client, lambda: _until(lambda: gate.started >= 1, "the expert's search"))
            version = live.version

            async def move_on() -> None:
                # Another hand bids for the expert's seat first (as another
                # process holding the table would have): the version moves.
                async with live.lock:
                    action = live.match.legal(1)[0]
                    await live.commit(action)

            _portal(client, move_on)
            assert live.version == version + 1
            gate.open.set()
            _portal(client, lambda: asyncio.sleep(0.3))
            stored = hub.store.load(table)
            assert stored is not None
            bids_of_1 = [line for line in stored.lines if line.startswith("bid 1 ")]
            assert len(bids_of_1) == 1, stored.lines
