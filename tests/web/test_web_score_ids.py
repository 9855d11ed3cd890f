"""Score sheet ids from the address are hostile (docs/web.md, "The scorekeeper"):
an id that is not the shape the server makes (a NUL, a newline, a quote,
too long) is "no such score sheet", a 404, on SQLite and on PostgreSQL
(where a NUL sent to the database was a 500), never reaches the database,
and leaves nothing of itself in the log.
"""

from __future__ import annotations

import logging
import os
import secrets
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import make_app

from ohhell.web.serving.scores import is_sheet_id, load_sheet

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")

# Each as it would be written in an address (percent-escaped); the server reads it decoded.
HOSTILE = ["abc%00def", "abcdefghij%00k", "abc%0Adef%0D", "abcdefghijk%0A", "%27%3B--", "x" * 13, "a%20b"]


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: an SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 't.db'}"
        return
    if not POSTGRES:
        pytest.skip("set OHHELL_TEST_POSTGRES=postgresql://user@host:port/db to test on PostgreSQL")
    pytest.importorskip("psycopg")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(POSTGRES.replace("postgresql://", "postgresql+psycopg://", 1))
    schema = f"ohhell_test_{secrets.token_hex(6)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as db:
            db.execute(text(f"CREATE SCHEMA {schema}"))
        yield base.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.connect() as db:
            db.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


def test_ids_not_of_the_servers_shape_are_404_and_leave_the_log_clean(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with TestClient(make_app(db_url), raise_server_exceptions=False) as client:
        r = client.post("/api/scores", json={"players": ["Ann", "Bob", "Cid"], "first_dealer": 0})
        assert r.status_code == 200, r.text
        made = r.json()
        assert is_sheet_id(made["id"])
        assert client.get(f"/api/scores/{made['id']}").status_code == 200  # a real one is still found
        caplog.clear()
        for bad in HOSTILE:
            for path in (
                f"/api/scores/{bad}",
                f"/api/scores/{bad}/export.csv",
                f"/api/scores/{bad}/export.json",
            ):
                r = client.get(path)
                assert r.status_code == 404, (path, r.text)
                assert r.json()["error"] == "there is no such score sheet"
            r = client.post(f"/api/scores/{bad}/entry", json={"op": "undo", "edit_token": made["edit_token"]})
            assert r.status_code == 404, (bad, r.text)
            r = client.post(f"/api/scores/{bad}/verify", json={"edit_token": made["edit_token"]})
            assert r.status_code == 404, (bad, r.text)
        # The server's log (the test's own HTTP client logs what it sent) says nothing of them.
        server = [r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
        assert not [m for m in server if "\x00" in m or "abc" in m or "%00" in m or "\\x00" in m], server
        # The loader itself refuses them too, before any query.
        assert load_sheet(client.app.state.server.store.engine, "abc\x00defghij") is None


def test_the_shape_is_the_one_the_server_makes() -> None:
    assert is_sheet_id(secrets.token_urlsafe(9))
    for bad in (
        "",
        "abc\x00defghij",
        "abcdefghijk\n",
        "abcdefghijkl\n",
        "abcdefghijklm",
        "abcdefghij k",
        "ÀBCDEFGHIJKL",
    ):
        assert not is_sheet_id(bad), repr(bad)
