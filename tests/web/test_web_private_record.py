"""A private table's record, and its review, are its players' alone
(docs/web.md, "Review" and "Replays"): the record of a finished match
holds every hand, so downloading it needs a seat's token in an
``Authorization: Bearer`` header (never in the address, which gets
logged); a public table's is anyone's. A review is found again only by its
key, which comes with the record or from the table's review route, so
nobody who never had the record is served the review by its digest.
"""

from __future__ import annotations

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
from web_support import from_address, make_app, play_out, with_addresses

from ohhell import loads
from ohhell.analysis import Budget, Review, record_digest
from ohhell.web.app import Limits
from ohhell.web.serving.reviews import review_key

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TINY = Budget(simulations=64, price_simulations=32, luck_playouts=2, luck_simulations=16)
UNLIMITED = Limits(create=None, sheets=None, connects=None, sockets_per_address=0, spectators_per_table=0)
PRIVATE = "Only the players of this table can download its record: it is not a public table."


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = with_addresses(make_app(str(tmp_path / "p.db"), review_budget=TINY, limits=UNLIMITED))
    with TestClient(app) as c:
        yield c


def finished(client: TestClient, *, public: bool = False) -> tuple[str, str]:
    """A match of a person and three random bots, played to its end: (table, token)."""
    body = {"name": "Ann", "seats": ["human", "random", "random", "random"], "options": {"hand-sizes": "2"}}
    made = client.post("/api/tables", json={**body, "public": public}).json()
    table, token = made["table"], made["token"]
    assert client.post(f"/api/tables/{table}/start", json={"token": token}).status_code == 200
    assert play_out(client, table, token)["obs"]["phase"] == "over"
    return table, token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def record(client: TestClient, table: str, headers: dict[str, str] | None = None, **params: str) -> Any:
    return client.get(f"/api/tables/{table}/record", headers=headers or {}, params=params)


def until_done(poll: Any) -> dict[str, Any]:
    for _ in range(600):
        answer: dict[str, Any] = poll().json()
        if answer["status"] != "running":
            return answer
        time.sleep(0.05)
    raise AssertionError("the review did not finish")


def test_a_private_table_s_record_needs_one_of_its_seats_tokens(client: TestClient) -> None:
    table, token = finished(client)
    other_table, other_token = finished(client)
    for refused in (
        record(client, table),  # no token
        record(client, table, bearer(other_token)),  # another table's seat
        record(client, table, bearer("not-a-token")),
        record(client, table, {"Authorization": token}),  # not a bearer header
        record(client, table, token=token),  # a token in the address is not read
    ):
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"] == PRIVATE
    mine = record(client, table, bearer(token))
    assert mine.status_code == 200 and loads(mine.text).seats[0] == "Ann"
    assert record(client, other_table, bearer(other_token)).status_code == 200


def test_a_public_table_s_record_is_anyone_s(client: TestClient) -> None:
    table, _ = finished(client, public=True)
    r = record(client, table)
    assert r.status_code == 200 and loads(r.text).seats[0] == "Ann"


def test_a_private_table_s_review_is_not_served_to_someone_who_never_had_its_record(
    client: TestClient,
) -> None:
    table, token = finished(client)
    _, other_token = finished(client)
    text = record(client, table, bearer(token)).text
    digest = record_digest(loads(text))
    # The player asks for the review on the table's page and is given its key.
    asked = client.post(f"/api/tables/{table}/review", json={"token": token})
    assert asked.status_code in (200, 202), asked.text
    look = lambda: client.get(f"/api/tables/{table}/review", headers=bearer(token))  # noqa: E731
    done = until_done(look)
    assert done["status"] == "done" and done["key"] == review_key(text)
    assert Review.from_json(done["review"]).record == digest
    # A stranger: not with another table's token, not by the record's digest
    # (which anybody who saw the review knows), not by the old address with it.
    assert client.post(f"/api/tables/{table}/review", json={"token": other_token}).status_code == 403
    assert client.get(f"/api/tables/{table}/review", headers=bearer(other_token)).status_code == 403
    by_digest = client.get("/api/review", headers=bearer(digest))
    assert by_digest.status_code == 200 and by_digest.json()["status"] == "none", by_digest.text
    assert "review" not in by_digest.json()
    assert client.get(f"/api/review/{digest}").status_code in (404, 405)
    assert client.get("/api/review", params={"key": done["key"]}).status_code == 404  # not from the address
    # Whoever has the record (they were given it) gets the same review, and its key.
    sent = client.post("/api/review", content=text.encode(), headers=from_address("friend"))
    assert sent.status_code == 200 and sent.json() == done
    assert client.get("/api/review", headers=bearer(done["key"])).json() == done
