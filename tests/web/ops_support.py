"""Helpers for the tests of what a host runs beside the game
(tests/web/test_web_ops.py, test_web_ops_cluster.py): ``ohhell serve`` as a
real process on loopback, plain HTTP, and people playing over WebSockets."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"
SRC = str(Path(__file__).resolve().parents[2] / "src")


def until(check: Callable[[], Any], seconds: float = 10.0, what: str = "") -> Any:
    """``check()``'s first true answer within ``seconds`` (else the test fails, saying ``what``)."""
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def environment(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **extra}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


def serve(home: Path, *args: str, port: int | None = None) -> tuple[subprocess.Popen[bytes], int]:
    port = port or free_port()
    command = [sys.executable, "-m", "ohhell", "serve", "--port", str(port), "--bot-delay", "0.05"]
    command += ["--think", "0.1", *args]
    proc = subprocess.Popen(
        command,
        env=environment(OHHELL_HOME=str(home)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    listening(proc, HOST, port)
    return proc, port


def listening(proc: subprocess.Popen[bytes], host: str, port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            socket.create_connection((host, port), 0.2).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "the server did not listen in time"
            time.sleep(0.05)


def stop(proc: subprocess.Popen[bytes]) -> bytes:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


async def both(url: str, seats: list[tuple[int, str]], into: list[dict[str, Any]]) -> None:
    """One action of each person of ``bench.start_table``'s table (their
    seats wait for them: neither plays without the other)."""
    await asyncio.gather(*(play(url, token, 1, into) for _, token in seats))


async def play(url: str, token: str, moves: int, into: list[dict[str, Any]]) -> None:
    """Play ``moves`` of one seat's turns (its first legal action each time),
    until the table has taken them."""
    from websockets.asyncio.client import connect as ws_connect

    async with ws_connect(url, open_timeout=10) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        seat = None
        taken = 0
        asked = -1  # the version of the last action sent
        deadline = time.monotonic() + 60
        while taken < moves:
            assert time.monotonic() < deadline, "the match did not go on"
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            into.append(message)
            if message["type"] == "welcome":
                seat = message["seat"]
            if message["type"] != "state":
                continue
            if asked >= 0 and (message.get("last") or {}).get("seat") == seat and message["version"] > asked:
                taken += 1
                asked = -1
            legal = [a for a in message["obs"]["legal"] if a["kind"] != "change"]
            if taken < moves and asked < 0 and seat in (message["obs"].get("turn") or []) and legal:
                asked = message["version"]
                await ws.send(json.dumps({"type": "act", "version": asked, "action": legal[0]}))
