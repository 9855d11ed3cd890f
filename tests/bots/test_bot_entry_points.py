"""Bots added from outside the project: a package that declares a bot under
the ``ohhell.bots`` entry-point group plays a tournament and a web seat, and
``register_bot`` adds one from code."""

from __future__ import annotations

import random
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ohhell.bots.base as registry
from ohhell import make_rules
from ohhell.bots import UnknownBotError, bot_names, get_bot, opponent_levels, register_bot
from ohhell.bots.tournament import run_tournament

BOT_CODE = '''
class FirstLegalBot:
    """Always the first legal action: easy to tell apart from every built-in bot."""

    def __init__(self, **options):
        self.name = "first-legal"
        self.options = options

    def choose(self, obs, rng):
        return obs.legal_actions[0]
'''


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package installed the way pip leaves one: its code and a dist-info
    folder naming its entry point, on the import path."""
    package = tmp_path / "ohhell_testbot"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(BOT_CODE))
    info = tmp_path / "ohhell_testbot-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ohhell-testbot\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[ohhell.bots]\nfirstlegal = ohhell_testbot:FirstLegalBot\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # A fresh registry, which reads the entry points again.
    monkeypatch.setattr(registry, "_added", {})
    monkeypatch.setattr(registry, "_opponents", {})
    monkeypatch.setattr(registry, "_entry_points_read", False)
    yield tmp_path


def test_an_entry_point_bot_is_known_by_name(installed: Path) -> None:
    assert "firstlegal" in bot_names() and "firstlegal" in opponent_levels()
    bot = get_bot("FirstLegal", level=3)
    assert bot.name == "first-legal"


def test_an_entry_point_bot_plays_a_tournament(installed: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,2"})
    result = run_tournament(["firstlegal", "random"], rules, 4, seed=1, progress=False)
    stats = {s.name: s for s in result.stats}
    assert set(stats) == {"firstlegal", "random"}
    assert stats["firstlegal"].hands > 0


def test_a_module_path_names_a_bot_without_registering(installed: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "2"})
    result = run_tournament(["ohhell_testbot:FirstLegalBot", "random"], rules, 2, seed=1, progress=False)
    assert result.stats[0].hands > 0 and "FirstLegalBot" in result.stats[0].name
    with pytest.raises(UnknownBotError, match="cannot load"):
        get_bot("ohhell_testbot:NoSuchBot")


def test_an_entry_point_bot_takes_a_web_seat(installed: Path) -> None:
    from starlette.testclient import TestClient
    from web_support import connect, make_app, new_table, play_all

    with TestClient(make_app(str(installed / "t.db"))) as client:
        options = client.get("/api/options").json()
        assert "firstlegal" in options["levels"]
        made = new_table(client, options={"hand-sizes": "2,1"}, level="firstlegal", start=True)
        seats = client.get(f"/api/tables/{made['table']}").json()["seats"]
        assert [s["level"] for s in seats[1:]] == ["firstlegal"] * 3
        with connect(client, made["table"], made["token"]) as host:
            final = play_all([host])
        assert final["obs"]["phase"] == "over"


def test_register_bot_adds_a_bot_from_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_added", {})
    monkeypatch.setattr(registry, "_opponents", {})
    monkeypatch.setattr(registry, "_entry_points_read", True)

    class Cautious:
        name = "cautious"

        def choose(self, obs: object, rng: random.Random) -> object:
            raise NotImplementedError

    register_bot("Cautious", Cautious, opponent=False)
    assert "cautious" in bot_names() and "cautious" not in opponent_levels()
    assert isinstance(get_bot("cautious"), Cautious)
    with pytest.raises(ValueError, match="built in"):
        register_bot("expert", Cautious)


def test_a_slow_added_bot_thinks_off_the_servers_event_loop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A bot from outside may take its time; while it thinks, the server must
    # go on answering everyone else (it thinks in a thread).
    import threading

    from starlette.testclient import TestClient
    from web_support import connect, make_app, new_table

    monkeypatch.setattr(registry, "_added", {})
    monkeypatch.setattr(registry, "_opponents", {})
    monkeypatch.setattr(registry, "_entry_points_read", True)
    entered, release, returned = threading.Event(), threading.Event(), threading.Event()

    class Ponderer:
        name = "ponderer"

        def choose(self, obs: Any, rng: random.Random) -> Any:
            entered.set()
            release.wait(30)  # until the test has been answered meanwhile
            returned.set()
            return obs.legal_actions[0]

    register_bot("ponderer", lambda **_: Ponderer())
    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        # Dealer 0 with one card: seat 1, a ponderer, bids first.
        options = {"hand-sizes": "1", "first-dealer": "0"}
        made = new_table(client, options=options, level="ponderer", start=True)
        with connect(client, made["table"], made["token"]):
            assert entered.wait(30), "the bot was never asked"
            answered = client.get("/api/options")  # the event loop is free
            still_thinking = not returned.is_set()
            release.set()
        assert answered.status_code == 200 and still_thinking
