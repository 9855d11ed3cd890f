"""Messages between server processes (web/cluster/broker.py, web/cluster/relay.py), with a
stand-in for Redis: one message the encoder refuses fails only itself and is
answered at once, a failed publish is tried again and then closes the
clients concerned with 1012, and a relayed client is never left waiting for
an answer that was lost. Nothing here needs Redis; tests/web/test_web_restarts.py
restarts real ones.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

POISON: list[Any] = [2**70, "\ud800", json.loads("[" * 300 + "]" * 300)]


class FakePipeline:
    def __init__(self, redis: FakeRedis) -> None:
        self.redis = redis
        self.queued: list[tuple[str, bytes]] = []

    async def __aenter__(self) -> FakePipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        pass

    def publish(self, channel: str, data: bytes) -> None:
        self.queued.append((channel, data))

    async def execute(self) -> None:
        if self.redis.failures:
            self.redis.failures -= 1
            raise ConnectionError("Connection closed by server.")
        self.redis.published += self.queued


class FakeRedis:
    """Publishes into a list; fails the next ``failures`` executes."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []
        self.failures = 0

    def pipeline(self, transaction: bool = False) -> FakePipeline:
        return FakePipeline(self)


def _cluster() -> tuple[Any, FakeRedis]:
    from ohhell.web.cluster.broker import Cluster

    cluster = Cluster("redis://unused", "test")
    fake = FakeRedis()
    cluster._redis = fake
    return cluster, fake


def _delivered(fake: FakeRedis) -> list[dict[str, Any]]:
    """Every message published, decoded as the receiving process does."""
    messages = []
    for _, data in fake.published:
        batch = json.loads(data)
        messages += [{**m, "from": batch["from"]} for m in batch["m"]]
    return messages


@pytest.mark.parametrize("poison", POISON, ids=["big-int", "lone-surrogate", "deep"])
def test_a_value_the_encoder_refuses_fails_only_its_own_message(poison: Any) -> None:
    from ohhell.web.cluster.broker import Unsendable

    async def go() -> list[dict[str, Any]]:
        cluster, fake = _cluster()
        # In one turn of the loop, as a busy process sends: others' messages
        # before and after the bad one, to the same process and another.
        cluster.send("b", {"t": "text", "c": 1, "text": "before"})
        with pytest.raises(Unsendable):
            cluster.send("b", {"t": "attach", "c": 2, "table": "x", "hello": {"token": poison}})
        cluster.send("c", {"t": "text", "c": 3, "text": "elsewhere"})
        cluster.send("b", {"t": "text", "c": 4, "text": "after"})
        await asyncio.sleep(0.01)
        return _delivered(fake)

    delivered = asyncio.run(go())
    assert [(m["c"], m["text"]) for m in delivered] == [(1, "before"), (4, "after"), (3, "elsewhere")]
    assert all(m["from"] for m in delivered)


@pytest.mark.parametrize("poison", POISON, ids=["big-int", "lone-surrogate", "deep"])
def test_a_relayed_request_the_encoder_refuses_is_answered_400_at_once(poison: Any) -> None:
    from ohhell.web.cluster.relay import Relay

    async def go() -> tuple[dict[str, Any], float, FakeRedis]:
        cluster, fake = _cluster()
        relay = Relay(cluster, server=None)  # type: ignore[arg-type]
        started = time.monotonic()
        answer = await relay.call("b", {"op": "join", "table": "x", "data": {"seat": poison}})
        took = time.monotonic() - started
        await asyncio.sleep(0.01)
        return answer, took, fake

    answer, took, fake = asyncio.run(go())
    assert answer["status"] == 400 and "cannot read" in answer["json"]["error"]
    assert took < 1.0  # not the relay's 5 s wait for an answer that never comes
    assert fake.published == []  # nothing went out for it


def test_an_answer_the_encoder_refuses_becomes_an_error_answer() -> None:
    async def go() -> list[dict[str, Any]]:
        cluster, fake = _cluster()
        cluster.answer({"reply_to": "b", "call": 7}, {"json": {"seat": 2**70}})
        await asyncio.sleep(0.01)
        return _delivered(fake)

    (answer,) = asyncio.run(go())
    assert answer["call"] == 7 and answer["result"]["status"] == 500


def test_a_failed_flush_is_tried_once_more_and_a_second_failure_closes_the_clients_concerned() -> None:
    async def go() -> tuple[list[dict[str, Any]], list[Any], list[dict[str, Any]]]:
        cluster, fake = _cluster()
        told: list[Any] = []
        cluster.on_interrupted = told.append
        fake.failures = 1  # a pooled connection that died with Redis
        cluster.send("b", {"t": "text", "c": 1, "text": "once"})
        await asyncio.sleep(0.01)
        first = _delivered(fake)
        fake.published.clear()
        fake.failures = 2  # Redis is away
        cluster.send("b", {"t": "text", "c": 1, "text": "lost"})
        cluster.send("c", {"t": "text", "c": 2, "text": "lost"})
        await asyncio.sleep(0.01)
        return first, told, _delivered(fake)

    first, told, second = asyncio.run(go())
    assert [m["text"] for m in first] == ["once"] and told == [{"b", "c"}]
    assert second == []


def test_messages_lost_close_the_relayed_clients_concerned_with_1012_on_both_sides() -> None:
    from ohhell.web.cluster.relay import RESTART, Relay, Relayed, Remote
    from ohhell.web.tables.connection import Connection

    async def go() -> tuple[list[int], list[int], list[tuple[str, int]], list[dict[str, Any]]]:
        cluster, fake = _cluster()
        relay = Relay(cluster, server=None)  # type: ignore[arg-type]
        closed_b: list[int] = []
        closed_c: list[int] = []

        async def close_b(code: int) -> None:
            closed_b.append(code)

        async def close_c(code: int) -> None:
            closed_c.append(code)

        async def send(text: str) -> None:
            pass

        relay.relayed[1] = Relayed("b", "t1", Connection(send, 0, False), close_b)
        relay.relayed[2] = Relayed("c", "t2", Connection(send, 1, False), close_c)
        relay.remote[("b", 5)] = Remote("b", 5)
        relay.remote[("c", 6)] = Remote("c", 6)
        cluster.on_interrupted({"b"})  # what the cluster calls after a flush to b failed twice
        await asyncio.sleep(0.05)
        return closed_b, closed_c, sorted(relay.remote), _delivered(fake)

    closed_b, closed_c, remote, sent = asyncio.run(go())
    assert closed_b == [RESTART] and closed_c == []  # only the clients whose messages were lost
    assert remote == [("c", 6)]
    assert {"t": "close", "c": 5, "code": RESTART, "from": sent[0]["from"]} in sent


def test_an_arrival_the_holder_never_answers_is_closed_so_the_page_reconnects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ohhell.web.cluster import relay as relay_module
    from ohhell.web.cluster.relay import RESTART, Relay
    from ohhell.web.tables.connection import Connection

    monkeypatch.setattr(relay_module, "CALL_TIMEOUT", 0.2)

    async def go(answer: bool) -> list[int]:
        cluster, _ = _cluster()
        relay = Relay(cluster, server=None)  # type: ignore[arg-type]
        closed: list[int] = []
        leave = asyncio.Event()

        async def close(code: int) -> None:
            closed.append(code)
            leave.set()

        async def receive() -> str | None:
            await leave.wait()
            return None

        async def send(text: str) -> None:
            pass

        conn = Connection(send, None, False)
        conn.start()
        serving = asyncio.ensure_future(relay.serve("holder", "t1", {"type": "hello"}, conn, receive, close))
        await asyncio.sleep(0.05)
        if answer:  # the holder's welcome arrives
            (cid,) = relay.relayed
            await relay.receive({"t": "out", "c": [cid], "text": "{}", "from": "holder"})
        await asyncio.sleep(0.4)
        leave.set()
        await serving
        return closed

    assert asyncio.run(go(answer=False)) == [RESTART]
    assert asyncio.run(go(answer=True)) == []


def test_a_message_from_a_client_the_holder_let_go_of_closes_it_so_the_page_reconnects() -> None:
    from ohhell.web.cluster.relay import RESTART, Relay

    async def go() -> list[dict[str, Any]]:
        cluster, fake = _cluster()
        relay = Relay(cluster, server=None)  # type: ignore[arg-type]
        await relay.receive({"t": "text", "c": 9, "text": '{"type": "ping"}', "from": "b"})
        await asyncio.sleep(0.01)
        return _delivered(fake)

    (sent,) = asyncio.run(go())
    assert (sent["t"], sent["c"], sent["code"]) == ("close", 9, RESTART)


def test_a_table_taken_elsewhere_closes_its_clients_with_1012_and_a_slow_client_with_4008() -> None:
    from ohhell.web.tables.connection import Connection

    async def go() -> tuple[list[int], list[int]]:
        restarted: list[int] = []
        behind: list[int] = []

        async def send(text: str) -> None:
            await asyncio.sleep(10)  # a client that reads nothing

        async def remember(into: list[int], code: int) -> None:
            into.append(code)

        taken = Connection(send, 0, False, close=lambda code: remember(restarted, code))
        taken.start()
        await taken.hang_up()  # what Hub.drop does when another process holds the table now
        slow = Connection(send, 1, False, close=lambda code: remember(behind, code))
        slow.limit = 2
        slow.start()
        for _ in range(4):
            slow.post("x")
        await asyncio.sleep(0.05)
        slow.task.cancel()  # type: ignore[union-attr]
        return restarted, behind

    restarted, behind = asyncio.run(go())
    assert restarted == [1012]  # "the server restarts": the page reconnects at once
    assert behind in ([], [4008])  # its writer is stuck sending; 4008 if it got that far


def test_a_message_the_holder_would_refuse_never_crosses_the_broker() -> None:
    # Too long, not JSON, an unsafe value: refused by the relaying process
    # itself, in the holder's words; a good message goes on.
    from ohhell.web.cluster.relay import Relay
    from ohhell.web.protocol import MAX_MESSAGE
    from ohhell.web.tables.connection import Connection

    texts = [
        '{"type": "chat", "text": "' + "x" * 60_000 + '"}',
        "not json",
        '{"type": "act", "version": 1e999}',
    ]

    async def go() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        cluster, fake = _cluster()
        relay = Relay(cluster, server=None)  # type: ignore[arg-type]
        told: list[dict[str, Any]] = []
        queue = [*texts, '{"type": "ping"}', None]

        async def receive() -> str | None:
            await asyncio.sleep(0.01)
            return queue.pop(0)

        async def send(text: str) -> None:
            told.append(json.loads(text))

        async def close(code: int) -> None:
            pass

        conn = Connection(send, None, False)
        conn.start()
        await relay.serve("holder", "t1", {"type": "hello"}, conn, receive, close)
        await asyncio.sleep(0.05)
        return told, _delivered(fake)

    told, delivered = asyncio.run(go())
    relayed = [m["text"] for m in delivered if m["t"] == "text"]
    assert relayed == ['{"type": "ping"}']
    assert all(len(json.dumps(m)) < MAX_MESSAGE for m in delivered)
    errors = [m["error"] for m in told if m["type"] == "error"]
    assert len(errors) == 3 and "too long" in errors[0] and "not JSON" in errors[1], errors
