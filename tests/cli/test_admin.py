"""``ohhell admin``: the host's orders as stored for the servers (cli/admin.py,
web/serving/admin.py). What the servers do with them is tests/web/test_web_ops.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from ohhell.cli import main
from ohhell.web.serving import admin
from ohhell.web.storage.store import SeatRow, Store


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ohhell.db'}"


def _orders(db: str) -> list[admin.Order]:
    store = Store(db)
    try:
        return admin.orders_after(store.engine, 0)
    finally:
        store.close()


def _table(db: str, table_id: str, status: str = "playing") -> None:
    store = Store(db)
    try:
        seats = [SeatRow(0, "Ann", "human", None, "h" * 64), SeatRow(1, "Bot", "bot", "random", None)]
        seats += [SeatRow(2, "Bot 3", "bot", "random", None)]
        store.create(table_id, {"players": "3"}, 1, 0, seats)
        store.set_status(table_id, status)
    finally:
        store.close()


def test_tables_lists_the_open_tables_with_their_people(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--db", db, "tables"]) == 0
    assert "No table is open." in capsys.readouterr().out
    _table(db, "open1")
    _table(db, "done1", "over")
    assert main(["admin", "--db", db, "tables"]) == 0
    out = capsys.readouterr().out
    assert "open1" in out and "Ann and 2 bots" in out and "done1" not in out
    assert main(["admin", "--db", db, "tables", "--all"]) == 0
    assert "done1" in capsys.readouterr().out


def test_ban_and_unban_store_the_bar_and_an_order(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--db", db, "ban", "203.0.113.77/24", "--reason", "spam\nin chat"]) == 0
    assert "203.0.113.0/24 is barred" in capsys.readouterr().out
    assert main(["admin", "--db", db, "ban", "203.0.113.0/24"]) == 0
    assert "barred already" in capsys.readouterr().out
    assert main(["admin", "--db", db, "ban"]) == 0
    out = capsys.readouterr().out
    assert "203.0.113.0/24" in out and "spam in chat" in out  # the reason kept on one line
    bans = admin.Bans(["203.0.113.0/24"])
    assert bans.barred("203.0.113.9") and not bans.barred("203.0.114.9") and not bans.barred("::1")
    # An IPv4 client of a server listening on "::" (ohhell serve --workers --host ::) is barred too.
    assert bans.barred("::ffff:203.0.113.9") and not bans.barred("::ffff:203.0.114.9")
    assert main(["admin", "--db", db, "unban", "203.0.113.0/24"]) == 0
    assert "no longer barred" in capsys.readouterr().out
    assert main(["admin", "--db", db, "unban", "203.0.113.0/24"]) == 0
    assert "was not barred" in capsys.readouterr().out
    assert [(o.kind, o.target) for o in _orders(db)] == [
        ("ban", "203.0.113.0/24"),
        ("unban", "203.0.113.0/24"),
    ]


def test_bad_input_is_refused_with_words(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--db", db, "ban", "not-an-address"]) == 2
    assert "is not an address" in capsys.readouterr().err
    assert main(["admin", "--db", db, "announce", "\x00\n\t "]) == 2
    assert "the notice is empty" in capsys.readouterr().err
    assert main(["admin", "--db", db, "announce", "x" * 400]) == 2
    assert "at most" in capsys.readouterr().err
    assert main(["admin", "--db", db, "close", "nope"]) == 2
    assert "there is no table 'nope'" in capsys.readouterr().err
    assert main(["admin", "--db", db]) == 2
    assert _orders(db) == []  # nothing refused was ordered


def test_announce_stores_one_plain_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "--db", db, "announce", "Restart\tat", "noon:\x1b[31m", "games go on."]) == 0
    words = "Restart at noon: [31m games go on."
    assert f"Every table will read: {words}" in capsys.readouterr().out
    assert [(o.kind, o.target) for o in _orders(db)] == [("announce", words)]


def test_close_with_no_server_running_is_left_for_the_next_to_start(
    db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import ohhell.cli.admin as command

    monkeypatch.setattr(command, "WAIT", 0.3)
    _table(db, "-dash1")
    assert main(["admin", "--db", db, "close", "--", "-dash1"]) == 0
    assert "next server to start" in capsys.readouterr().out
    store = Store(db)
    try:
        assert admin.unfinished_closes(store.engine) == ["-dash1"]
        store.set_status("-dash1", "ended")
        assert admin.unfinished_closes(store.engine) == []
    finally:
        store.close()
    assert main(["admin", "--db", db, "close", "--", "-dash1"]) == 0
    assert "is ended already" in capsys.readouterr().out
