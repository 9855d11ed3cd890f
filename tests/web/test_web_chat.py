"""Chat and quick reactions at a table, mutes, and the host removing a player
(docs/web.md, "Chat"). In-process through Starlette's TestClient.

The server's clock is held still (``create_app(now=...)``), so the chat's
budgets refill only when a test moves it: the limits are tested without
waiting and without depending on the machine's speed.
"""

from __future__ import annotations

import contextlib
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
from web_support import Player, Still, connect, join, make_app

from ohhell.web.tables.chat import CHAT_MAX, PERSON_BURST, REACTIONS, TABLE_BURST

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@contextlib.contextmanager
def serve(tmp_path: Path, clock: Still | None = None) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"), now=clock or Still())) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serve(tmp_path) as c:
        yield c


def lobby(client: TestClient) -> dict[str, Any]:
    """Ann hosts (seat 0), Bob sits in seat 1; seats 2 and 3 are bots; the match not started."""
    body = {"name": "Ann", "seats": ["human", "human", "random", "random"], "options": {"hand-sizes": "2,1"}}
    made = client.post("/api/tables", json=body).json()
    return {"table": made["table"], "tokens": [made["token"], join(client, made["table"], 1, "Bob")]}


def say(player: Player, text: str, **extra: Any) -> None:
    player.send({"type": "chat", "text": text, **extra})


def next_line(player: Player) -> dict[str, Any]:
    return player.until(lambda m: m["type"] in ("chat", "error"), "a chat line or an error")


def lines_until_pong(player: Player) -> list[dict[str, Any]]:
    """Every chat line received until the answer to a ping (nothing else may be pending)."""
    player.send({"type": "ping"})
    seen = []
    while True:
        message = player.recv()
        if message == {"type": "pong"}:
            return seen
        if message["type"] == "chat":
            seen.append(message)


def test_a_line_reaches_players_and_watchers(client: TestClient) -> None:
    t = lobby(client)
    with (
        connect(client, t["table"], t["tokens"][0]) as ann,
        connect(client, t["table"], t["tokens"][1]) as bob,
        connect(client, t["table"]) as zed,
    ):
        say(bob, "  hello   all ")
        for viewer in (ann, bob, zed):
            line = next_line(viewer)
            assert line["seat"] == 1 and line["name"] == "Bob" and line["text"] == "hello all"
            assert line["kind"] == "chat" and set(line) == {
                "type",
                "number",
                "seat",
                "name",
                "kind",
                "text",
                "at",
            }
        say(zed, "go Ann", name="Zed")
        for viewer in (ann, bob, zed):
            line = next_line(viewer)
            assert line["seat"] is None and line["name"] == "Zed" and line["text"] == "go Ann"
        ann.send({"type": "react", "reaction": "gg"})
        assert next_line(bob)["text"] == REACTIONS["gg"] and bob.seen[-1]["kind"] == "reaction"


def test_each_viewer_mutes_for_themselves(client: TestClient) -> None:
    t = lobby(client)
    with (
        connect(client, t["table"], t["tokens"][0]) as ann,
        connect(client, t["table"], t["tokens"][1]) as bob,
        connect(client, t["table"]) as zed,
    ):
        ann.send({"type": "mute", "who": 1})
        ann.send({"type": "mute", "who": "watchers"})
        lines_until_pong(ann)  # the mutes are taken before what follows
        say(bob, "one")
        say(zed, "two")
        assert [m["text"] for m in lines_until_pong(zed)] == ["one", "two"]
        assert lines_until_pong(ann) == []  # Ann hears neither
        ann.send({"type": "mute", "who": 1, "on": False})
        lines_until_pong(ann)
        say(bob, "three")
        assert [m["text"] for m in lines_until_pong(ann)] == ["three"]
    # Mutes sent with the hello apply to the history sent on arrival.
    with connect(client, t["table"]) as late:
        history = late.until(lambda m: m["type"] == "chat_history", "the history")
        assert [m["text"] for m in history["lines"]] == ["one", "two", "three"]
    with client.websocket_connect(f"/ws/{t['table']}") as ws:
        late = Player(ws)
        late.send({"type": "hello", "mute": ["watchers"]})
        history = late.until(lambda m: m["type"] == "chat_history", "the history")
        assert [m["text"] for m in history["lines"]] == ["one", "three"]


def test_lines_are_short_and_one_at_a_time(client: TestClient) -> None:
    t = lobby(client)
    with (
        connect(client, t["table"], t["tokens"][0]) as ann,
        connect(client, t["table"], t["tokens"][1]) as bob,
    ):
        say(bob, "x" * (CHAT_MAX + 1))
        assert f"at most {CHAT_MAX} characters" in next_line(bob)["error"]
        say(bob, "   ")
        assert "empty" in next_line(bob)["error"]
        say(bob, "bell\x07")
        assert "cannot be printed" in next_line(bob)["error"]
        bob.send({"type": "react", "reaction": "boo"})
        assert "reaction" in next_line(bob)["error"]
        assert lines_until_pong(ann) == []  # refusals go to their sender only
        for i in range(int(PERSON_BURST) + 3):
            say(bob, f"line {i}")
        heard = lines_until_pong(ann)
        assert [m["text"] for m in heard] == [f"line {i}" for i in range(int(PERSON_BURST))]
        lines_until_pong(bob)
        refusals = [m for m in bob.seen if m["type"] == "error" and "too fast" in m["error"]]
        assert len(refusals) == 3


def test_the_budget_refills_with_time(tmp_path: Path) -> None:
    clock = Still()
    with serve(tmp_path, clock) as client:
        t = lobby(client)
        with connect(client, t["table"], t["tokens"][1]) as bob:
            for i in range(int(PERSON_BURST)):
                say(bob, f"{i}")
            say(bob, "one too many")
            assert len(lines_until_pong(bob)) == int(PERSON_BURST)
            assert "too fast" in [m for m in bob.seen if m["type"] == "error"][-1]["error"]
            clock.t += 2.0  # the budget gives one line every two seconds
            say(bob, "again")
            assert [m["text"] for m in lines_until_pong(bob)] == ["again"]


def test_a_flood_of_watchers_stalls_nobody(client: TestClient) -> None:
    """Many lines from many watchers: each table side's budget caps what
    anyone receives, the players' own lines still go through, and the
    players' connections are never closed for falling behind."""
    t = lobby(client)
    with contextlib.ExitStack() as stack:
        ann = stack.enter_context(connect(client, t["table"], t["tokens"][0]))
        watchers = [stack.enter_context(connect(client, t["table"])) for _ in range(4)]
        for w in watchers:
            for i in range(40):
                say(w, f"spam {i} " + "y" * 150, name="Flood")
        for w in watchers:
            lines_until_pong(w)
        heard = lines_until_pong(ann)
        assert len(heard) == int(TABLE_BURST["watchers"])
        say(ann, "still here")
        assert [m["text"] for m in lines_until_pong(ann)] == ["still here"]


def test_the_host_mutes_a_player_for_everyone(client: TestClient) -> None:
    t = lobby(client)
    with (
        connect(client, t["table"], t["tokens"][0]) as ann,
        connect(client, t["table"], t["tokens"][1]) as bob,
    ):
        bob.send({"type": "silence", "seat": 0})
        assert "only the table's host" in next_line(bob)["error"]
        ann.send({"type": "silence", "seat": 1})
        table = ann.until(lambda m: m["type"] == "table" and m["silenced"] == [1], "the mute")
        assert table["silenced"] == [1]
        say(bob, "can you hear me")
        assert "muted you" in next_line(bob)["error"]
        assert lines_until_pong(ann) == []
        ann.send({"type": "silence", "seat": 1, "on": False})
        ann.until(lambda m: m["type"] == "table" and m["silenced"] == [], "the unmute")
        say(bob, "thanks")
        assert [m["text"] for m in lines_until_pong(ann)] == ["thanks"]


def test_the_host_removes_a_player(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        t = lobby(client)
        client.post(f"/api/tables/{t['table']}/start", json={"token": t["tokens"][0]})
        with (
            connect(client, t["table"], t["tokens"][0]) as ann,
            connect(client, t["table"], t["tokens"][1]) as bob,
        ):
            ann.send({"type": "remove", "seat": 0})
            assert "not another person's seat" in next_line(ann)["error"]
            ann.send({"type": "remove", "seat": 2})
            assert "not another person's seat" in next_line(ann)["error"]
            bob.send({"type": "remove", "seat": 0})
            assert "only the table's host" in next_line(bob)["error"]
            ann.send({"type": "remove", "seat": 1})
            removed = bob.until(lambda m: m["type"] == "error" and m["code"] == "removed", "the removal")
            assert "removed you" in removed["error"]
            assert bob.until(lambda m: m["type"] == "welcome", "the new welcome")["seat"] is None
            seat = ann.until(lambda m: m["type"] == "table" and m["seats"][1]["kind"] == "bot", "a bot")[
                "seats"
            ][1]
            assert seat["name"] != "Bob" and seat["level"] == "intermediate"
            # The whole table is told, the removed player too (a notice everyone hears).
            told = f"The host removed Bob: {seat['name']}, a bot, plays the seat now."
            for player in (ann, bob):
                if not any(m["type"] == "chat" and m["kind"] == "notice" for m in player.seen):
                    player.until(lambda m: m["type"] == "chat" and m["kind"] == "notice", "the notice")
                notices = [m["text"] for m in player.seen if m["type"] == "chat" and m["kind"] == "notice"]
                assert notices == [told]
            say(bob, "unfair")
            assert "removed you" in next_line(bob)["error"]
            bob.send({"type": "act", "version": 0, "action": {"kind": "bid", "bid": 0}})
            assert "watching" in next_line(bob)["error"]
            assert lines_until_pong(ann) == []
        # After a restart: still a bot's seat, and the token still has no voice.
    with serve(tmp_path) as client:
        assert client.get(f"/api/tables/{t['table']}").json()["seats"][1]["kind"] == "bot"
        with connect(client, t["table"], t["tokens"][1]) as bob:
            assert bob.welcome is not None and bob.welcome["seat"] is None
            say(bob, "I am back", name="Bob")
            assert "removed you" in next_line(bob)["error"]


def test_what_was_said_survives_a_restart(tmp_path: Path) -> None:
    with serve(tmp_path) as client:
        t = lobby(client)
        with connect(client, t["table"], t["tokens"][1]) as bob:
            say(bob, "before the restart")
            lines_until_pong(bob)
    with serve(tmp_path) as client, connect(client, t["table"]) as zed:
        history = zed.until(lambda m: m["type"] == "chat_history", "the history")
        assert [(m["name"], m["text"]) for m in history["lines"]] == [("Bob", "before the restart")]
        say(zed, "after", name="Zed")
        assert next_line(zed)["number"] == 1


def test_a_line_refused_for_speed_says_when_it_can_go(tmp_path: Path) -> None:
    clock = Still()
    with serve(tmp_path, clock) as client:
        t = lobby(client)
        with connect(client, t["table"], t["tokens"][1]) as bob:
            for i in range(int(PERSON_BURST)):
                say(bob, f"{i}")
            say(bob, "one too many")
            lines_until_pong(bob)
            refusal = [m for m in bob.seen if m["type"] == "error"][-1]
            assert refusal["code"] == "chat"
            # The page keeps the line in its box; the words say when to send it again.
            assert "kept" in refusal["error"] and "in 2 seconds" in refusal["error"], refusal


def test_a_watcher_is_muted_by_name(client: TestClient) -> None:
    t = lobby(client)
    with connect(client, t["table"]) as zed, connect(client, t["table"]) as amy:
        say(zed, "I am Zed", name="Zed")
        say(amy, "I am Amy", name="Amy")
        lines_until_pong(zed)
        lines_until_pong(amy)
    # Ann mutes Zed alone: the history she is sent leaves out his lines, not Amy's.
    with connect(client, t["table"], t["tokens"][0], hello=False) as ann:
        ann.send({"type": "hello", "token": t["tokens"][0], "mute": [{"watcher": "Zed"}]})
        history = ann.until(lambda m: m["type"] == "chat_history", "the chat's history")
        assert [line["text"] for line in history["lines"]] == ["I am Amy"]


def test_the_host_mutes_a_watcher_for_everyone(client: TestClient) -> None:
    t = lobby(client)
    with connect(client, t["table"], t["tokens"][0]) as ann, connect(client, t["table"]) as zed:
        bob_token = t["tokens"][1]
        with connect(client, t["table"], bob_token) as bob:
            bob.send({"type": "silence", "watcher": "Zed", "on": True})
            assert next_line(bob)["code"] == "seat"  # only the host may
        ann.send({"type": "silence", "watcher": "Zed", "on": True})
        lines_until_pong(ann)
        say(zed, "let me speak", name="Zed")
        assert "muted you" in next_line(zed)["error"]
        say(zed, "another name", name="Zoe")  # a mute is by the name a watcher chats under
        assert lines_until_pong(ann)[-1]["text"] == "another name"


def test_a_notice_is_stored_and_heard_by_everyone(tmp_path: Path) -> None:
    from ohhell.web.storage.store import Store
    from ohhell.web.tables.chat import NOTICE, TableChat, seat_taken_words
    from ohhell.web.tables.connection import Connection

    with serve(tmp_path) as client:
        t = lobby(client)
    store = Store(f"sqlite:///{tmp_path / 't.db'}")
    try:
        chat = TableChat(t["table"], store, {}, lambda: 0.0)
        hush = Connection(lambda text: None, None, host=False)
        hush.muted = {"watchers", 0, 1}  # mutes every watcher and every player: still hears the table
        row = chat.announce(seat_taken_words("Ann", "Bruno"), [hush])
        assert row is not None and row.kind == NOTICE and row.seat is None
        assert row.text == "Ann left; Bruno, a bot, plays the seat now"
        sent = hush.queue.get_nowait()
        assert sent is not None and '"kind":"notice"' in sent
        assert "Ann left" in (chat.history(hush) or "")
        assert [r.text for r in store.chat(t["table"], 10)] == [row.text]  # stored like any line
    finally:
        store.close()
