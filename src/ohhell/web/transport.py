"""Running the application on uvicorn with limits a public host needs.

uvicorn bounds what it can on its own (``limit_concurrency``,
``timeout_keep_alive``, ``h11_max_incomplete_event_size``, the WebSocket's
size, ping interval and timeout). It has no limit on how long a client may
take to send a request's head, and none per client address, so a few hundred
connections that trickle one header byte a minute (slow loris) would stay
open for ever. ``Guarded`` adds both to uvicorn's own HTTP protocol class:

- a connection that has not sent a whole request head ``HEAD_TIMEOUT``
  seconds after it opened (or after its last response) is closed;
- one address may hold at most ``CONNECTIONS_PER_ADDRESS`` HTTP connections
  still waiting for a request head; more are closed at once;
- an address the application holds off (``hold_off``: it kept asking after
  its quota was spent) has its new connections closed at once for a while.

A connection upgraded to a WebSocket leaves this count; the application
counts WebSockets per address itself (``Limits.sockets_per_address``).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from typing import Any, Final

HEAD_TIMEOUT: Final = 10.0  # seconds to send a request's head
CONNECTIONS_PER_ADDRESS: Final = 64  # connections one address may hold waiting for a head
LIMIT_CONCURRENCY: Final = 4096  # connections and tasks before uvicorn answers 503
KEEP_ALIVE: Final = 5  # seconds an idle kept-alive connection stays open
HOLD_OFF: Final = 10.0  # seconds an address that floods past its quota is not served


def _base() -> type[Any]:
    # The hooks below are httptools' callbacks; uvicorn[standard] (the web
    # extra) brings httptools. Without it uvicorn's own h11 protocol runs,
    # with uvicorn's limits but no head timeout (see run()).
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    except ImportError:  # pragma: no cover - depends on the install
        return object


_waiting: Counter[str] = Counter()  # connections per address still waiting for a request head
_held: dict[str, float] = {}  # address -> until when (time.monotonic) its connections are closed at once


def hold_off(address: str, seconds: float = HOLD_OFF) -> None:
    """Close every new connection from ``address`` for ``seconds``: for a
    client that keeps asking after its quota is spent (each refusal still
    costs a connection, a request head and an answer)."""
    _held[address] = time.monotonic() + seconds
    if len(_held) > 10_000:  # forget the ones whose time is up
        now = time.monotonic()
        for key in [k for k, until in _held.items() if until <= now]:
            del _held[key]


def held(address: str) -> bool:
    until = _held.get(address)
    return until is not None and until > time.monotonic()


class Guarded(_base()):  # type: ignore[misc]
    """uvicorn's HTTP protocol with a request-head timeout and a per-address cap."""

    head_timeout: float = HEAD_TIMEOUT
    per_address: int = CONNECTIONS_PER_ADDRESS

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self._address = str(peer[0]) if peer else "unknown"
        self._head_timer: asyncio.TimerHandle | None = None
        self._counted = False
        if held(self._address) or (self.per_address and _waiting[self._address] >= self.per_address):
            transport.close()
            return
        self._wait_for_head()

    def _wait_for_head(self) -> None:
        if not self._counted:
            _waiting[self._address] += 1
            self._counted = True
        if self._head_timer is None and self.head_timeout:
            self._head_timer = self.loop.call_later(self.head_timeout, self._too_slow)

    def _got_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._counted:
            _waiting[self._address] -= 1
            if not _waiting[self._address]:
                del _waiting[self._address]
            self._counted = False

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._got_head()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_head()  # kept alive: the next request's head has the same time

    def handle_websocket_upgrade(self) -> None:
        self._got_head()
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._got_head()
        super().connection_lost(exc)


def tune_collector() -> None:
    """A server holds many long-lived objects (tables, states, logs), and the
    default collector thresholds made it stop for 10-175 ms dozens of times
    a minute at 1,000 seats; freezing what start-up built and collecting the
    youngest generation less often took p99 from 79 to 51 ms (docs/performance.md)."""
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    guard = os.environ.get("OHHELL_GUARD")
    if guard:  # a worker process of ohhell serve --workers: the guard's settings
        Guarded.head_timeout, Guarded.per_address = json.loads(guard)


def run(
    app: Any,
    host: str,
    port: int,
    *,
    head_timeout: float = HEAD_TIMEOUT,
    per_address: int = CONNECTIONS_PER_ADDRESS,
    limit_concurrency: int = LIMIT_CONCURRENCY,
    workers: int = 1,
) -> None:
    """Serve ``app`` with uvicorn as ``ohhell serve`` does (bench/ scripts too).
    With ``workers`` > 1, ``app`` is a factory's import path (workers.py)."""
    import uvicorn

    Guarded.head_timeout = head_timeout
    Guarded.per_address = per_address
    tune_collector()
    # Messages are small (about 1 KiB); compressing each one cost 9% of the
    # server's time at 1,000 seats, so frames go as they are.
    if workers > 1:
        # Each process is spawned afresh: the guard's settings go with it.
        os.environ["OHHELL_GUARD"] = json.dumps([head_timeout, per_address])
    uvicorn.run(
        app,
        host=host,
        port=port,
        workers=workers if workers > 1 else None,
        factory=workers > 1,
        http=Guarded if _base() is not object else "auto",
        log_level="warning",
        limit_concurrency=limit_concurrency or None,
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=16 * 1024,
        ws_max_size=65536,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        ws_per_message_deflate=False,
    )


__all__ = ["Guarded", "held", "hold_off", "run"]
