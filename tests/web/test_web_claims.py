"""Claims at a table (docs/web.md, "Claims"): certain claims accepted at once
and settled, the others put to the table with the claimer's cards shown,
bots answering by the cards, the record keeping the claim, a restart
keeping a claim's autoplay.

The server's own state is read here (``hub.tables``) only to know which
claim the cards make certain, as the server does; every action goes
through the WebSocket as a page's would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from web_support import Json, Player, connect, join, make_app, with_addresses

from ohhell import Phase, Play, claim_possible, line_holds, loads, tricks_left
from ohhell.web.errors import TableError
from ohhell.web.serving.replays import replay_frames
from ohhell.web.tables.thinking import CLAIMS_PER_ADDRESS, Thinkers

ANN = "10.0.0.5"  # the claimer's address


def serve(db: Path) -> TestClient:
    return TestClient(make_app(str(db), change_grace=0))


def live(client: TestClient, table: str) -> Any:
    return client.app.state.server.hub.tables[table]  # type: ignore[attr-defined]


async def drive_again(table: Any) -> None:
    """Start a table's driver afresh (a pause it is in is cut short)."""
    table.driver.cancel()
    table.driver = asyncio.get_running_loop().create_task(table.drive())


def table_with(client: TestClient, sizes: str, seats: list[str], players: int = 4) -> tuple[str, list[str]]:
    """A started table (the last seat deals, so seat 0 bids and leads first),
    people at the "human" seats; returns the table and the people's tokens."""
    options = {"players": str(players), "hand-sizes": sizes, "first-dealer": str(players - 1), "hook": "no"}
    made = client.post("/api/tables", json={"options": options, "seats": seats, "name": "Ann"}).json()
    tokens = [made["token"]] + [
        join(client, made["table"], seat, f"P{seat}")
        for seat, kind in enumerate(seats)
        if seat and kind == "human"
    ]
    r = client.post(f"/api/tables/{made['table']}/start", json={"token": made["token"]})
    assert r.status_code == 200, r.text
    return made["table"], tokens


def bid_until_play(client: TestClient, table: str, players: list[Player]) -> None:
    """Every person bids the first bid offered until the cards are played."""
    for p in players:
        p.state_where(lambda m: True, "a first state")
    server = live(client, table)
    while server.state.phase is not Phase.PLAY:
        version = server.version
        for p in players:
            p.state_at(version)
        for p in players:
            if any(a["kind"] == "bid" for a in p.obs["legal"]):
                p.act(next(a for a in p.obs["legal"] if a["kind"] == "bid"), version)
                p.state_where(lambda m, v=version: m["version"] > v, "the bid taken")
                break
        else:
            players[0].state_where(lambda m, v=version: m["version"] > v, "a bot's bid")
    version = server.version
    for p in players:
        p.state_at(version)


def told(player: Player, status: str) -> Json:
    return player.until(lambda m: m["type"] == "claim" and m["status"] == status, f"a claim {status}")


def refused(player: Player) -> Json:
    return player.until(lambda m: m["type"] == "error", "a refusal")


def test_a_certain_claim_of_every_trick_left_settles_the_hand_and_the_record_keeps_it(tmp_path: Path) -> None:
    # Hands of one card: the one trick is won or lost already, so exactly one
    # of "all" (1) and "none" (0) is certain for the player to lead.
    with serve(tmp_path / "t.db") as client:
        table, (token,) = table_with(client, "1,1", ["human", "random", "random", "random"])
        server = live(client, table)
        with connect(client, table, token) as ann:
            bid_until_play(client, table, [ann])
            assert tricks_left(server.state) == 1 and server.state.to_act == 0
            certain = 1 if line_holds(server.state, 0, 1) else 0
            assert not line_holds(server.state, 0, 1 - certain)
            version = server.version
            ann.send({"type": "claim", "tricks": certain})
            yes = told(ann, "accepted")
            assert (yes["seat"], yes["tricks"], yes["left"], yes["agreed"]) == (0, certain, 1, False)
            settled = ann.state_where(lambda m: len(m["obs"]["results"]) == 1, "settled")
            assert settled["obs"]["results"][0]["tricks"][0] == certain
            # The four cards played out at once, right after the claim.
            assert all(isinstance(a, Play) for a in server.state.log[version : version + 4])
            # The next hand: the claim the cards do not make is put to the
            # bots, who refuse it without saying which; nothing changes, and
            # a second claim in the same hand is refused (one claim a hand).
            bid_until_play(client, table, [ann])
            assert server.state.hand_number == 1 and server.state.to_act == 0
            wrong = 0 if line_holds(server.state, 0, 1) else 1
            version = server.version
            ann.send({"type": "claim", "tricks": wrong})
            no = told(ann, "refused")
            assert no["by"] is None and no["tricks"] == wrong and server.version == version
            ann.send({"type": "claim", "tricks": 1 - wrong})
            assert "one claim a hand" in refused(ann)["error"]
            card = next(a for a in ann.obs["legal"] if a["kind"] == "play")
            ann.act(card, ann.version)
            ann.state_where(lambda m: m["obs"]["phase"] == "over", "the end")
        text = client.get(f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {token}"}).text
    record = loads(text)
    assert [(c.seat, c.tricks) for c in record.claims] == [(0, certain)]
    assert text.count("claim 0 ") == 1
    record.replay(complete=True)  # the claim came true
    # The replay shows the claim where it was made, between the bids and the cards played out.
    frames = replay_frames(record)["frames"]
    at = next(i for i, f in enumerate(frames) if f["label"].startswith("claim "))
    assert frames[at]["label"] == f"claim 0 {certain} 1" and frames[at]["obs"] == {}
    assert frames[at - 1]["label"].startswith(("bid ", "change "))
    assert frames[at + 1]["label"].startswith("play 0 ")
    assert len(frames) == len(record.actions) + 1


def test_bad_claims_and_answers_are_refused_and_change_nothing(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as client:
        table, (token,) = table_with(client, "2", ["human", "random", "random", "random"])
        with connect(client, table, token) as ann:
            bid_until_play(client, table, [ann])
            version = live(client, table).version
            for bad in (3, -1):
                ann.send({"type": "claim", "tricks": bad})
                error = refused(ann)
                assert "0 to 2" in error["error"] and error["code"] == "claim"
            ann.send({"type": "claim", "tricks": "all"})
            assert '"tricks"' in refused(ann)["error"]
            ann.send({"type": "answer", "accept": True})
            assert "no claim for you" in refused(ann)["error"]
            assert live(client, table).version == version


def open_claim_table(client: TestClient) -> tuple[str, list[str], int]:
    """A started three-person table (no bot) at the first lead, where the
    host has a claim the cards make possible but not certain."""
    for _ in range(40):
        table, tokens = table_with(client, "2", ["human"] * 3, players=3)
        server = live(client, table)
        with (
            connect(client, table, tokens[0]) as a,
            connect(client, table, tokens[1]) as b,
            connect(client, table, tokens[2]) as c,
        ):
            bid_until_play(client, table, [a, b, c])
        st = server.state
        for k in range(3):
            if st.to_act == 0 and not line_holds(st, 0, k) and claim_possible(st, 0, k):
                return table, tokens, k
    raise AssertionError("no deal in 40 gave the host an uncertain claim")


def test_an_uncertain_claim_goes_to_the_people_with_the_cards_shown(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as client:
        table, tokens, k = open_claim_table(client)
        server = live(client, table)
        shown = sorted(str(card) for card in server.state.hands[0])
        version = server.version
        with (
            connect(client, table, tokens[0]) as a,
            connect(client, table, tokens[1]) as b,
            connect(client, table, tokens[2]) as c,
        ):
            for p in (a, b, c):
                p.state_at(version)
            a.send({"type": "claim", "tricks": k})
            for p in (a, b, c):
                asked = told(p, "asked")
                assert (asked["seat"], asked["tricks"], asked["left"]) == (0, k, 2)
                assert sorted(asked["cards"]) == shown and asked["waiting"] == [1, 2]
            a.send({"type": "answer", "accept": True})  # the claimer does not answer
            assert refused(a)["code"] == "claim"
            b.send({"type": "answer", "accept": True})
            c.until(lambda m: m["type"] == "claim" and m.get("waiting") == [2], "the first yes told")
            c.send({"type": "answer", "accept": False})
            no = told(b, "refused")
            assert no["by"] == 2 and server.version == version  # a person's refusal is theirs to say
            a.send({"type": "claim", "tricks": k})
            assert "one claim a hand" in refused(a)["error"]


def test_a_claim_everyone_agrees_to_is_played_out_so_it_comes_true(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as client:
        table, tokens, k = open_claim_table(client)
        server = live(client, table)
        version = server.version
        with (
            connect(client, table, tokens[0]) as a,
            connect(client, table, tokens[1]) as b,
            connect(client, table, tokens[2]) as c,
        ):
            for p in (a, b, c):
                p.state_at(version)
            a.send({"type": "claim", "tricks": k})
            told(b, "asked")
            told(c, "asked")
            b.send({"type": "answer", "accept": True})
            c.until(lambda m: m["type"] == "claim" and m.get("waiting") == [2], "the first yes told")
            c.send({"type": "answer", "accept": True})
            yes = told(a, "accepted")
            assert yes["agreed"] and yes["tricks"] == k
            settled = a.state_where(lambda m: len(m["obs"]["results"]) == 1, "the hand played out")
            assert settled["obs"]["results"][0]["tricks"][0] == k
            b.send({"type": "act", "version": settled["version"], "action": {"kind": "play", "card": "AS"}})
            refused(b)  # the hand is over: nothing more to play
        assert [
            (cl.seat, cl.tricks)
            for cl in loads(
                client.get(
                    f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {tokens[0]}"}
                ).text
            ).claims
        ] == [(0, k)]


def test_a_certain_claim_of_fewer_tricks_plays_the_claimers_cards_even_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "t.db"
    found = None
    with serve(db) as client:
        for _ in range(40):
            table, (token,) = table_with(client, "3", ["human", "random", "random", "random"])
            server = live(client, table)
            with connect(client, table, token) as ann:
                bid_until_play(client, table, [ann])
                if server.state.to_act != 0:
                    continue
                sure = [k for k in range(3) if line_holds(server.state, 0, k)]  # fewer than all 3
                if not sure:
                    continue
                k = sure[0]
                server.hub.bot_delay = 30.0  # the server's play for Ann waits: her own try comes first
                ann.send({"type": "claim", "tricks": k})
                assert told(ann, "accepted")["tricks"] == k
                card = next(a for a in ann.obs["legal"] if a["kind"] == "play")
                ann.act(card, ann.version)  # her own card, while her claim stands: refused
                assert "your claim stands" in refused(ann)["error"]
                assert server.state.hands[0] and len(server.state.hands[0]) == 3
                server.hub.bot_delay = 0.0

                client.portal.call(drive_again, server)  # type: ignore[union-attr]
                # The server plays Ann's cards now: her first card goes without her.
                ann.state_where(lambda m: m["obs"]["hand_counts"][0] == 2, "Ann's card played for her")
                found = (table, token, k)
                break
    assert found is not None, "no deal in 40 gave a certain claim of fewer than 3 tricks"
    table, token, k = found
    with serve(db) as client, connect(client, table, token) as ann:  # a restart: the claim stands
        # The claim was stored with the table: the restarted server knows it
        # (and plays on for Ann if her hand was not over yet).
        assert [(c.seat, c.tricks) for c in live(client, table).claims.accepted] == [(0, k)]
        end = ann.state_where(lambda m: len(m["obs"]["results"]) == 1, "the hand's end")
        assert end["obs"]["results"][0]["tricks"][0] == k


def test_a_claim_being_asked_is_off_when_the_host_ends_the_table(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db") as client:
        table, tokens, k = open_claim_table(client)
        server = live(client, table)
        version = server.version
        with connect(client, table, tokens[0]) as a, connect(client, table, tokens[1]) as b:
            a.state_at(version)
            b.state_at(version)
            a.send({"type": "claim", "tricks": k})
            told(b, "asked")
            a.send({"type": "end"})
            off = told(b, "withdrawn")
            assert off["why"] == "the host ended the table"
            b.send({"type": "answer", "accept": True})
            assert "no claim for you" in refused(b)["error"]
            assert server.version == version and server.status == "ended"


def test_one_claim_a_hand_holds_across_a_restart_of_the_server(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with serve(db) as client:
        table, (token,) = table_with(client, "1,1", ["human", "random", "random", "random"])
        server = live(client, table)
        with connect(client, table, token) as ann:
            bid_until_play(client, table, [ann])
            assert server.state.to_act == 0
            wrong = 0 if line_holds(server.state, 0, 1) else 1
            version = server.version
            ann.send({"type": "claim", "tricks": wrong})
            assert told(ann, "refused")["tricks"] == wrong and server.version == version
            server.claims.tried = set()  # as in a process that never saw the claim:
            client.portal.call(server.hub.reload, server)  # type: ignore[union-attr]
            assert server.claims.tried == {(0, 0)}  # the table read again knows it
    with serve(db) as client, connect(client, table, token) as ann:  # a restart, in the same hand
        ann.state_where(lambda m: m["version"] == version, "the table where it stood")
        assert live(client, table).state.to_act == 0
        ann.send({"type": "claim", "tricks": 1 - wrong})
        assert "one claim a hand" in refused(ann)["error"]
        assert live(client, table).version == version


class Recording(Thinkers):
    """The server's thinkers, noting each search's function and address."""

    def __init__(self) -> None:
        super().__init__(0)
        self.asked: list[tuple[str, str]] = []

    async def work(self, call: Any, *args: Any, owner: str = "", table: str = "") -> Any:
        self.asked.append((call.__name__, owner))
        return await super().work(call, *args, owner=owner, table=table)


def test_a_claims_searches_run_with_the_thinking_in_the_claimers_turn_and_are_capped(tmp_path: Path) -> None:
    app = make_app(str(tmp_path / "t.db"), change_grace=0)
    with TestClient(with_addresses(app)) as client:
        hub = app.state.server.hub
        thinkers = hub.thinkers = Recording()
        table, (token,) = table_with(client, "1,1", ["human", "random", "random", "random"])
        server = live(client, table)
        with connect(client, table, token, address=ANN) as ann:
            bid_until_play(client, table, [ann])
            wrong = 0 if line_holds(server.state, 0, 1) else 1
            thinkers.claims_per_address = 0  # no room for a claim of Ann's address now
            ann.send({"type": "claim", "tricks": wrong})
            busy = refused(ann)
            assert busy["code"] == "busy" and "claim again in a moment" in busy["error"]
            assert thinkers.asked == [] and not server.claims.tried  # not counted as her claim
            thinkers.claims_per_address = CLAIMS_PER_ADDRESS
            ann.send({"type": "claim", "tricks": wrong})
            told(ann, "refused")
        # The certainty, whether any play can make it, then the bots' answers
        # (until one refuses), each a search of its own in the claimer's
        # address's turn.
        names = [name for name, _ in thinkers.asked]
        assert names[:2] == ["line_holds", "claim_possible"] and set(names[2:]) <= {"accepts_claim"}, names
        assert {owner for _, owner in thinkers.asked} == {ANN}
        assert not thinkers._claims_of  # the claim's room is given back


def test_one_address_has_at_most_its_share_of_claims_being_worked_out() -> None:
    thinkers = Thinkers(0, claims_per_address=2)
    with thinkers.claiming(ANN), thinkers.claiming(ANN):
        with pytest.raises(TableError) as refusal, thinkers.claiming(ANN):
            pass
        assert refusal.value.code == "busy"
        with thinkers.claiming("10.0.0.9"):  # another address has its own room
            pass
    with thinkers.claiming(ANN):  # given back when done
        pass


def test_a_claim_no_play_can_make_come_true_is_refused_before_anyone_is_asked(tmp_path: Path) -> None:
    # R-CLAIM: nobody is asked to judge a claim that cannot come true however the cards are played.
    with serve(tmp_path / "t.db") as client:
        for _ in range(40):
            table, tokens = table_with(client, "2", ["human"] * 3, players=3)
            server = live(client, table)
            with (
                connect(client, table, tokens[0]) as a,
                connect(client, table, tokens[1]) as b,
                connect(client, table, tokens[2]) as c,
            ):
                bid_until_play(client, table, [a, b, c])
                st = server.state
                hopeless = [k for k in range(3) if st.to_act == 0 and not claim_possible(st, 0, k)]
                if not hopeless:
                    continue
                a.send({"type": "claim", "tricks": hopeless[0]})
                for p in (a, b, c):
                    no = told(p, "refused")
                    assert "no play of the cards" in no["why"]
                assert not any(m["type"] == "claim" and m["status"] == "asked" for m in b.seen)
                assert server.claims.asking is None
                return
    raise AssertionError("no deal in 40 gave the host a claim no play can make")


def test_the_claimers_move_clock_stands_still_while_the_others_answer(tmp_path: Path) -> None:
    now = [1000.0]
    with TestClient(make_app(str(tmp_path / "t.db"), change_grace=0, clock=60, now=lambda: now[0])) as client:
        table, tokens, k = open_claim_table(client)
        server = live(client, table)
        with (
            connect(client, table, tokens[0]) as a,
            connect(client, table, tokens[1]) as b,
            connect(client, table, tokens[2]) as c,
        ):
            for p in (a, b, c):
                p.state_at(server.version)
            before = server.deadline(0)
            assert before is not None
            now[0] += 10  # the claimer thinks for 10 s, then claims
            a.send({"type": "claim", "tricks": k})
            told(b, "asked")
            assert server.deadline(0) is None and server.clocks() == []  # nobody's clock runs
            now[0] += 25  # the others take 25 s to answer
            b.send({"type": "answer", "accept": False})
            told(a, "refused")
            # The claimer has the time they had when they claimed: 50 s, not 25.
            assert server.deadline(0) == pytest.approx(before + 25)
            # The pages were told: no clock while asked, then the claimer's 50 s again.
            tables = [m for m in a.seen if m["type"] == "table"]
            assert tables[-2]["clocks"] == [] and tables[-1]["clocks"] == [{"seat": 0, "ms": 50_000}]
