"""A server killed with SIGKILL cannot stop its workers: the replay's and the
review's worker processes must see it and end by themselves (docs/web.md,
"Replays" and "Review"), instead of holding memory and a core for ever.

A real ``ohhell serve`` process on an SQLite file replays a record and
begins a review (so both pools have started their workers), is killed with
SIGKILL, and every process it started must be gone within a generous time.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from ohhell import PRESETS, Record, dumps
from ohhell.bots import get_bot, play_match

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

HOST = "127.0.0.1"
GONE_WITHIN = 30.0  # seconds; the workers look every second


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def children_of(parent: int) -> set[int]:
    """The processes whose parent is ``parent``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                found.add(int(entry.name))
    return found


def running(pid: int) -> bool:
    """Is ``pid`` still a live process (not gone, not a zombie nobody reaped)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def post(port: int, path: str, body: bytes) -> int:
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", data=body, method="POST")
    try:
        # A generous time: the review's workers start and warm up before reading the record.
        with urllib.request.urlopen(request, timeout=180) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as err:
        return err.code


def test_replay_and_review_workers_end_when_their_server_is_killed(tmp_path: Path) -> None:
    rules = PRESETS["pagat"].replace(hand_sizes=(7, 6, 5, 4, 3, 2, 1), first_dealer=0)
    state = play_match(rules, [get_bot("random") for _ in range(4)], random.Random(7))
    record = dumps(Record.from_state(state, ("Ann", "Bob", "Cid", "Dee"))).encode()
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "ohhell",
        "serve",
        "--db",
        f"sqlite:///{tmp_path / 's.db'}",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            try:
                socket.create_connection((HOST, port), 0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen in time"
                time.sleep(0.1)
        before = children_of(server.pid)
        assert post(port, "/api/replay", record) == 200  # the replay's worker
        assert post(port, "/api/review", record) == 202  # the review's workers, one of them reviewing now
        workers = children_of(server.pid) - before
        assert len(workers) >= 2, workers
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + GONE_WITHIN
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = {pid for pid in workers if running(pid)}
        assert not left, f"{len(left)} of the server's {len(workers)} workers outlived it"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in workers:  # only the processes this test's server started
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        if server.stderr is not None:
            server.stderr.close()
