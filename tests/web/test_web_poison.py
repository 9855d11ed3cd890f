"""Values Python's JSON reader accepts but that cannot be passed on.

A whole number beyond 64 bits, nesting past the encoder's depth, a lone half
of a UTF-16 pair or NaN in a client's hello or request body used to be read,
relayed to the process holding the table, and fail there in the encoder of
the relay, taking every other table's messages of that moment with it.
They are refused where client input is read (protocol.loads_checked), with
the same answer on one process and on two.

The cluster test runs when ``OHHELL_TEST_POSTGRES`` and ``OHHELL_TEST_REDIS``
name the servers (CI sets both) and skips with the reason otherwise.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import make_app

from ohhell.web.protocol import (
    MAX_DEPTH,
    SAFE_INTEGER,
    ProtocolError,
    UnsafeJson,
    loads_checked,
    parse_message,
)
from support import bench_script

POSTGRES = os.environ.get("OHHELL_TEST_POSTGRES")
REDIS = os.environ.get("OHHELL_TEST_REDIS")

# Each poison value as a client writes it, and a word its refusal names.
POISON = {
    "a number past 64 bits": ("18446744073709551616", "too large a whole number"),
    "a number just past JSON's safe range": (str(SAFE_INTEGER), "too large a whole number"),
    "a negative one": (str(-SAFE_INTEGER), "too large a whole number"),
    "a float past a double": ("1e400", "too large a number"),
    "NaN": ("NaN", "NaN"),
    "Infinity": ("Infinity", "Infinity"),
    "-Infinity": ("-Infinity", "Infinity"),
    "a lone surrogate": ('"\\ud800"', "half of a character pair"),
    "a lone low surrogate as a key": ('{"\\udc00": 1}', "half of a character pair"),
    "nesting past the limit": ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "levels deep"),
    "nesting past the encoder": ("[" * 300 + "]" * 300, "levels deep"),
}


def _with(value: str) -> str:
    """A message that would be fine but for one field holding ``value``."""
    return '{"type": "hello", "token": "", "x": ' + value + "}"


# --- The validator ---


@pytest.mark.parametrize("name", POISON)
def test_each_poison_value_is_refused_naming_what_is_wrong(name: str) -> None:
    value, words = POISON[name]
    with pytest.raises(UnsafeJson, match=words):
        loads_checked(_with(value))
    with pytest.raises(ProtocolError, match=words):
        parse_message(_with(value))


def test_values_at_the_edge_of_the_safe_ones_are_read() -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH  # the top object is one level more
    text = (
        f'{{"big": {SAFE_INTEGER - 1}, "low": {-(SAFE_INTEGER - 1)}, "f": 1.5e300, '
        f'"pair": "\\ud83d\\ude00", "deep": {deep[1:-1]}}}'
    )
    data = loads_checked(text)
    assert data["big"] == SAFE_INTEGER - 1 and data["low"] == -(SAFE_INTEGER - 1)
    assert data["pair"] == "\U0001f600"  # a whole pair is one character, fine
    assert data["f"] == 1.5e300
    with pytest.raises(UnsafeJson, match="levels deep"):
        loads_checked('{"deep": ' + deep + "}")


def test_half_a_pair_given_as_text_not_as_an_escape_is_refused_too() -> None:
    # A str handed in (not read from UTF-8) can hold one; an escape of a
    # whole character is fine.
    with pytest.raises(UnsafeJson, match='"name" holds half of a character pair'):
        loads_checked('{"name": "Ann \ud800"}')
    assert loads_checked('{"name": "Ren\\u00e9e \u00e9"}') == {"name": "Ren\u00e9e \u00e9"}
    with pytest.raises(UnsafeJson, match="half of a character pair"):
        loads_checked(b'{"name": "\\udbff"}')


def test_a_huge_number_is_refused_without_reading_it() -> None:
    # 60,000 digits: reading them as a whole number would take a while; the
    # count of digits alone refuses it.
    started = time.process_time()
    with pytest.raises(UnsafeJson, match='"x" is too large a whole number') as refused:
        loads_checked('{"x": ' + "7" * 60_000 + "}")
    assert refused.value.field == "x" and len(str(refused.value)) < 80  # never echoed whole
    assert time.process_time() - started < 1.0


def test_nesting_deeper_than_python_reads_is_a_refusal_not_a_crash() -> None:
    with pytest.raises(ProtocolError, match="levels deep"):
        parse_message('{"type": "x", "a": ' + "[" * 2000 + "]" * 2000 + "}")


def test_a_request_body_with_a_poison_value_is_a_400_naming_it(tmp_path: Any) -> None:
    from starlette.testclient import TestClient

    with TestClient(make_app(str(tmp_path / "t.db"))) as client:
        for value, words in POISON.values():
            body = '{"seats": ["human", "human", "human"], "x": ' + value + "}"
            answer = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
            assert answer.status_code == 400, value
            assert words in answer.json()["error"] and "cannot be used" in answer.json()["error"]
            assert answer.json()["field"] == "x"  # the form shows it beside the field


# --- Two processes ---


@pytest.fixture
def bench() -> Any:
    if not (POSTGRES and REDIS):
        pytest.skip("set OHHELL_TEST_POSTGRES and OHHELL_TEST_REDIS to test several server processes")
    pytest.importorskip("redis")
    pytest.importorskip("psycopg")
    return bench_script("failover")


@pytest.fixture
def db(bench: Any) -> Iterator[str]:
    schema = bench.Schema(POSTGRES)
    try:
        yield schema.url
    finally:
        schema.drop()


def _post_raw(base: str, path: str, body: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        base + path, data=body.encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def _hello(port: int, table: str, text: str) -> tuple[int | None, list[dict[str, Any]]]:
    """Say ``text`` as the hello; the close code and what came before it."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    got: list[dict[str, Any]] = []
    async with connect(f"ws://127.0.0.1:{port}/ws/{table}", open_timeout=10) as ws:
        await ws.send(text)
        try:
            while True:
                got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        except ConnectionClosed:
            pass
        return ws.close_code, got


def test_poison_through_the_relay_is_refused_and_another_table_plays_on(bench: Any, db: str) -> None:
    servers = bench.start_servers(db, REDIS, 2, "--create-limit", "none", "--bid-change-wait", "0")
    try:
        # The attacker's table, and which process holds it.
        table, ((_, ann_token), _) = bench.start_table(servers)
        (holder,) = [s for s in servers if s.proc.pid == bench.holder_pid(REDIS, table)]
        (relay,) = [s for s in servers if s is not holder]
        # The victim: alone with bots at a table the same process holds,
        # playing through the other, so every message of his travels the
        # relay the attacker uses.
        made = bench.post(holder, "/api/play-now", {"name": "Vic"})
        assert bench.holder_pid(REDIS, made["table"]) == holder.proc.pid
        victim = bench.Person(made["table"], made["seat"], made["token"], [relay], 0, 0.05, random.Random(1))
        answers: dict[str, dict[str, Any]] = {}

        async def attack() -> None:
            stop = asyncio.Event()
            playing = asyncio.ensure_future(victim.play(stop))
            await asyncio.sleep(1.0)
            for name, (value, words) in POISON.items():
                # The hello, straight to the holder and through the relay: the
                # same refusal (no hello, 4400), naming the fault.
                for server in (holder, relay):
                    code, got = await _hello(server.port, table, _with(value))
                    assert code == 4400, (name, server.port, got)
                    assert got and got[-1]["type"] == "error" and words in got[-1]["error"], (name, got)
                    answers.setdefault(f"hello {name}", got[-1])
                    assert answers[f"hello {name}"] == got[-1]
                # Each body the relay carries: refused by both processes alike.
                for op in ("join", "fill", "start", "rematch"):
                    body = '{"token": "' + ann_token + '", "name": "Eve", "x": ' + value + "}"
                    results = [
                        await asyncio.to_thread(_post_raw, s.base, f"/api/tables/{table}/{op}", body)
                        for s in (holder, relay)
                    ]
                    assert results[0] == results[1], (name, op, results)
                    status, answer = results[0]
                    assert status == 400 and words in answer["error"], (name, op, results)
                await asyncio.sleep(0.05)
            seen = max(victim.seen, default=0)
            # The victim's table goes on after every poison value was sent.
            deadline = time.monotonic() + 20
            while max(victim.seen, default=0) < seen + 6:
                assert time.monotonic() < deadline, f"the victim's table stalled at version {seen}"
                await asyncio.sleep(0.05)
            stop.set()
            await playing

        asyncio.run(attack())
        assert victim.reconnects == 0 and not victim.errors
        times = [t for t, _ in victim.arrived]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # Bots move every tenth of a second here; a dropped message stalls
        # the table (no clock) until the end of the test.
        assert len(times) > 10 and max(gaps) < 5.0, (len(times), max(gaps, default=0))
        assert all(s.alive for s in servers)
    finally:
        bench.stop_servers(servers)
