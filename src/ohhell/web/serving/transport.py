"""Running the application on uvicorn with limits a public host needs.

uvicorn bounds what it can on its own (``limit_concurrency``,
``timeout_keep_alive``, ``h11_max_incomplete_event_size``, the WebSocket's
size, ping interval and timeout). It has no limit on how long a client may
take to send a request's head or its body, and none per client address, so
a few hundred connections that trickle one header byte a minute (slow
loris), or a few thousand that send a head and then trickle the body, would
fill its connections and every other visitor would get 503. ``Guarded``
adds these limits to uvicorn's own HTTP protocol class:

- a connection that has not sent a whole request head ``HEAD_TIMEOUT``
  seconds after it opened (or after its last response) is closed;
- one address may hold at most ``CONNECTIONS_PER_ADDRESS`` HTTP connections
  still waiting for a request head; more are closed at once;
- a request whose body has not all come ``BODY_TIMEOUT`` seconds after its
  head is answered 408 (if nothing was answered yet) and closed; a body
  larger than ``MAX_BODY`` is answered 413 and closed;
- a request head larger than ``MAX_HEAD`` is answered 431 and closed, after
  at most that much and one more read of it (a head is never held whole:
  httptools would gather a huge header line at great cost to the loop);
- a refused request whose body is still coming is not cut off with a
  reset: the connection is half-closed after the answer, and what is left
  of the body is read and dropped for up to ``LINGER`` seconds
  (``_Lingering``). A balancer in front takes a reset for a failed server,
  so one client's refused upload would otherwise keep everyone else from a
  healthy one;
- one address may have at most ``REQUESTS_PER_ADDRESS`` requests in flight
  (head in, answer not yet sent); more are answered 429 and closed at once,
  and an address refused ``guard.FLOOD`` times in a row is held off;
- an address the application holds off (``hold_off``: it kept asking after
  its quota was spent) has its new connections closed at once for a while.

A connection upgraded to a WebSocket leaves this count; the application
counts WebSockets per address itself (``Limits.sockets_per_address``).

Behind a balancer named by ``--forwarded-allow-ips`` (guard.Proxies), the
address is the client's as the balancer passed it on, not the balancer's:
requests in flight, refusals and holding off count per client, once each
request's head is in. Before that the client is unknown, so the cap on
connections waiting for a head does not apply to a trusted balancer's
connections (it sends a head only once it has it whole, and bounds slow
clients with its own timeouts); the head timeout does. A held-off client
behind the balancer is answered 429 rather than cut off, so the balancer
does not take the cut for a failed server and stop sending it others.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter, deque
from typing import Any, Final

from .guard import FLOOD, Proxies, forwarded_for, plain_address, trust_proxies, trusted_proxies

HEAD_TIMEOUT: Final = 10.0  # seconds to send a request's head
BODY_TIMEOUT: Final = 10.0  # seconds to send a request's body once its head is in
MAX_BODY: Final = 1024 * 1024  # the largest body any route reads (a record to replay, app.MAX_RECORD)
MAX_HEAD: Final = 64 * 1024  # bytes of a request's line and headers (nginx's own default cap is 32 KiB)
LINGER: Final = 2.0  # seconds a refused request's unread body is still read (and dropped) before the close
LINGER_BYTES: Final = 4 * MAX_BODY  # bytes read and dropped so, at most
CONNECTIONS_PER_ADDRESS: Final = 64  # connections one address may hold waiting for a head
REQUESTS_PER_ADDRESS: Final = 32  # requests one address may have in flight (head in, not yet answered)
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
_in_flight: Counter[str] = Counter()  # requests per address whose head is in and whose answer is not sent
_refused: Counter[str] = Counter()  # requests per address refused in a row for too many in flight
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


def _refusal(status: int, words: str) -> Any:
    """An ASGI application that answers every request ``status`` with
    ``{"error": words}`` and closes the connection (the body is not read)."""
    body = json.dumps({"error": words}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


_TOO_MANY = _refusal(429, "too many requests at once from your address: wait for the others to finish")
_HELD = _refusal(429, "too many requests from your address: wait a few seconds before the next")
_HELD_UPGRADE = b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
_TOO_LARGE = _refusal(413, f"the request body is larger than {MAX_BODY} bytes")
_TOO_SLOW = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
_CUT_OFF = b"HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
_HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
)


class _Lingering:
    """A connection's transport as uvicorn's request cycle sees it: a close
    while a refused request's body is still coming lingers instead
    (``Guarded._linger``). Everything else goes to the transport itself."""

    def __init__(self, transport: asyncio.Transport, protocol: Guarded) -> None:
        self._transport = transport
        self._protocol = protocol

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def close(self) -> None:
        if self._protocol.unread and not self._transport.is_closing():
            self._protocol.linger()
        else:
            self._transport.close()

    def is_closing(self) -> bool:
        return self._protocol.lingering or self._transport.is_closing()


class Guarded(_base()):  # type: ignore[misc]
    """uvicorn's HTTP protocol with time limits on a request's head and body
    and per-address caps (the module's docstring)."""

    head_timeout: float = HEAD_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    max_body: int = MAX_BODY
    per_address: int = CONNECTIONS_PER_ADDRESS
    requests_per_address: int = REQUESTS_PER_ADDRESS
    app: Any  # the application uvicorn's protocol calls (set by its __init__)

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._real = transport
        self.unread = False  # a refused request's body is still coming: a close lingers
        self.lingering = False
        self._lingered = 0
        self._awaiting_head = True
        self._head_bytes = 0
        super().connection_made(_Lingering(transport, self))
        peer = transport.get_extra_info("peername")
        self._peer = plain_address(str(peer[0])) if peer else "unknown"
        self._address = self._peer  # the client's, once known (a request's head from a trusted balancer)
        self._proxied = trusted_proxies().trusts(self._peer)
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_size = 0
        self._body_counted = False
        # One entry per request whose answer is not complete, in order
        # (pipelined requests are answered in order): the address it is
        # counted under in _in_flight, or None if it is not counted.
        self._requests: deque[str | None] = deque()
        self._counted = False
        if self._proxied:  # the client is not known before its head: only the head timeout
            self._wait_for_head()
            return
        if held(self._address) or (self.per_address and _waiting[self._address] >= self.per_address):
            transport.close()
            return
        self._wait_for_head()

    def _wait_for_head(self) -> None:
        self._awaiting_head, self._head_bytes = True, 0
        if not self._counted and not self._proxied:
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

    def data_received(self, data: bytes) -> None:
        if self.lingering:  # what is left of a refused body: dropped
            self._lingered += len(data)
            if self._lingered > LINGER_BYTES:
                self._real.close()
            return
        if self._awaiting_head:
            # Every byte so far belongs to a head not yet whole.
            if self._head_bytes > MAX_HEAD:
                self._real.write(_HEAD_TOO_LARGE)
                self._real.close()
                return
            self._head_bytes += len(data)
        super().data_received(data)

    def linger(self) -> None:
        """Half-close after the answer, read and drop the rest of the body for
        up to ``LINGER`` seconds, then close: no reset for the client, nor for
        a balancer that would take it for a failed server."""
        self.lingering = True
        transport = self._real
        if transport.can_write_eof():
            transport.write_eof()
        transport.resume_reading()
        self.loop.call_later(LINGER, transport.close)

    def on_headers_complete(self) -> None:
        self._awaiting_head = False
        self._got_head()
        if self._proxied:
            self._address = trusted_proxies().client(self._peer, forwarded_for(self.headers))
        if self.parser.should_upgrade() and self._should_upgrade():
            self.transport = self._real  # a WebSocket's frames go to the transport itself
            if self._proxied and held(self._address):
                self.transport.write(_HELD_UPGRADE)  # handle_websocket_upgrade sees it closing
                self.transport.close()
                return
            super().on_headers_complete()  # a WebSocket: the application counts those
            return
        refusal = self._refusal()
        self._requests.append(self._address if refusal is None else None)
        self._body_size = 0
        self._body_counted = refusal is None  # a refused request's connection closes once answered
        if refusal is not None:
            # Its body, if any, is not read: the close after the answer lingers.
            declared = dict(self.headers).get(b"content-length", b"0")
            self.unread = declared != b"0" or dict(self.headers).get(b"transfer-encoding") is not None
            # uvicorn's own request cycle answers it (in order, after any
            # request before it on this connection), with this application.
            app, self.app = self.app, refusal
            try:
                super().on_headers_complete()
            finally:
                self.app = app
            return
        _in_flight[self._address] += 1
        if self.body_timeout:
            self._body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)
        super().on_headers_complete()

    def _refusal(self) -> Any:
        declared = dict(self.headers).get(b"content-length", b"")
        if self.max_body and declared.isdigit() and int(declared) > self.max_body:
            return _TOO_LARGE
        if self._proxied and held(self._address):
            return _HELD
        if self.requests_per_address and _in_flight[self._address] >= self.requests_per_address:
            _refused[self._address] += 1
            if _refused[self._address] >= FLOOD:
                del _refused[self._address]
                hold_off(self._address)
            return _TOO_MANY
        _refused.pop(self._address, None)
        return None

    def on_body(self, body: bytes) -> None:
        self._body_size += len(body)
        if self._body_counted and self.max_body and self._body_size > self.max_body:
            self._cut_off(_CUT_OFF)  # a chunked body past the limit (a declared one was refused)
            return
        super().on_body(body)

    def on_message_complete(self) -> None:
        self.unread = False  # the whole body came
        self._body_done()
        super().on_message_complete()

    def _body_done(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_too_slow(self) -> None:
        self._body_timer = None
        self._cut_off(_TOO_SLOW)

    def _cut_off(self, answer: bytes) -> None:
        """Close the connection in the middle of a request's body, answering
        ``answer`` first if the application has not begun its own answer."""
        self._body_done()
        if self.transport.is_closing():
            return
        self.unread = True  # the rest of the body: read and dropped
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if not cycle.response_started:
                self.transport.write(answer)
            # The application reading the body hears that the client went away.
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.close()

    def on_response_complete(self) -> None:
        self._answered()
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_head()  # kept alive: the next request's head has the same time

    def _answered(self) -> None:
        address = self._requests.popleft() if self._requests else None
        if address is not None:
            _in_flight[address] -= 1
            if not _in_flight[address]:
                del _in_flight[address]

    def handle_websocket_upgrade(self) -> None:
        self._got_head()
        if self.transport.is_closing():  # refused in on_headers_complete
            return
        super().handle_websocket_upgrade()

    def connection_lost(self, exc: Exception | None) -> None:
        self._got_head()
        self._body_done()
        while self._requests:
            self._answered()
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
        settings = json.loads(guard)
        Guarded.head_timeout = settings["head_timeout"]
        Guarded.body_timeout = settings["body_timeout"]
        Guarded.per_address = settings["per_address"]
        Guarded.requests_per_address = settings["requests_per_address"]
        trust_proxies(Proxies(settings.get("proxies", ())))


def run(
    app: Any,
    host: str,
    port: int,
    *,
    head_timeout: float = HEAD_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
    per_address: int = CONNECTIONS_PER_ADDRESS,
    requests_per_address: int = REQUESTS_PER_ADDRESS,
    limit_concurrency: int = LIMIT_CONCURRENCY,
    workers: int = 1,
    proxies: Proxies | None = None,
) -> None:
    """Serve ``app`` with uvicorn as ``ohhell serve`` does (bench/ scripts too).
    With ``workers`` > 1, ``app`` is a factory's import path (workers.py).
    ``proxies``: the balancers whose X-Forwarded-For is believed (none by default)."""
    import uvicorn

    proxies = proxies or Proxies()
    trust_proxies(proxies)
    Guarded.head_timeout = head_timeout
    Guarded.body_timeout = body_timeout
    Guarded.per_address = per_address
    Guarded.requests_per_address = requests_per_address
    tune_collector()
    # Messages are small (about 1 KiB); compressing each one cost 9% of the
    # server's time at 1,000 seats, so frames go as they are.
    if workers > 1:
        # Each process is spawned afresh: the guard's settings go with it.
        os.environ["OHHELL_GUARD"] = json.dumps(
            {
                "head_timeout": head_timeout,
                "body_timeout": body_timeout,
                "per_address": per_address,
                "requests_per_address": requests_per_address,
                "proxies": proxies.names,
            }
        )
    uvicorn.run(
        app,
        host=host,
        port=port,
        workers=workers if workers > 1 else None,
        factory=workers > 1,
        http=Guarded if _base() is not object else "auto",
        log_level="warning",
        # guard.client_address reads X-Forwarded-For itself, from the
        # balancers named and no one else (uvicorn's own trusts loopback).
        proxy_headers=False,
        limit_concurrency=limit_concurrency or None,
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=16 * 1024,
        ws_max_size=65536,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        ws_per_message_deflate=False,
    )


__all__ = ["MAX_HEAD", "Guarded", "held", "hold_off", "run"]
