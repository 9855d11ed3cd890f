"""``ohhell accounts``: the host lists accounts, resets a forgotten password,
disables and deletes (cli/accounts.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("argon2")
pytest.importorskip("sqlalchemy")

from ohhell.cli import main
from ohhell.web.accounts.model import Accounts
from ohhell.web.storage.store import Store


def test_the_host_resets_disables_enables_and_deletes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    store = Store(url)
    accounts = Accounts(store.engine)
    ann = accounts.sign_up("Ann", "the first password")
    session = accounts.open_session(ann)
    assert main(["accounts", "--db", url, "list"]) == 0
    assert "Ann" in capsys.readouterr().out

    assert main(["accounts", "--db", url, "reset-password", "ann"]) == 0
    new = capsys.readouterr().out.split("new password: ")[1].split()[0]
    assert accounts.verify("Ann", new) is not None and accounts.verify("Ann", "the first password") is None
    assert accounts.session(session) is None  # the sessions ended with the reset

    assert main(["accounts", "--db", url, "disable", "Ann"]) == 0
    assert accounts.verify("Ann", new) is None
    assert main(["accounts", "--db", url, "enable", "Ann"]) == 0
    assert accounts.verify("Ann", new) is not None

    assert main(["accounts", "--db", url, "delete", "Ann"]) == 0
    assert accounts.by_name("Ann") is None
    capsys.readouterr()
    assert main(["accounts", "--db", url, "delete", "Ann"]) == 2
    assert "no account is named 'Ann'" in capsys.readouterr().err
    store.close()
