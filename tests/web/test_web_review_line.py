"""Reviews wait in line rather than being refused, and a few long records
cannot take every place (docs/web.md, "Review"): a process makes
``at_once`` reviews together; the others wait in the order asked, each
answer saying how many are before them, and a long record (more than
``LONG_LINES`` lines) may hold only ``at_once - 1`` places, so a usual
match asked for behind two long ones is made at once. The workers are a
stand-in that ends each review when the test says.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import from_address, make_app, play_out, with_addresses

from ohhell import PRESETS, Record, dumps
from ohhell.analysis import Budget
from ohhell.bots import get_bot, play_match
from ohhell.web.app import Limits
from ohhell.web.serving.reviews import LONG_LINES, review_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TINY = Budget(simulations=64, price_simulations=32, luck_playouts=2, luck_simulations=16)
LIMITS = Limits(create=None, sheets=None, connects=None, sockets_per_address=0, reviews_at_once=2)
ENDED = "ended by the test"


class Line:
    """The workers' stand-in: records which reviews began, in order; each
    runs until the test ends it."""

    def __init__(self) -> None:
        self.begun: list[str] = []  # review names
        self.ends: dict[str, threading.Event] = {}

    async def __call__(self, work: Any, name: str, *args: Any) -> tuple[bool, str]:
        self.begun.append(name)
        end = self.ends.setdefault(name, threading.Event())
        while not end.is_set():
            await asyncio.sleep(0.01)
        return False, ENDED

    def end(self, name: str) -> None:
        self.ends.setdefault(name, threading.Event()).set()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, Line]]:
    app = with_addresses(make_app(str(tmp_path / "line.db"), review_budget=TINY, limits=LIMITS))
    line = Line()
    with TestClient(app) as client:
        app.state.server.reviews.run = line
        try:
            yield client, line
        finally:
            for event in list(line.ends.values()):
                event.set()


def finished_table(client: TestClient) -> str:
    body = {"name": "Ann", "seats": ["human", "random", "random", "random"], "options": {"hand-sizes": "1"}}
    made = client.post("/api/tables", json={**body, "public": True}).json()
    assert client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]}).status_code == 200
    assert play_out(client, made["table"], made["token"])["obs"]["phase"] == "over"
    return str(made["table"])


def ask(client: TestClient, table: str, address: str) -> dict[str, Any]:
    r = client.post(f"/api/tables/{table}/review", json={}, headers=from_address(address))
    assert r.status_code == 202, r.text
    answer: dict[str, Any] = r.json()
    return answer


def look(client: TestClient, table: str) -> dict[str, Any]:
    answer: dict[str, Any] = client.get(f"/api/tables/{table}/review").json()
    return answer


def until(what: Callable[[], bool], words: str) -> None:
    deadline = time.monotonic() + 20
    while not what():
        assert time.monotonic() < deadline, words
        time.sleep(0.02)


def long_record(seed: int) -> str:
    """A record of 180 one-card hands: longer than LONG_LINES lines."""
    rules = PRESETS["pagat"].replace(hand_sizes=(1,) * 180, first_dealer=0)
    state = play_match(rules, [get_bot("random") for _ in range(4)], random.Random(seed))
    text = dumps(Record.from_state(state, ("Ann", "Bob", "Cid", "Dee")))
    assert text.count("\n") > LONG_LINES
    return text


def test_reviews_past_the_places_wait_in_line_and_are_told_where_they_stand(
    served: tuple[TestClient, Line],
) -> None:
    client, line = served
    tables = [finished_table(client) for _ in range(4)]
    people = ["ann", "bob", "cid", "dan"]
    answers = [ask(client, table, who) for table, who in zip(tables, people, strict=True)]
    names = [review_name(a["key"]) for a in answers]
    # Two are made at once; the others wait, nobody is refused.
    assert [a["progress"] for a in answers] == [None, None, {"waiting": 2}, {"waiting": 3}]
    until(lambda: line.begun == names[:2], "the first two begun")
    assert look(client, tables[3])["progress"] == {"waiting": 3}
    # One ends: the next in line begins, and the last is told it moved up.
    line.end(names[0])
    until(lambda: line.begun == names[:3], "the third begun")
    until(lambda: look(client, tables[3])["progress"] == {"waiting": 2}, "the last one moved up")
    for name in names[1:3]:
        line.end(name)
    until(lambda: line.begun == names, "every review begun, in the order asked")
    line.end(names[3])
    for table in tables:
        until(lambda table=table: look(client, table)["status"] == "failed", "every review ended")
        assert look(client, table)["error"] == ENDED


def test_long_records_cannot_take_every_place(served: tuple[TestClient, Line]) -> None:
    client, line = served
    table = finished_table(client)
    longs = []
    for seed, address in ((1, "eve"), (2, "fay")):
        r = client.post("/api/review", content=long_record(seed).encode(), headers=from_address(address))
        assert r.status_code == 202, r.text
        longs.append(r.json())
    # The first long record is being made; the second waits, though a place is free...
    assert longs[0]["progress"] is None and longs[1]["progress"] == {"waiting": 1}
    first, second = (review_name(a["key"]) for a in longs)
    until(lambda: line.begun == [first], "the first long review begun")
    # ...which a usual match takes at once.
    usual = ask(client, table, "gus")
    assert usual["progress"] is None
    until(lambda: line.begun == [first, review_name(usual["key"])], "the usual match begun")
    # The second long one begins when the first ends.
    line.end(first)
    until(lambda: line.begun[-1] == second, "the second long review begun")
