"""The database's schema and its upgrades (web/storage/schema.py, ``ohhell db``;
docs/hosting.md, "Upgrades").

A host's database made by an older release is upgraded in place: its live
tables, records, chat, reviews and score sheets are kept and its matches play
on. The migrations must build exactly the tables the code declares, on
SQLite and on PostgreSQL (when ``OHHELL_TEST_POSTGRES`` names one).
"""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("alembic")

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
import test_web_store
from web_support import choices, connect, make_app, new_table, play_all

from ohhell.cli import main
from ohhell.web.accounts import model, passkeys, ratings
from ohhell.web.serving import admin, scores
from ohhell.web.storage import schema
from ohhell.web.storage.store import ChatRow, Store, metadata

db_url = test_web_store.db_url  # the fixture: an empty SQLite file, or a fresh PostgreSQL schema


def _differences(url: str) -> list[object]:
    """What the database's tables lack or have beyond the code's declarations."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            context = MigrationContext.configure(db, opts={"compare_type": True})
            found = compare_metadata(context, [metadata, admin.metadata])
            return [d for d in found if "alembic_version" not in repr(d)]
    finally:
        engine.dispose()


def _forget_revision(url: str) -> None:
    """Make the database look as the release from before upgrades left it:
    the tables of the first revision (later ones taken away) and no revision."""
    engine = create_engine(url)
    with engine.begin() as db:
        config = schema.alembic_config()
        config.attributes["connection"] = db
        command.downgrade(config, "0001")
        db.execute(text("DROP TABLE alembic_version"))
    engine.dispose()


def test_the_migrations_build_exactly_the_tables_the_code_declares(db_url: str) -> None:
    tables = (scores.scoregames_t, model.accounts_t, ratings.ratings_t, passkeys.passkeys_t)
    assert all(t.metadata is metadata for t in tables)
    store = Store(db_url)
    store.close()
    assert _differences(db_url) == []
    engine = create_engine(db_url)
    with engine.connect() as db:
        assert schema.current(db) == schema.head()
    engine.dispose()


def test_a_database_from_before_upgrades_is_refused_then_upgraded_and_plays_on(db_url: str) -> None:
    # A live table halfway through its match, a line of chat, a finished
    # review and a score sheet: what a host's database holds.
    with TestClient(make_app(db_url)) as client:
        made = new_table(client, seats=["human", "random", "random", "random"], level="random", start=True)
        with connect(client, made["table"], made["token"]) as player:
            for _ in range(3):  # the host's first three decisions, the bots' in between
                player.to_move()
                before = player.version
                if choices(player.state):
                    player.act(choices(player.state)[0])
                else:
                    player.keep()  # a bid that could still be changed: the bots after it go on
                player.state_where(lambda m, v=before: m["version"] > v, "the table moving on")
        sheet = client.post("/api/scores", json={"players": ["Ann", "Bob", "Cid"], "first_dealer": 0})
        assert sheet.status_code == 200, sheet.text
    store = Store(db_url)
    kept = store.load(made["table"])
    assert kept is not None and kept.status == "playing"
    halfway = len(kept.lines)  # the bots may have moved on after the host left
    store.add_chat(
        made["table"], ChatRow(number=0, seat=0, name="Host", kind="chat", text="good luck", at=1.0)
    )
    assert store.begin_review("a" * 64, made["table"], stale_before=0.0)
    store.end_review("a" * 64, "done", json.dumps({"kept": True}))
    store.close()
    _forget_revision(db_url)

    # Told not to upgrade, the server refuses and names the command.
    with pytest.raises(schema.SchemaError, match="ohhell db upgrade --db "):
        Store(db_url, upgrade=False)
    assert main(["db", "--db", db_url, "current"]) == 0
    assert main(["db", "--db", db_url, "upgrade"]) == 0
    assert _differences(db_url) == []

    store = Store(db_url, upgrade=False)  # now at this version's schema
    assert store.upgraded is None
    row = store.load(made["table"])
    assert row is not None and len(row.lines) == halfway
    assert [line.text for line in store.chat(made["table"], 10)] == ["good luck"]
    review = store.review("a" * 64)
    assert review is not None and review.state == "done"
    store.close()
    with TestClient(make_app(db_url)) as client:
        assert client.get(f"/api/scores/{sheet.json()['id']}").status_code == 200
        with connect(client, made["table"], made["token"]) as player:
            assert player.version == halfway
            final = play_all([player])
        assert final["obs"]["phase"] == "over" and final["version"] > halfway


def test_serve_upgrades_at_start_and_says_so_or_refuses_when_told_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    Store(url).close()
    _forget_revision(url)
    assert main(["serve", "--db", url, "--no-upgrade", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "a release from before schema upgrades" in err and f"ohhell db upgrade --db {url}" in err
    store = Store(url)
    assert store.upgraded == (None, schema.head())
    store.close()


def test_a_schema_newer_than_this_version_is_refused_never_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    Store(url).close()
    engine = create_engine(url)
    with engine.begin() as db:
        db.execute(text("UPDATE alembic_version SET version_num = 'zz99'"))
    engine.dispose()
    for upgrade in (True, False):
        with pytest.raises(schema.SchemaError, match="does not know: a newer version wrote it"):
            Store(url, upgrade=upgrade)
    assert main(["db", "--db", url, "upgrade"]) == 2


def test_db_history_lists_every_revision_oldest_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    known = schema.revisions()
    assert [line.split()[0] for line in lines] == [r.id for r in known]
    assert known[0].down is None and all(b.down == a.id for a, b in itertools.pairwise(known))
