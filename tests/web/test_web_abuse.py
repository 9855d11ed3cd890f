"""Abuse over HTTP, bounded (docs/web.md, "Limits"): slow request bodies,
the list of open tables emptied or crowded out, replays from one address,
and numbers too large for a float.

Each test here failed on the server before these limits. The transport's
tests run ``ohhell serve``'s uvicorn in a process of its own on 127.0.0.1
and speak raw HTTP from loopback addresses (127.0.0.x) with small limits, and
wait for what the server says (a ``100 Continue`` proves a request's head is
in), never for time to pass.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from limits import parse
from limits.strategies import MovingWindowRateLimiter

from ohhell.web.guard import Quotas, WindowStorage
from ohhell.web.table import TableError

Json = dict[str, Any]

# --- The quotas' windows start no thread ---


def test_quotas_start_no_thread(monkeypatch: Any) -> None:
    # The limits library's MemoryStorage started a timer thread on nearly
    # every hit; each start waited for the interpreter's lock and stalled the
    # event loop under a flood (docs/performance.md, "Server under abuse").
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    quotas = Quotas("2/minute")
    for i in range(200):
        quotas.take("tables", f"10.5.0.{i}")
    quotas.take("tables", "10.5.0.0")
    with pytest.raises(TableError):
        quotas.take("tables", "10.5.0.0")  # the third in a minute
    assert started == []


def test_the_windows_forget_addresses_whose_window_passed() -> None:
    now = [1000.0]
    storage = WindowStorage(now=lambda: now[0])
    limiter = MovingWindowRateLimiter(storage)
    item = parse("2/minute")
    for i in range(500):
        assert limiter.hit(item, f"10.6.0.{i}")
    assert limiter.hit(item, "10.6.0.0") and not limiter.hit(item, "10.6.0.0")
    now[0] += 61
    assert limiter.hit(item, "10.6.0.0")  # its window has passed: allowed again
    for i in range(300):
        limiter.hit(item, f"10.7.0.{i}")
    # Each hit forgets up to two addresses whose window has passed: by now
    # only those used in the last minute are kept.
    assert len(storage._events) == 301
