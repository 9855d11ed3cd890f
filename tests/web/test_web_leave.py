"""Leaving a table and ending it (docs/web.md, "Leaving and ending a table").

A seated person may leave: in the lobby their seat opens again; during the
match a bot plays it for good, as when the host removes someone, and the
whole table is told. The host does not leave: they end the table for
everyone, which stops the match where it is (its record can still be
downloaded) and its bots.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from web_support import Json, connect, join, make_app, new_table, play_all


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


def notice(player: object, words: str) -> Json:
    """The next notice of the table (a chat line everyone hears) with ``words`` in it."""
    return player.until(  # type: ignore[attr-defined, no-any-return]
        lambda m: m["type"] == "chat" and m.get("kind") == "notice" and words in m["text"],
        f"a notice: {words}",
    )


def refusal(player: object) -> Json:
    """The next error sent to ``player`` (the bots may move meanwhile)."""
    return player.until(lambda m: m["type"] == "error", "a refusal")  # type: ignore[attr-defined, no-any-return]


def test_a_person_leaving_the_lobby_opens_their_seat_again(client: TestClient) -> None:
    made = new_table(client, seats=["human", "human", "random", "random"], name="Ann")
    table = made["table"]
    ben = join(client, table, 1, "Ben")
    with connect(client, table, made["token"]) as host, connect(client, table, ben) as guest:
        guest.send({"type": "leave"})
        guest.until(lambda m: m["type"] == "welcome" and m["seat"] is None, "Ben watching")
        assert "Ben left the table" in notice(host, "left")["text"]
        shown = host.until(lambda m: m["type"] == "table" and m["seats"][1]["kind"] == "open", "seat 2 open")
        assert shown["seats"][1]["name"] is None
    assert client.get(f"/api/tables/{table}").json()["seats"][1]["kind"] == "open"
    again = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "Cy"})
    assert again.status_code == 200  # anyone may take it now


def test_a_person_leaving_the_match_is_replaced_by_a_bot_that_plays_on(client: TestClient) -> None:
    made = new_table(client, options={"hand-sizes": "2"}, seats=["human", "human", "random", "random"])
    table = made["table"]
    ben = join(client, table, 1, "Ben")
    client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
    with connect(client, table, made["token"]) as host, connect(client, table, ben) as guest:
        host.state_where(lambda m: True, "the first state")
        guest.send({"type": "leave"})
        error = guest.until(lambda m: m["type"] == "error", "told they left")
        assert error["code"] == "removed" and "You left the table" in error["error"]
        said = notice(host, "left the table")["text"]
        assert said.startswith("Ben left the table") and "a bot, plays the seat now" in said
        seats = host.until(lambda m: m["type"] == "table" and m["seats"][1]["kind"] == "bot", "a bot")[
            "seats"
        ]
        assert seats[1]["level"] == "intermediate"
        guest.send({"type": "leave"})  # a watcher has no seat to leave
        assert refusal(guest)["code"] == "seat"
        final = play_all([host])  # the bot plays Ben's seat to the end
        assert final["obs"]["phase"] == "over"
    # Back with the same token later, Ben is told he left, not that the host removed him.
    with connect(client, table, ben) as back:
        back.until(lambda m: m["type"] == "chat_history", "the arrival")
        told = [m["error"] for m in back.seen if m["type"] == "error"]
        assert told == ["You left this table: you can watch."], back.seen
    # Ben's old token holds no seat any more.
    r = client.post(f"/api/tables/{table}/rematch", json={"token": ben})
    assert r.status_code == 403


def test_the_host_ends_the_table_for_everyone(client: TestClient) -> None:
    made = new_table(client, seats=["human", "human", "random", "random"], name="Ann")
    table = made["table"]
    ben = join(client, table, 1, "Ben")
    client.post(f"/api/tables/{table}/start", json={"token": made["token"]})
    seat = {"Authorization": f"Bearer {ben}"}  # a private table's record is its players'
    r = client.get(f"/api/tables/{table}/record", headers=seat)
    assert r.status_code == 409  # not before the end
    with connect(client, table, made["token"]) as host, connect(client, table, ben) as guest:
        host.state_where(lambda m: True, "the first state")
        host.send({"type": "leave"})  # the host ends the table rather than leave it
        assert "end the table" in refusal(host)["error"]
        guest.send({"type": "end"})  # only the host may
        assert refusal(guest)["code"] == "seat"
        host.send({"type": "end"})
        assert notice(guest, "ended")["text"] == "The host ended the table."
        guest.until(lambda m: m["type"] == "table" and m["status"] == "ended", "the table ended")
        version = guest.version
        state = guest.obs
        to_act = [a for a in state["legal"] if a["kind"] != "change"]
        if to_act:
            guest.act(to_act[0], version)
            assert "not being played" in refusal(guest)["error"]
        host.send({"type": "end"})
        assert "ended already" in refusal(host)["error"]
    assert client.get(f"/api/tables/{table}").json()["status"] == "ended"
    r = client.get(f"/api/tables/{table}/record", headers=seat)
    assert r.status_code == 200 and "Ann" in r.text  # the match so far
